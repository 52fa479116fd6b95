// Runs the compiled tests with Node's test runner, one process per file, on three arms: the local
// Playwright backend, a real Selenium Grid and a local Firefox over WebDriver BiDi. Which arms run
// a file is read from its first line (DESIGN §15):
//   // Browser behaviour: …                    every arm (one conformance suite)
//   // Server surface: …                       the playwright arm only
//   // Server surface, also on the Grid: …     the playwright and grid arms (the Grid's smoke)
//   // Grid backend: …                         the grid arm only
// Files are run from one queue by a few lanes, longest first; a failed file is run once more, and
// a test that passes only then is listed as flaky. Writes test-results/timings.json and flaky.json.
//
// Usage: node scripts/run-tests.mjs [files…] [--lanes N] [--under-load [workers]] [--help]
//   SWIFTBROWSE_TEST_BACKEND=grid|firefox|playwright   that arm only
//   SWIFTBROWSE_TEST_GRID=off, SWIFTBROWSE_TEST_FIREFOX=off   leave an arm out
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    lanes: { type: 'string' },
    'under-load': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
  args: underLoadArgs(process.argv.slice(2)),
});
/** `--under-load` takes its number as the next word or after `=`; alone it means 6 workers. */
function underLoadArgs(args) {
  return args.flatMap((a, i) => {
    if (a !== '--under-load') return /^\d+$/.test(a) && args[i - 1] === '--under-load' ? [] : [a];
    return [`--under-load=${/^\d+$/.test(args[i + 1] ?? '') ? args[i + 1] : 6}`];
  });
}

if (flags.help) {
  process.stdout.write(readFileSync(new URL(import.meta.url), 'utf8').split('\nimport')[0] + '\n');
  process.exit(0);
}

/** Which arms run a file of each kind, by the words its first line starts with. */
const KINDS = [
  { words: 'Browser behaviour', arms: ['playwright', 'grid', 'firefox'] },
  { words: 'Server surface, also on the Grid', arms: ['playwright', 'grid'] },
  { words: 'Server surface', arms: ['playwright'] },
  { words: 'Grid backend', arms: ['grid'] },
];

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? testFiles(join(dir, e.name))
      : e.name.endsWith('.test.js')
        ? [join(dir, e.name)]
        : [],
  );
}

const isE2e = (file) => file.includes(join('test', 'e2e'));

