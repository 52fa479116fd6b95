// Runs every compiled test file with Node's test runner (Node 20 has no --test globs).
// The e2e files run on three arms: the local Playwright backend and, in parallel, a real Selenium
// Grid (SWIFTBROWSE_TEST_BACKEND=grid); a local Firefox over WebDriver BiDi
// (SWIFTBROWSE_TEST_BACKEND=firefox) takes half its files after each. Each arm prints how many
// tests it skipped.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? testFiles(join(dir, e.name))
      : e.name.endsWith('.test.js')
        ? [join(dir, e.name)]
        : [],
  );
}

/** Runs node --test on files; resolves with the exit code and the summary counts. */
function run(name, files, env) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(
      process.execPath,
      // A file that hangs fails after 20 minutes (the slowest takes under 5 under CI load), and
      // a file whose tests are done exits even if a handle stays open: either would otherwise
      // hold the whole run until CI's own limit, with no word of which file it was.
      // One file at a time per arm (the two arms still run side by side): on 2 cores four files
      // of browsers at once put the load at 15-17, and time-sensitive cases failed by load alone.
      [
        '--test',
        '--test-concurrency=1',
        '--test-reporter=spec',
        `--test-timeout=${20 * 60_000}`,
        '--test-force-exit',
        ...files,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } },
    );
    const counts = {};
    let tail = '';
    child.stdout.on('data', (chunk) => {
      const text = chunk.toString();
      // Two arms share the terminal: prefix the grid arm's lines so they can be told apart.
      process.stdout.write(name === 'playwright' ? text : text.replace(/^(?=.)/gm, `[${name}] `));
      tail = (tail + text).slice(-2000);
      for (const m of text.matchAll(/^ℹ (tests|pass|fail|skipped|cancelled) (\d+)/gm))
        counts[m[1]] = Number(m[2]);
    });
    child.on('close', (code) =>
      resolve({ name, code: code ?? 1, counts, seconds: (Date.now() - started) / 1000, tail }),
    );
  });
}

const only = process.argv.slice(2);
const all = only.length ? only : testFiles('dist/test').sort();
// Files the grid arm does not run yet, each with why; the allow-list for whole files.
const NOT_ON_GRID = {
  'bench-smoke.test.js': 'measures the local backend against Playwright MCP',
  'reliability-smoke.test.js':
    'kills its own browsers and renderers, which are children of the server only on the local backend',
};
const isE2e = (f) => f.includes(join('test', 'e2e'));
const e2e = all.filter((f) => isE2e(f) && !(f.split('/').pop() in NOT_ON_GRID));
const held = all.filter((f) => isE2e(f) && f.split('/').pop() in NOT_ON_GRID);
if (held.length && process.env.SWIFTBROWSE_TEST_GRID !== 'off')
  for (const f of held)
    process.stdout.write(
      `grid arm skips ${f.split('/').pop()}: ${NOT_ON_GRID[f.split('/').pop()]}\n`,
    );
// The firefox arm runs the files that test what a browser does (reading, input, frames, dialogs,
// downloads, settling, time bounds, crashes); the rest test a server surface (HTTP, MCP, CLI,
// flows, admin, restarts) over the same ops, hold the same on any browser, and run on the other
// two arms. A local Firefox is a process per session (about 2 s to open), so the whole suite on a
// third arm would take CI past its 45 minutes.
const ON_FIREFOX = new Set(
  [
    'basics',
    'console-network',
    'faults',
    'files',
    'frames',
    'hit-test',
    'huge-pages',
    'interact',
    'log-frames-secret',
    'logs',
    'one-moment',
    'pages',
    'pointer',
    'profiles',
    'reading-real-pages',
    'reading',
    'secrets',
    'sessions',
    'time-bounds',
    'typing',
  ].map((name) => `${name}.test.js`),
);
const firefoxFiles = all.filter((f) => isE2e(f) && ON_FIREFOX.has(f.split('/').pop()));
const gridOnly = process.env.SWIFTBROWSE_TEST_BACKEND === 'grid';
const firefoxOn =
  !gridOnly &&
  !process.env.SWIFTBROWSE_TEST_BACKEND &&
  process.env.SWIFTBROWSE_TEST_FIREFOX !== 'off' &&
  firefoxFiles.length > 0;
if (firefoxOn)
  process.stdout.write(
    `firefox arm runs ${firefoxFiles.length} of ${e2e.length + held.length} e2e files (the browser-behaviour ones; the others test server surfaces)\n`,
  );
const gridOn =
  e2e.length > 0 &&
  !(gridOnly && process.env.SWIFTBROWSE_TEST_GRID_URL) &&
  (gridOnly || process.env.SWIFTBROWSE_TEST_GRID !== 'off');
// Two lanes, so no more than two arms load the machine at once: the firefox files follow the
// playwright arm and the grid arm, half after each. One lane of all three took 2680 s in CI
// (playwright 1567 s, then firefox 1113 s) while the grid lane was done at 1539 s.
const firefoxHalves = gridOn
  ? [firefoxFiles.filter((_, i) => i % 2 === 0), firefoxFiles.filter((_, i) => i % 2 === 1)]
  : [firefoxFiles, []];
const firefoxAfter = async (files) =>
  firefoxOn && files.length
    ? [await run('firefox', files, { SWIFTBROWSE_TEST_BACKEND: 'firefox' })]
    : [];
const arms = gridOnly
  ? []
  : [(async () => [await run('playwright', all, {}), ...(await firefoxAfter(firefoxHalves[0]))])()];
// The grid arm: the same e2e files through one Grid started for the whole arm.
if (gridOnly && process.env.SWIFTBROWSE_TEST_GRID_URL) {
  arms.push(run('grid', e2e, {}).then((r) => [r]));
} else if (gridOn) {
  arms.push(
    (async () => {
      const { startGrid } = await import('../dist/test/helpers/grid.js');
      // Slots for the browsers of two files at once (flows and logs each keep up to ten open): a
      // file queued behind another file's idle browsers would stall the arm. Idle costs memory only.
      const grid = await startGrid(24);
      let result;
      try {
        result = await run('grid', e2e, {
          SWIFTBROWSE_TEST_BACKEND: 'grid',
          SWIFTBROWSE_TEST_GRID_URL: grid.url,
        });
      } finally {
        await grid.stop();
      }
      return [result, ...(await firefoxAfter(firefoxHalves[1]))];
    })(),
  );
}
/** The runs of one arm as one: its halves' counts and seconds added up. */
function merged(runs) {
  const counts = {};
  for (const r of runs)
    for (const [k, v] of Object.entries(r.counts)) counts[k] = (counts[k] ?? 0) + v;
  return {
    name: runs[0].name,
    code: runs.find((r) => r.code !== 0)?.code ?? 0,
    counts,
    seconds: runs.reduce((total, r) => total + r.seconds, 0),
  };
}
const runs = (await Promise.all(arms)).flat();
const results = [...new Set(runs.map((r) => r.name))].map((name) =>
  merged(runs.filter((r) => r.name === name)),
);
for (const r of results)
  process.stdout.write(
    `${r.name}: ${r.counts.pass ?? 0} passed, ${r.counts.fail ?? 0} failed, ${r.counts.skipped ?? 0} skipped (${r.counts.tests ?? 0} tests, ${r.seconds.toFixed(0)} s)\n`,
  );
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
