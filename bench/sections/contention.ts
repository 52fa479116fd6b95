// N sessions typing and clicking at once beside a CPU load of the bench's own: one SwiftBrowse
// server (HTTP, the default diff) against N raw playwright-core contexts doing the same input,
// in turns (raw, SwiftBrowse, raw, SwiftBrowse…), so both meet the same machine. What it says
// (issue #33): the wall-time ratio, the failures of each, and how many clicks the page counted
// that SwiftBrowse answered as not done.
import { spawn } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, findBrowser } from '../../src/drivers/find-browser.js';
import type { FixtureServer } from '../../test/helpers/fixture-server.js';
import { SWIFTBROWSE_MAIN, cleanEnv } from '../agents/swiftbrowse.js';
import { startBusyLoad } from '../busy-load.js';
import { renderersUnder } from '../reliability/common.js';
import { median, round } from '../stats.js';
import { freePort, untilHealthy } from './scale.js';

const COUNTER_PAGE = `<!doctype html><title>Counter</title><main>
<label>Note <input id="note"></label><button id="count">Count</button>
<p id="said">Clicked 0 times</p></main><script>
let n = 0;
document.getElementById('count').onclick = () => {
  n++; document.getElementById('said').textContent = 'Clicked ' + n + ' times';
};
</script>`;

/** Each op's own time: the one a caller gives both tools. */
const OP_TIMEOUT_MS = 5000;

export interface ContentionArm {
  wallMs: number;
  ops: number;
  failed: number;
  clickP50Ms: number;
  /** Clicks the page counted beyond those answered ok: delivered input answered as not done. */
  deliveredButFailed: number;
  /** The distinct failures, shortened. */
  errors: string[];
  /** Page renderers the server's browsers still hold once every session was closed (leaked). */
  renderersLeft?: number;
}

export interface ContentionFigures {
  sessions: number;
  rounds: number;
  busyWorkers: number;
  pairs: {
    swiftbrowse: ContentionArm;
    raw: ContentionArm;
    wallRatio: number;
    /** Another build (--baseline), run after the two in the same pair. */
    baseline?: ContentionArm;
  }[];
  /** Over all pairs: SwiftBrowse's wall time over raw's, and the failures of each. */
  wallRatio: number;
  failed: { swiftbrowse: number; raw: number };
  deliveredButFailed: number;
}

interface SessionRun {
  failed: number;
  okClicks: number;
  counted: number;
  clickMs: number[];
  errors: string[];
}

function armOf(runs: SessionRun[], wallMs: number, rounds: number): ContentionArm {
  return {
    wallMs: round(wallMs),
    ops: runs.length * (1 + 2 * rounds),
    failed: runs.reduce((n, r) => n + r.failed, 0),
    clickP50Ms: round(median(runs.flatMap((r) => r.clickMs))),
    deliveredButFailed: runs.reduce((n, r) => n + Math.max(0, r.counted - r.okClicks), 0),
    errors: [...new Set(runs.flatMap((r) => r.errors))].slice(0, 8),
  };
}

/** One SwiftBrowse session: goto, then rounds of fill and click, each answer read. */
async function swiftbrowseSession(url: string, page: string, session: string, rounds: number) {
  const run: SessionRun = { failed: 0, okClicks: 0, counted: 0, clickMs: [], errors: [] };
  const op = async (name: string, args: Record<string, unknown>) => {
    const response = await fetch(`${url}/browser/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-key': session },
      body: JSON.stringify({ ...args, timeout: OP_TIMEOUT_MS }),
    });
    const body = (await response.json()) as {
      ok: boolean;
      error?: { kind: string; message: string };
      data?: { result?: unknown };
    };
    if (!body.ok) {
      run.failed++;
      run.errors.push(`${name}: ${body.error?.kind}: ${body.error?.message.slice(0, 160)}`);
    }
    return body;
  };
  await op('goto', { url: page });
  for (let i = 0; i < rounds; i++) {
    await op('fill', { target: { label: 'Note' }, value: `round ${i}` });
    const t = performance.now();
    if ((await op('click', { target: { role: 'button', name: 'Count' } })).ok) run.okClicks++;
    run.clickMs.push(performance.now() - t);
  }
  const read = await fetch(`${url}/browser/evaluate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-session-key': session },
    body: JSON.stringify({ script: 'n' }),
  });
  run.counted = Number(((await read.json()) as { data?: { result?: unknown } }).data?.result ?? 0);
  await fetch(`${url}/browser`, { method: 'DELETE', headers: { 'x-session-key': session } });
  return run;
}