/** The arms an e2e file runs on, from the first line of its source; a file without one stops the run. */
function armsOf(file) {
  const source = file.replace(/^dist\//, '').replace(/\.js$/, '.ts');
  const first = readFileSync(existsSync(source) ? source : file, 'utf8').split('\n', 1)[0];
  const kind = KINDS.find((k) => first.startsWith(`// ${k.words}:`));
  if (!kind) {
    process.stderr.write(
      `${source}: its first line must say which kind of test it is, one of\n${KINDS.map((k) => `  // ${k.words}: …`).join('\n')}\n(see DESIGN §15); it says: ${first}\n`,
    );
    process.exit(2);
  }
  return kind.arms;
}

const files = positionals.length ? positionals : testFiles('dist/test').sort();
const only = process.env.SWIFTBROWSE_TEST_BACKEND;
const armOn = {
  playwright: !only || only === 'playwright',
  grid: only === 'grid' || (!only && process.env.SWIFTBROWSE_TEST_GRID !== 'off'),
  firefox: only === 'firefox' || (!only && process.env.SWIFTBROWSE_TEST_FIREFOX !== 'off'),
};

/** One job per arm a file runs on; the unit tests are one job of the playwright arm. */
const units = files.filter((f) => !isE2e(f));
const jobs = [
  ...(units.length && armOn.playwright ? [{ arm: 'playwright', files: units, name: 'unit' }] : []),
  ...files.filter(isE2e).flatMap((f) =>
    armsOf(f)
      .filter((arm) => armOn[arm])
      .map((arm) => ({ arm, files: [f], name: basename(f) })),
  ),
];

// Longest first, from the last run's timings over the ones kept in scripts/ (a run of a few files
// times only those), so no long file starts last and holds the run alone.
const timingsPath = 'test-results/timings.json';
const lastTimings = Object.assign(
  {},
  ...['scripts/test-timings.json', timingsPath]
    .filter((p) => existsSync(p))
    .map((p) => JSON.parse(readFileSync(p, 'utf8')).files),
);
const expected = (job) => lastTimings[`${job.arm} ${job.name}`]?.seconds ?? 60;
jobs.sort((a, b) => expected(b) - expected(a));

// The suite is CPU-bound on this 2-core machine (0% idle, half of it in the kernel starting
// browsers): three lanes held the load at 10-20 and made no file sooner, so two, near the load 8
// every test's bounds are chosen to hold at (DESIGN §15).
const lanes = Number(flags.lanes ?? process.env.SWIFTBROWSE_TEST_LANES ?? 2);
if (!Number.isInteger(lanes) || lanes < 1) {
  process.stderr.write(`--lanes takes a whole number of 1 or more; got ${flags.lanes}\n`);
  process.exit(2);
}

/** node --test on one job's files; resolves with its exit code, counts, failed tests and output. */
function runOnce(job, env) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(
      process.execPath,
      // A file that hangs fails after 20 minutes, and a file whose tests are done exits even if a
      // handle stays open: either would otherwise hold the whole run with no word of which file.
      [
        '--test',
        '--test-concurrency=1',
        '--test-reporter=spec',
        `--test-timeout=${20 * 60_000}`,
        '--test-force-exit',
        ...job.files,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      const counts = {};
      for (const m of output.matchAll(/^ℹ (tests|pass|fail|skipped|cancelled) (\d+)/gm))
        counts[m[1]] = Number(m[2]);
      // The spec reporter marks a failed test ✖ at its own depth; its suites are marked too.
      // A suite started with ▶ is marked ✖ too when a test in it failed: only tests are listed.
      const suites = new Set([...output.matchAll(/^\s*▶ (.+)$/gm)].map((m) => m[1]));
      const failed = [...output.matchAll(/^\s*✖ (.+?) \(\d[\d.]*ms\)$/gm)]
        .map((m) => m[1])
        .filter((name) => !suites.has(name));
      const skipped = [...output.matchAll(/^\s*﹣ (.+?) \(\d[\d.]*ms\) # (.+)$/gm)].map(
        (m) => `${m[1]} — ${m[2]}`,
      );
      // The slowest tests of the file, for the per-file timings: where a file's time goes.
      const slowest = [...output.matchAll(/^\s*[✔✖] (.+?) \((\d[\d.]*)ms\)$/gm)]
        .filter((m) => !suites.has(m[1]))
        .map((m) => [m[1], Math.round(Number(m[2]) / 100) / 10])
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5);
      resolve({
        code: code ?? 1,
        counts,
        slowest,
        failed: [...new Set(failed)],
        skipped,
        output,
        seconds: (Date.now() - started) / 1000,
      });
    });
  });
}

let grid;
const gridUrl = async () => {
  if (process.env.SWIFTBROWSE_TEST_GRID_URL) return process.env.SWIFTBROWSE_TEST_GRID_URL;
  // Slots for the browsers of several files at once (flows and logs each keep up to ten open): a
  // file queued behind another file's idle browsers would stall its lane. Idle costs memory only.
  grid ??= import('../dist/test/helpers/grid.js').then(({ startGrid }) => startGrid(8 * lanes));
  return (await grid).url;
};
const envOf = async (arm) =>
  arm === 'grid'
    ? { SWIFTBROWSE_TEST_BACKEND: 'grid', SWIFTBROWSE_TEST_GRID_URL: await gridUrl() }
    : arm === 'firefox'
      ? { SWIFTBROWSE_TEST_BACKEND: 'firefox' }
      : { SWIFTBROWSE_TEST_BACKEND: 'playwright' };

const results = [];
const flaky = [];
const say = (text) => process.stdout.write(`${text}\n`);

/** Runs a job, once more if it failed; a test that fails first and passes then is flaky. */
async function runJob(job) {
  const env = await envOf(job.arm);
  const first = await runOnce(job, env);
  let last = first;
  if (first.code !== 0) {
    say(`↻ [${job.arm}] ${job.name} failed (${first.failed.join('; ')}); running it once more`);
    last = await runOnce(job, env);
    if (last.code === 0)
      for (const test of first.failed)
        flaky.push({ arm: job.arm, file: job.name, test, first_output: tail(first.output) });
  }
  const c = last.counts;
  const mark = last.code === 0 ? '✔' : '✖';
  say(
    `${mark} [${job.arm}] ${job.name}: ${c.pass ?? 0} passed, ${c.fail ?? 0} failed, ${c.skipped ?? 0} skipped (${last.seconds.toFixed(0)} s${last === first ? '' : `, ${first.seconds.toFixed(0)} s before`}; load ${loadavg()[0].toFixed(1)})`,
  );
  for (const s of last.skipped) say(`    skipped: ${s}`);
  if (last.code !== 0) say(last.output.replace(/^/gm, `  [${job.arm}] `));
  results.push({ job, first, last });
  writeResults([]);
}

