// npm run bench: the tasks through SwiftBrowse MCP (full, compact), Playwright MCP and raw
// playwright-core, then start-up, per-op overhead, the text-track walk, scale, contention and
// flows.
// Prints the table and writes bench/results/<time>-<commit>.json. Options: USAGE below.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBrowser } from '../src/drivers/find-browser.js';
import { VERSION } from '../src/version.js';
import { startFixtureServer } from '../test/helpers/fixture-server.js';
import type { Agent } from './agents/agent.js';
import { PLAYWRIGHT_MCP_VERSION, PlaywrightMcpAgent } from './agents/playwright-mcp.js';
import { RawAgent } from './agents/raw.js';
import { SwiftBrowseAgent } from './agents/swiftbrowse.js';
import { serveApps } from './apps.js';
import { commandLine } from './command-line.js';
import { quiet } from './proc.js';
import { render, type Results } from './report.js';
import { measureContention } from './sections/contention.js';
import { measureFlow } from './sections/flow.js';
import { measureOverhead } from './sections/overhead.js';
import { measureScale } from './sections/scale.js';
import { runAgent } from './sections/tasks.js';
import { TASKS } from './tasks.js';

const USAGE = `
Usage: node dist/bench/main.js [options]   (npm run bench)
  --reps N             repetitions of each task (default 3)
  --quick              one repetition
  --tasks a,b          these tasks only
  --skip s,…           leave out sections: scale, contention, overhead, flow, walk (the
                       overhead section's text-track walk)
  --only s,…           these sections alone, without the tasks: overhead, scale, contention,
                       flow
  --contention N       sessions of the contention section (default 16, --quick 8): each types
                       and clicks 10 times beside 6 busy workers, against raw playwright-core
  --sessions 16,…      the scale section runs only SwiftBrowse, with these session counts
  --same-session       one SwiftBrowse session for every task instead of a fresh one per task
  --iterations N       rounds of the overhead section (default 30)
  --baseline PATH      another build's dist/src/surfaces/cli/main.js: the overhead section runs it too,
                       and the contention section
  -h, --help           this text
`;

const { values } = commandLine(USAGE, {
  options: {
    reps: { type: 'string', default: '3' },
    quick: { type: 'boolean', default: false },
    tasks: { type: 'string' },
    skip: { type: 'string', default: '' },
    only: { type: 'string' },
    sessions: { type: 'string' },
    contention: { type: 'string' },
    'same-session': { type: 'boolean', default: false },
    iterations: { type: 'string' },
    baseline: { type: 'string' },
  },
});
const quick = values.quick ?? false;
const reps = quick ? 1 : Number(values.reps);
const skip = new Set((values.skip ?? '').split(',').filter(Boolean));
// --sessions 16: the scale section runs SwiftBrowse at these counts alone.
const sessions = values.sessions?.split(',').map(Number);
const only = values.only ? new Set(values.only.split(',').filter(Boolean)) : undefined;
if (only)
  for (const section of ['tasks', 'overhead', 'scale', 'contention', 'flow'])
    if (!only.has(section)) skip.add(section);
const tasks = values.tasks ? TASKS.filter((t) => values.tasks!.split(',').includes(t.name)) : TASKS;
const log = (line: string) => process.stderr.write(`${line}\n`);

const work = mkdtempSync(join(tmpdir(), 'swiftbrowse-bench-'));
const server = await startFixtureServer();
serveApps(server);
const base = server.PREFIX;
const loadBefore = quiet('cat', ['/proc/loadavg']);
const results: Results = {
  meta: {
    date: new Date().toISOString(),
    commit: quiet('git', ['rev-parse', '--short', 'HEAD']),
    swiftbrowse: VERSION,
    playwrightMcp: PLAYWRIGHT_MCP_VERSION,
    chromium: quiet(findBrowser() ?? 'chromium', ['--version']),
    node: process.version,
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? '?'}`,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    loadBefore,
    reps,
    sameSession: String(values['same-session'] ?? false),
    tokens: 'characters / 4',
  },
  agents: [],
};

try {
  const agents: Agent[] = [
    new SwiftBrowseAgent({ tools: 'full', env: { DATA_DIR: join(work, 'sb-full') } }),
    new SwiftBrowseAgent({ tools: 'compact', env: { DATA_DIR: join(work, 'sb-compact') } }),
    new PlaywrightMcpAgent(join(work, 'playwright-mcp')),
    new RawAgent(),
  ];
  // --only without tasks, or --tasks none (no task matches), runs only the sections below.
  for (const agent of skip.has('tasks') || !tasks.length ? [] : agents) {
    log(`tasks: ${agent.name}`);
    results.agents.push(
      await runAgent(agent, tasks, base, reps, log, values['same-session'] ?? false),
    );
  }
  if (!skip.has('overhead')) {
    log('overhead and text-track walk');
    Object.assign(
      results,
      await measureOverhead(
        server,
        join(work, 'sb-overhead'),
        values.iterations ? Number(values.iterations) : quick ? 10 : 30,
        !skip.has('walk'),
        values.baseline,
      ),
    );
  }
  if (!skip.has('scale')) {
    log('start-up and scale');
    const scaled = await measureScale({
      base,
      task: TASKS.find((t) => t.name === 'checkout')!,
      dataDir: join(work, 'sb-serve'),
      workDir: join(work, 'playwright-scale'),
      swiftbrowseSessions: sessions ?? (quick ? [1, 4] : [1, 4, 16]),
      playwrightProcesses: sessions ? [] : quick ? [1] : [1, 4],
      log,
    });
    results.httpStartup = scaled.startup;
    results.scale = scaled.scale;
  }
  if (!skip.has('contention')) {
    log('contention (beside a CPU load of its own)');
    results.contention = await measureContention({
      server,
      dataDir: join(work, 'sb-contention'),
      sessions: values.contention ? Number(values.contention) : quick ? 8 : 16,
      rounds: 10,
      pairs: quick ? 1 : 2,
      busyWorkers: 6,
      baseline: values.baseline,
      log,
    });
  }
  if (!skip.has('flow')) {
    log('flow vs separate calls');
    results.flow = await measureFlow(base, join(work, 'sb-flow'));
  }
} finally {
  await server.close();
  rmSync(work, { recursive: true, force: true });
}
results.meta.loadAfter = quiet('cat', ['/proc/loadavg']);

const table = render(results);
console.log(
  `SwiftBrowse ${results.meta.swiftbrowse} (${results.meta.commit}) vs Playwright MCP ${results.meta.playwrightMcp}, ${results.meta.chromium}, Node ${results.meta.node}, ${results.meta.cpus}, load ${loadBefore}\n`,
);
console.log(table);
const dir = fileURLToPath(new URL('../../bench/results/', import.meta.url));
mkdirSync(dir, { recursive: true });
const file = join(
  dir,
  `${String(results.meta.date).replace(/[:.]/g, '-')}-${results.meta.commit}.json`,
);
writeFileSync(file, JSON.stringify(results, null, 2));
writeFileSync(join(dir, 'latest.json'), JSON.stringify(results, null, 2));
console.log(`\nresults: ${file}`);
