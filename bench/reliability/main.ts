// npm run reliability: the fuzzer, the fault scenarios, the secret sweep and the load run, each
// check reported with its verdict and evidence; exits non-zero when any check fails. Only loopback
// is targeted; the suite stops by itself. Options: USAGE below.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VERSION } from '../../src/version.js';
import { startFixtureServer } from '../../test/helpers/fixture-server.js';
import { startGrid, type TestGrid } from '../../test/helpers/grid.js';
import { commandLine } from '../command-line.js';
import { Checks, killAllServers } from './common.js';
import { quiet } from '../proc.js';
import { runFaults } from './faults.js';
import { runFuzz, type FuzzFigures } from './fuzz.js';
import { serveHostile } from './hostile.js';
import { runLoad, type LoadFigures } from './load.js';
import { runSecretSweep } from './secrets.js';

const SECTIONS = ['fuzz', 'faults', 'secrets', 'load'] as const;

const USAGE = `
Usage: node dist/bench/reliability/main.js [options]   (npm run reliability)
  --seed N             the fuzzer's seed (default: from the clock; the report names it)
  --count N            most fuzzer calls (default 400, --short 40)
  --seconds N          length of the sustained load run (default 60, --short 15); the fuzzer
                       stops after four times that
  --only s,…           these sections only: ${SECTIONS.join(', ')}
  --backend B          playwright (default) or grid
  --short              the short run
  -h, --help           this text
`;

const { values } = commandLine(USAGE, {
  options: {
    seed: { type: 'string' },
    count: { type: 'string' },
    seconds: { type: 'string' },
    only: { type: 'string' },
    backend: { type: 'string', default: 'playwright' },
    short: { type: 'boolean', default: false },
  },
});
const short = values.short ?? false;
const seed = values.seed ? Number(values.seed) : Date.now() % 2 ** 31;
const count = Number(values.count ?? (short ? 40 : 400));
const seconds = Number(values.seconds ?? (short ? 15 : 60));
const backend = values.backend === 'grid' ? 'grid' : 'playwright';
const only = new Set((values.only ?? SECTIONS.join(',')).split(',').filter(Boolean));
for (const s of only)
  if (!(SECTIONS as readonly string[]).includes(s))
    throw new Error(`--only takes ${SECTIONS.join(', ')} (got "${s}")`);
if (![seed, count, seconds].every(Number.isFinite))
  throw new Error('--seed, --count and --seconds take numbers');

const log = (line: string) => process.stderr.write(`${line}\n`);
const checks = new Checks(log);
// The suite stops by itself: a section that hangs past this bound ends the run as failed.
const bound = short ? 12 * 60_000 : 30 * 60_000 + seconds * 6000;
const watchdog = setTimeout(async () => {
  log(`reliability: stopped after ${bound / 1000} s without finishing`);
  await killAllServers();
  console.log(
    `reliability: ${checks.all.filter((c) => c.verdict === 'pass').length} passed, ${checks.all.filter((c) => c.verdict === 'fail').length + 1} failed`,
  );
  process.exit(1);
}, bound);
watchdog.unref();
// Interrupted (Ctrl-C, a CI cancel): the servers close their browsers before the suite exits.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    void killAllServers().then(() => process.exit(130));
  });