/** What a failed run said of its failures: the reporter's closing list, else its last lines. */
const tail = (text) => {
  const at = text.lastIndexOf('✖ failing tests:');
  return (at >= 0 ? text.slice(at) : text.split('\n').slice(-60).join('\n')).slice(0, 20_000);
};

/** The timings and flaky tests so far: written after every file, so a run cut short keeps them. */
function writeResults(arms) {
  mkdirSync('test-results', { recursive: true });
  const files = [...results]
    .sort((a, b) => b.first.seconds - a.first.seconds)
    .map((r) => [
      `${r.job.arm} ${r.job.name}`,
      {
        seconds: Math.round(r.first.seconds),
        attempts: r.last === r.first ? 1 : 2,
        slowest_tests: Object.fromEntries(r.first.slowest),
      },
    ]);
  const timings = {
    wall_seconds: Math.round((Date.now() - started) / 1000),
    lanes,
    under_load: load,
    mean_load: Number((loads.reduce((a, b) => a + b, 0) / (loads.length || 1)).toFixed(1)),
    arms,
    files: Object.fromEntries(files),
  };
  writeFileSync(timingsPath, JSON.stringify(timings, null, 2) + '\n');
  writeFileSync('test-results/flaky.json', JSON.stringify(flaky, null, 2) + '\n');
}

const load = flags['under-load'] === undefined ? 0 : Number(flags['under-load']);
if (!Number.isInteger(load) || load < 0) {
  process.stderr.write(`--under-load takes a number of busy workers; got ${flags['under-load']}\n`);
  process.exit(2);
}
// The bench's load (bench/busy-load.ts): one load, so a figure there and a run here compare.
const stopLoad = load ? (await import('../dist/bench/busy-load.js')).startBusyLoad(load) : () => {};
const loads = [];
const sampler = setInterval(() => loads.push(loadavg()[0]), 10_000);
if (load) say(`under load: ${load} busy Node workers on ${cpus().length} cores`);
say(
  `${jobs.length} jobs on ${lanes} lanes: ${Object.keys(armOn)
    .filter((a) => armOn[a] && jobs.some((j) => j.arm === a))
    .join(', ')}`,
);

const started = Date.now();
const queue = [...jobs];
try {
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let job = queue.shift(); job; job = queue.shift()) await runJob(job);
    }),
  );
} finally {
  clearInterval(sampler);
  stopLoad();
  if (grid) await (await grid).stop();
}

const arms = [...new Set(jobs.map((j) => j.arm))];
const summary = arms.map((arm) => {
  const mine = results.filter((r) => r.job.arm === arm);
  const sum = (key) => mine.reduce((n, r) => n + (r.last.counts[key] ?? 0), 0);
  return {
    arm,
    passed: sum('pass'),
    failed: sum('fail') + sum('cancelled'),
    skipped: sum('skipped'),
    files_failed: mine.filter((r) => r.last.code !== 0).map((r) => r.job.name),
    seconds: Math.round(
      mine.reduce((n, r) => n + r.first.seconds + (r.last === r.first ? 0 : r.last.seconds), 0),
    ),
  };
});
const wall = Math.round((Date.now() - started) / 1000);
const meanLoad = loads.length ? loads.reduce((a, b) => a + b, 0) / loads.length : loadavg()[0];
writeResults(summary);

say('');
for (const s of summary)
  say(
    `${s.arm}: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped (${s.seconds} s of files)${s.files_failed.length ? ` — failed: ${s.files_failed.join(', ')}` : ''}`,
  );
say(
  flaky.length
    ? `flaky: ${flaky.length} test(s) failed and then passed on a second run — fix each by design (test-results/flaky.json):\n${flaky.map((f) => `  [${f.arm}] ${f.file}: ${f.test}`).join('\n')}`
    : 'flaky: none',
);
say(`${wall} s on ${lanes} lanes, mean load ${meanLoad.toFixed(1)}; per file: ${timingsPath}`);
process.exit(summary.some((s) => s.failed > 0 || s.files_failed.length) ? 1 : 0);