/** The same input on raw playwright-core: key by key into the field, a click on the button. */
async function rawSession(browser: Browser, page: string, rounds: number) {
  const run: SessionRun = { failed: 0, okClicks: 0, counted: 0, clickMs: [], errors: [] };
  const context = await browser.newContext();
  const tab = await context.newPage();
  const step = async (what: string, action: () => Promise<unknown>) => {
    try {
      await action();
      return true;
    } catch (e) {
      run.failed++;
      run.errors.push(
        `${what}: ${String((e as Error).message)
          .split('\n')[0]
          .slice(0, 160)}`,
      );
      return false;
    }
  };
  await step('goto', () => tab.goto(page, { timeout: OP_TIMEOUT_MS }));
  const note = tab.getByLabel('Note');
  for (let i = 0; i < rounds; i++) {
    await step('fill', async () => {
      await note.clear({ timeout: OP_TIMEOUT_MS });
      await note.pressSequentially(`round ${i}`, { timeout: OP_TIMEOUT_MS });
    });
    const t = performance.now();
    const clicked = () =>
      tab.getByRole('button', { name: 'Count' }).click({ timeout: OP_TIMEOUT_MS });
    if (await step('click', clicked)) run.okClicks++;
    run.clickMs.push(performance.now() - t);
  }
  run.counted = Number(await tab.evaluate('n').catch(() => 0));
  await context.close();
  return run;
}

/** Renderers under a server, given up to 5 s to go after its sessions closed. */
async function renderersLeft(pid: number): Promise<number> {
  const count = () => renderersUnder(pid).length;
  for (let waited = 0; waited < 5000 && count() > 0; waited += 250)
    await new Promise((r) => setTimeout(r, 250));
  return count();
}

/** `swiftbrowse serve` of a build on a free port, healthy. */
async function startServer(main: string, dataDir: string) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    [main, 'serve', '--port', String(port), '--data-dir', dataDir],
    {
      env: { ...cleanEnv(), MAX_SESSIONS: '64', LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    },
  );
  await untilHealthy(url, child);
  return {
    url,
    pid: child.pid!,
    // A server still shutting down its browsers after 10 s is killed: the figures are taken.
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

export async function measureContention(options: {
  server: FixtureServer;
  dataDir: string;
  sessions: number;
  rounds: number;
  pairs: number;
  busyWorkers: number;
  /** Another build's dist/src/surfaces/cli/main.js: each pair runs it too, after the others. */
  baseline?: string;
  log: (line: string) => void;
}): Promise<ContentionFigures> {
  const { server, sessions, rounds, log } = options;
  server.setContent('/contention.html', COUNTER_PAGE);
  const page = `${server.PREFIX}/contention.html`;
  const servers = [await startServer(SWIFTBROWSE_MAIN, `${options.dataDir}-this`)];
  if (options.baseline)
    servers.push(await startServer(options.baseline, `${options.dataDir}-baseline`));
  const browser = await chromium.launch({ executablePath: findBrowser(), args: CHROMIUM_ARGS });
  const stopLoad = startBusyLoad(options.busyWorkers);
  const pairs: ContentionFigures['pairs'] = [];
  try {
    for (let p = 0; p < options.pairs; p++) {
      let t = performance.now();
      const rawRuns = await Promise.all(
        Array.from({ length: sessions }, () => rawSession(browser, page, rounds)),
      );
      const raw = armOf(rawRuns, performance.now() - t, rounds);
      log(`  raw playwright-core ${sessions} contexts: ${raw.wallMs} ms, ${raw.failed} failed`);
      let swiftbrowse: ContentionArm | undefined;
      let baseline: ContentionArm | undefined;
      for (const [i, sb] of servers.entries()) {
        t = performance.now();
        const runs = await Promise.all(
          Array.from({ length: sessions }, (_, j) =>
            swiftbrowseSession(sb.url, page, `contention${p}-${j}`, rounds),
          ),
        );
        const arm = armOf(runs, performance.now() - t, rounds);
        arm.renderersLeft = await renderersLeft(sb.pid);
        log(
          `  swiftbrowse${i ? ' (baseline)' : ''} ${sessions} sessions: ${arm.wallMs} ms, ${arm.failed} failed, ${arm.deliveredButFailed} delivered clicks answered as failed, ${arm.renderersLeft} renderers left after closing`,
        );
        if (i) baseline = arm;
        else swiftbrowse = arm;
      }
      pairs.push({
        swiftbrowse: swiftbrowse!,
        raw,
        wallRatio: round(swiftbrowse!.wallMs / raw.wallMs, 2),
        ...(baseline ? { baseline } : {}),
      });
    }
  } finally {
    stopLoad();
    await browser.close();
    await Promise.all(servers.map((sb) => sb.stop()));
  }
  const total = (arm: 'swiftbrowse' | 'raw', key: 'wallMs' | 'failed' | 'deliveredButFailed') =>
    pairs.reduce((n, pair) => n + pair[arm][key], 0);
  return {
    sessions,
    rounds,
    busyWorkers: options.busyWorkers,
    pairs,
    wallRatio: round(total('swiftbrowse', 'wallMs') / total('raw', 'wallMs'), 2),
    failed: { swiftbrowse: total('swiftbrowse', 'failed'), raw: total('raw', 'failed') },
    deliveredButFailed: total('swiftbrowse', 'deliveredButFailed'),
  };
}