const started = Date.now();
const fixture = await startFixtureServer();
const hostile = serveHostile(fixture);
let grid: TestGrid | undefined;
const figures: {
  fuzz?: FuzzFigures;
  load?: LoadFigures;
  secrets?: unknown;
  sectionSeconds: Record<string, number>;
} = {
  sectionSeconds: {},
};
log(
  `reliability: seed ${seed}, ${backend}${short ? ', short' : ''}, sections ${[...only].join(', ')}`,
);
try {
  if (backend === 'grid') {
    log('starting a Selenium Grid');
    grid = await startGrid(24);
  }
  const env: Record<string, string> = grid ? { GRID_URL: grid.url } : {};
  const timed = async (name: string, run: () => Promise<void>) => {
    if (!only.has(name)) return;
    log(`${name}`);
    const t0 = Date.now();
    try {
      await run();
    } catch (e) {
      checks.add(
        name,
        'the section ran to its end',
        false,
        (e as Error).stack?.slice(0, 600) ?? String(e),
      );
    }
    figures.sectionSeconds[name] = Math.round((Date.now() - t0) / 1000);
  };
  await timed('fuzz', async () => {
    figures.fuzz = await runFuzz({ hostile, checks, seed, count, seconds: seconds * 4, env, log });
  });
  await timed('faults', () => runFaults({ hostile, checks, backend, env, log }));
  await timed('secrets', async () => {
    figures.secrets = await runSecretSweep({ hostile, checks, seed, env, log });
  });
  await timed('load', async () => {
    figures.load = await runLoad({
      hostile,
      checks,
      seed,
      // CI's short run shares two cores with both test arms: it keeps the holes shut, and the
      // full run measures what 16 browsers at once cost.
      sessions: short ? 4 : 16,
      seconds,
      rounds: short ? 1 : 3,
      mcpInits: short ? 300 : 2000,
      env,
      log,
    });
  });
} finally {
  await grid?.stop();
  await fixture.close();
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const commit = quiet('git', ['rev-parse', '--short', 'HEAD']);
console.log(
  `\nSwiftBrowse ${VERSION} (${commit}) reliability, seed ${seed}, ${backend}, ${cpus().length} CPUs, load ${quiet('cat', ['/proc/loadavg'])}`,
);
for (const section of SECTIONS) {
  const rows = checks.all.filter((c) => c.section === section);
  if (!rows.length) continue;
  console.log(`\n## ${section} (${figures.sectionSeconds[section] ?? 0} s)\n`);
  console.log(table([['verdict', 'check'], ...rows.map((c) => [c.verdict.toUpperCase(), c.name])]));
  for (const c of rows.filter((r) => r.verdict !== 'pass' && r.evidence))
    console.log(`\n  ${c.verdict.toUpperCase()} ${c.name}\n      ${c.evidence}`);
}
if (figures.fuzz) {
  const f = figures.fuzz;
  console.log(
    `\nfuzz: ${f.calls} calls in ${f.seconds} s (seed ${f.seed}); by kind ${JSON.stringify(f.byKind)}; by status ${JSON.stringify(f.byStatus)}`,
  );
}
if (figures.load) {
  const l = figures.load;
  console.log(
    `\nload: ${l.sessions} sessions; script ${l.scriptOps} ops (${l.scriptFailed} failed); sustained ${l.sustainedSeconds} s, ${l.sustainedOps} ops (${l.sustainedFailed} failed)`,
  );
  console.log(
    `server RSS ${l.serverRssMb.before} MB before, ${l.serverRssMb.after} MB after, ${l.serverRssMb.afterIdle} MB after idle; tree peak ${l.treePeakRssMb} MB; orphan browsers ${l.orphanBrowsers}; MCP flood ${l.mcpFlood.requests} inits, ${l.mcpFlood.refused} refused, RSS ${l.mcpFlood.rssBeforeMb} → ${l.mcpFlood.rssAfterMb} MB\n`,
  );
  console.log(
    table([
      ['op', 'n', 'failed', 'p50 ms', 'p95 ms'],
      ...Object.entries(l.perOp).map(([name, o]) => [
        name,
        String(o.n),
        String(o.failed),
        String(o.p50Ms),
        String(o.p95Ms),
      ]),
    ]),
  );
}
const passed = checks.all.filter((c) => c.verdict === 'pass').length;
const failed = checks.all.filter((c) => c.verdict === 'fail').length;
const skipped = checks.all.filter((c) => c.verdict === 'skip').length;
const open = checks.all.filter((c) => c.verdict === 'open').length;
const dir = fileURLToPath(new URL('../../../bench/results/', import.meta.url));
mkdirSync(dir, { recursive: true });
const date = new Date(started).toISOString().replace(/[:.]/g, '-');
const file = join(dir, `reliability-${date}.json`);
writeFileSync(
  file,
  JSON.stringify(
    {
      meta: {
        date: new Date(started).toISOString(),
        commit,
        version: VERSION,
        seed,
        count,
        seconds,
        backend,
        short,
        sections: [...only],
      },
      checks: checks.all,
      figures,
      passed,
      failed,
      skipped,
      open,
    },
    null,
    2,
  ),
);
console.log(`\nresults: ${file}${skipped ? ` (${skipped} skipped)` : ''}`);
if (open)
  console.log(`${open} known failures owned by open issues (OPEN above); they fail nothing`);
console.log(`reliability: ${passed} passed, ${failed} failed`);
clearTimeout(watchdog);
process.exit(failed ? 1 : 0);
