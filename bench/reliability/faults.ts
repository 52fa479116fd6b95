// Fault scenarios, each judged by what a user would notice: the next op answers, within its time,
// with an honest kind, and the session recovers. Every kill hits this suite's own processes only.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGrid, type TestGrid } from '../../test/helpers/grid.js';
import { startRedis } from '../../test/helpers/redis.js';
import {
  brief,
  op,
  renderersUnder,
  resultOf,
  send,
  ServerChild,
  sleep,
  type Checks,
  type Reply,
} from './common.js';
import type { Hostile } from './hostile.js';

const MARGIN_MS = 2000;
const OP_MS = 5000;
const NAV_MS = 8000;
const INTERNAL = /Cannot read propert|is not a function|undefined \(reading|TypeError/;

/**
 * Whether the server answered within the op's time plus the margin, by its own clock when the
 * answer has one: at load 20 the client got a 9.9 s answer 1 s later, and that is the machine's
 * time, not SwiftBrowse's. An op's timeout does not count opening its browser (the answer says
 * how long that took).
 */
const within = (r: Reply, budget: number) => {
  if (r.failed) return false;
  const timing = resultOf(r)?.timing;
  return (timing?.duration_ms ?? r.ms) - (timing?.browser_open_ms ?? 0) <= budget + MARGIN_MS;
};
const ok = (r: Reply) => resultOf(r)?.ok === true;
const kindOf = (r: Reply) => resultOf(r)?.error?.kind;
const honest = (r: Reply, kinds: string[]) =>
  ok(r) || (kinds.includes(kindOf(r) ?? '') && !INTERNAL.test(resultOf(r)?.error?.message ?? ''));

/** The main process of each Chromium under the server (its parent is not a Chromium). */
function browserMains(server: ServerChild): number[] {
  const all = server.chromium();
  const pids = new Set(all.map((p) => p.pid));
  return all.filter((p) => !pids.has(p.ppid)).map((p) => p.pid);
}

function renderers(server: ServerChild): number[] {
  return renderersUnder(server.pid);
}

function kill(pids: number[]): void {
  for (const pid of pids)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
}

/** File names (screenshot, PDF, download) an answer says it saved. */
/** The files the answers say exist: their evidence entries and the `files` listing, not notes. */
function savedNamesIn(replies: Reply[]): string[] {
  const names = new Set<string>();
  for (const r of replies) {
    const body = r.json as
      { evidence?: { name: string }[]; data?: { files?: { name: string }[] } } | undefined;
    for (const e of body?.evidence ?? []) names.add(e.name);
    for (const f of body?.data?.files ?? []) names.add(f.name);
  }
  return [...names];
}

function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? filesUnder(join(dir, e.name)) : [e.name],
    );
  } catch {
    return [];
  }
}

async function browserKill(page: string, checks: Checks): Promise<void> {
  const server = await ServerChild.start();
  try {
    const first = await op(server.url, 'goto', { url: page }, 'fk');
    const mains = browserMains(server);
    kill(mains);
    await sleep(300);
    const next = await op(server.url, 'snapshot', {}, 'fk', 30_000);
    const again = await op(server.url, 'goto', { url: page }, 'fk', 30_000);
    const read = await op(server.url, 'snapshot', {}, 'fk', 30_000);
    checks.add(
      'faults',
      'browser kill: the next op answers in time as ok or backend, then the session recovers',
      ok(first) &&
        mains.length > 0 &&
        within(next, OP_MS) &&
        honest(next, ['backend']) &&
        within(again, NAV_MS * 2) &&
        ok(again) &&
        ok(read),
      `killed ${mains.length} browser(s); snapshot ${brief(next)}; goto ${brief(again)}; snapshot ${brief(read)}`,
    );
  } finally {
    await server.stop();
  }
}

async function rendererKill(page: string, checks: Checks): Promise<void> {
  const server = await ServerChild.start();
  try {
    const first = await op(server.url, 'goto', { url: page }, 'fr');
    const victims = renderers(server);
    kill(victims);
    await sleep(300);
    const next = await op(server.url, 'snapshot', {}, 'fr', 30_000);
    const again = await op(server.url, 'goto', { url: page }, 'fr', 30_000);
    const read = await op(server.url, 'snapshot', {}, 'fr', 30_000);
    const status = await op(server.url, 'status', {}, 'fr', 10_000);
    checks.add(
      'faults',
      'renderer kill: the next op answers in time as ok or backend (not invalid_argument), then the tab recovers',
      ok(first) &&
        victims.length > 0 &&
        within(next, OP_MS) &&
        honest(next, ['backend']) &&
        within(again, NAV_MS) &&
        ok(again) &&
        ok(read),
      `killed ${victims.length} renderer(s); snapshot ${brief(next)}; goto ${brief(again)}; snapshot ${brief(read)}; status ${brief(status)}`,
    );
  } finally {
    await server.stop();
  }
}

async function redisOutage(
  page: string,
  checks: Checks,
  env: Record<string, string>,
): Promise<void> {
  let redis = await startRedis();
  const port = Number(new URL(redis.url).port);
  const server = await ServerChild.start({ env: { ...env, REDIS_URL: redis.url } });
  try {
    const first = await op(server.url, 'goto', { url: page }, 'rd');
    const baseline = await op(server.url, 'snapshot', {}, 'rd');
    await redis.stop();
    const live = await op(server.url, 'snapshot', {}, 'rd', 30_000);
    const fresh = await op(server.url, 'goto', { url: page }, 'rd-new', 30_000);
    const ready = await send(server.url, '/ready', { timeoutMs: 10_000 });
    const freshMessage = resultOf(fresh)?.error?.message ?? '';
    checks.add(
      'faults',
      'Redis down: an op in a live session answers within its time, not 5 s later',
      ok(first) && within(live, OP_MS) && live.ms < baseline.ms + 2000 && honest(live, ['backend']),
      `snapshot before ${Math.round(baseline.ms)} ms; with Redis down ${brief(live)}`,
    );
    checks.add(
      'faults',
      'Redis down: a new session is ok, or refused naming Redis and its URL, in time',
      within(fresh, NAV_MS) &&
        (ok(fresh) || (/redis/i.test(freshMessage) && freshMessage.includes(`:${port}`))),
      `goto in a new session: ${brief(fresh)}`,
    );
    checks.add(
      'faults',
      'Redis down: /ready reports the store (503)',
      ready.status === 503 && /redis|store/i.test(ready.text),
      `/ready ${ready.status} ${ready.text.slice(0, 200)}`,
    );
    redis = await startRedis({ port });
    await sleep(2000);
    const back = await op(server.url, 'snapshot', {}, 'rd', 30_000);
    const newer = await op(server.url, 'goto', { url: page }, 'rd-back', 30_000);
    const readyBack = await send(server.url, '/ready', { timeoutMs: 10_000 });
    checks.add(
      'faults',
      'Redis back: live and new sessions work and /ready is 200 again',
      ok(back) && ok(newer) && readyBack.status === 200,
      `snapshot ${brief(back)}; new session goto ${brief(newer)}; /ready ${readyBack.status}`,
    );
  } finally {
    await server.stop();
    await redis.stop();
  }
}

async function gridOutage(page: string, checks: Checks, log: (l: string) => void): Promise<void> {
  log('  starting a Selenium Grid (slow)');
  let grid: TestGrid = await startGrid(4);
  const port = Number(new URL(grid.url).port);
  const server = await ServerChild.start({ env: { GRID_URL: grid.url } });
  try {
    const first = await op(server.url, 'goto', { url: page }, 'gk', 120_000);
    await grid.stop();
    const next = await op(server.url, 'snapshot', {}, 'gk', 60_000);
    const ready = await send(server.url, '/ready', { timeoutMs: 10_000 });
    checks.add(
      'faults',
      'Grid kill: the next op answers in time as backend naming the Grid; /ready is 503',
      ok(first) &&
        within(next, OP_MS) &&
        kindOf(next) === 'backend' &&
        /grid/i.test(resultOf(next)?.error?.message ?? '') &&
        ready.status === 503,
      `first goto ${brief(first)}; snapshot ${brief(next)}; /ready ${ready.status}`,
    );
    grid = await startGrid(4, port);
    const again = await op(server.url, 'goto', { url: page }, 'gk', 120_000);
    checks.add(
      'faults',
      'Grid back: the session reopens a browser and loads the page',
      ok(again),
      `goto ${brief(again)}`,
    );
  } finally {
    await server.stop();
    await grid.stop();
  }
}

async function disconnectMidQueue(
  hostile: Hostile,
  checks: Checks,
  env: Record<string, string>,
): Promise<void> {
  const server = await ServerChild.start({ env });
  try {
    const s = 'cq';
    await op(server.url, 'goto', { url: `${hostile.base}/rel/counter.html` }, s);
    hostile.resetClicks();
    const click = { target: { role: 'button', name: 'Count' } };
    const hold = op(server.url, 'wait_for', { ms: 3000 }, s, 20_000);
    await sleep(100);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 500);
    const abandoned = await op(server.url, 'click', click, s, 20_000, controller.signal);
    clearTimeout(timer);
    const held = await hold;
    await sleep(500);
    const resent = await op(server.url, 'click', click, s, 20_000);
    await sleep(1500);
    const clicks = hostile.clicks();
    checks.add(
      'faults',
      'client disconnect mid-queue: an abandoned queued click never runs (the resend is the one click)',
      ok(held) && ok(resent) && clicks === 1,
      `abandoned click: ${brief(abandoned)}; wait_for ${brief(held)}; resent click ${brief(resent)}; the page counted ${clicks} click(s)`,
    );
  } finally {
    await server.stop();
  }
}

/** Mounts a tmpfs at `dir` (root only); false when this machine will not. */
function mountTmpfs(dir: string, mode: 'ro' | 'rw'): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=64m,${mode}`, 'tmpfs', dir], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

function umount(dir: string): void {
  try {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  } catch {
    // Not mounted.
  }
}

async function readOnlyDisk(
  hostile: Hostile,
  checks: Checks,
  env: Record<string, string>,
): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'swiftbrowse-rel-ro-'));
  const startDir = join(root, 'start');
  const runDir = join(root, 'run');
  mkdirSync(startDir);
  mkdirSync(runDir);
  try {
    if (!mountTmpfs(startDir, 'ro')) {
      checks.add(
        'faults',
        'read-only DATA_DIR at start-up',
        'skip',
        'cannot mount a tmpfs here (needs root)',
      );
      checks.add(
        'faults',
        'read-only DATA_DIR at run time',
        'skip',
        'cannot mount a tmpfs here (needs root)',
      );
      return;
    }
    const refused = await ServerChild.start({ env, dataDir: startDir, expectExit: true });
    const exited = refused.exitCode !== null;
    const out = refused.output;
    await refused.stop();
    checks.add(
      'faults',
      'read-only DATA_DIR at start-up: refused naming DATA_DIR and the real cause (EROFS/EACCES, not ENOENT)',
      exited
        ? /DATA_DIR/.test(out) && /EROFS|EACCES|read-only/i.test(out) && !/ENOENT/.test(out)
        : true,
      exited
        ? `exited: ${out.trim().split('\n').slice(-3).join(' | ').slice(0, 400)}`
        : 'started (it may write nothing at start)',
    );

    mountTmpfs(runDir, 'rw');
    const server = await ServerChild.start({ env, dataDir: runDir });
    try {
      const s = 'ro';
      await op(server.url, 'goto', { url: `${hostile.base}/rel/download.html` }, s);
      execFileSync('mount', ['-o', 'remount,ro', runDir], { stdio: 'ignore' });
      const shot = await op(server.url, 'screenshot', {}, s, 20_000);
      const click = await op(
        server.url,
        'click',
        { target: { role: 'link', name: 'Get report' } },
        s,
        20_000,
      );
      await sleep(1000);
      const files = await op(server.url, 'files', {}, s, 20_000);
      const onDisk = new Set(filesUnder(runDir));
      const missing = savedNamesIn([shot, click, files]).filter((n) => !onDisk.has(n));
      checks.add(
        'faults',
        'read-only DATA_DIR at run time: nothing is reported saved that is not on disk',
        missing.length === 0 && within(shot, OP_MS) && within(click, OP_MS),
        `screenshot ${brief(shot)}; download click ${brief(click)}; files ${brief(files)}; named but not on disk: ${missing.join(', ') || 'none'}`,
      );
      checks.add(
        'faults',
        'read-only DATA_DIR at run time: the server stays healthy',
        await server.healthy(),
        '',
      );
    } finally {
      await server.stop();
    }
  } finally {
    umount(startDir);
    umount(runDir);
    rmSync(root, { recursive: true, force: true });
  }
}

/** One step of a hostile case: an op, or the caller's `DELETE /browser`. */
type Step = [op: string, args: unknown] | ['DELETE /browser'];

/** Hostile pages: each op answers within its time, honestly, and the session recovers. */
async function hostilePages(
  hostile: Hostile,
  checks: Checks,
  env: Record<string, string>,
): Promise<void> {
  // A layout outlasting LAYOUT_LIMIT is taken for stuck: 1 s here, so a page laying out for
  // seconds crosses it at the second op's deadline (the product waits 30 s).
  const server = await ServerChild.start({ env: { LAYOUT_LIMIT: '1s', ...env } });
  const b = hostile.base;
  const spin = { script: 'while (true) {}', timeout: 3000 };
  const cases: {
    name: string;
    url: string;
    steps?: Step[];
    budget: number;
    /** The error kinds an answer may have besides ok; any honest failure when not given. */
    kinds?: string[];
    open?: string;
  }[] = [
    {
      name: 'alert every 50 ms',
      url: `${b}/rel/alert-storm.html`,
      steps: [['snapshot', {}]],
      budget: OP_MS,
    },
    {
      name: 'alert, confirm and prompt every 10 ms',
      url: `${b}/rel/dialog-mix.html`,
      steps: [
        ['snapshot', {}],
        ['dialog', { action: 'dismiss' }],
        ['evaluate', { script: '1 + 1' }],
      ],
      budget: OP_MS,
    },
    {
      name: 'a loop of 100,000 alerts on load',
      url: `${b}/rel/alert-loop.html`,
      steps: [
        ['snapshot', {}],
        ['evaluate', { script: '1 + 1' }],
      ],
      budget: OP_MS,
    },
    {
      name: 'one click raising 50 alerts',
      url: `${b}/rel/click-alerts.html`,
      steps: [['click', { target: { role: 'button', name: 'Raise' } }]],
      budget: OP_MS,
    },
    {
      name: 'a click handler that never returns',
      url: `${b}/rel/loop-click.html`,
      steps: [['click', { target: { role: 'button', name: 'Freeze' } }]],
      budget: OP_MS,
    },
    {
      name: 'evaluate while(true) twice, then DELETE /browser',
      url: `${b}/rel/form.html`,
      steps: [['evaluate', spin], ['evaluate', spin], ['DELETE /browser']],
      budget: spin.timeout,
    },
    {
      name: 'a regex target that backtracks without end',
      url: `${b}/rel/xs.html`,
      steps: [['click', { target: { text: '/^(x+x+)+y$/' }, timeout: 3000 }]],
      budget: 3000,
      kinds: ['invalid_argument'],
    },
    {
      name: 'a layout that outlasts LAYOUT_LIMIT',
      url: `${b}/rel/rows.html`,
      // Each op lays the rows out anew (shown, then narrowed): a page that keeps laying out.
      steps: ['900px', '600px'].map((width) => [
        'evaluate',
        {
          script: `const rows = document.getElementById('rows'); rows.hidden = false; rows.style.width = '${width}'; document.body.offsetHeight`,
          timeout: 1000,
        },
      ]),
      budget: 1000,
    },
    {
      name: 'a 20,000-row DOM',
      url: `${b}/rel/huge.html`,
      steps: [['snapshot', {}]],
      budget: OP_MS,
    },
    { name: 'an HTTP redirect loop', url: `${b}/rel/redirect-loop`, budget: NAV_MS },
    {
      name: 'a script reload loop',
      url: `${b}/rel/js-redirect-loop.html`,
      steps: [['snapshot', {}]],
      budget: OP_MS,
      // Answered in time now; a goto away from the loop is still cancelled by its next reload.
      open: 'issue 17 follow-up: goto away from a page that reloads itself every 10 ms',
    },
    {
      name: 'a server that never finishes the page',
      url: `${b}/rel/hang`,
      budget: NAV_MS,
    },
  ];
  // The client waits 5 s past the op's time: enough to tell late from never.
  const take = (step: Step, s: string, budget: number) =>
    step[0] === 'DELETE /browser'
      ? send(server.url, '/browser', {
          method: 'DELETE',
          headers: { 'x-session-key': s },
          timeoutMs: 20_000,
        })
      : op(server.url, step[0], step[1], s, budget + MARGIN_MS + 5000);
  try {
    for (const [i, c] of cases.entries()) {
      const s = `fh${i}`;
      const go = await op(server.url, 'goto', { url: c.url }, s, NAV_MS + MARGIN_MS + 5000);
      const acted: Reply[] = [];
      for (const step of c.steps ?? []) acted.push(await take(step, s, c.budget));
      const recover = await op(server.url, 'goto', { url: `${b}/rel/form.html` }, s, 30_000);
      const read = await op(server.url, 'snapshot', {}, s, 30_000);
      const inTime = within(go, NAV_MS) && acted.every((r) => within(r, c.budget));
      const clean = [go, ...acted].every(
        (r) =>
          !r.failed &&
          !INTERNAL.test(resultOf(r)?.error?.message ?? '') &&
          (!c.kinds || r === go || honest(r, c.kinds)),
      );
      const said = (c.steps ?? []).map((step, j) => `; ${step[0]} ${brief(acted[j]!)}`).join('');
      checks.add(
        'faults',
        `hostile page, ${c.name}: answered in time without internal errors, and the session recovers`,
        inTime && clean && ok(recover) && ok(read),
        `goto ${brief(go)}${said}; recovery goto ${brief(recover)}`,
        c.open,
      );
      await op(server.url, 'close', {}, s, 20_000);
    }
  } finally {
    await server.stop();
  }
}

export async function runFaults(options: {
  hostile: Hostile;
  checks: Checks;
  backend: 'playwright' | 'grid';
  env: Record<string, string>;
  log: (line: string) => void;
}): Promise<void> {
  const { hostile, checks, log, env } = options;
  const page = `${hostile.base}/rel/form.html`;
  if (options.backend === 'playwright') {
    log('  browser kill');
    await browserKill(page, checks);
    log('  renderer kill');
    await rendererKill(page, checks);
    checks.add('faults', 'Grid kill and return', 'skip', 'runs with --backend grid');
  } else {
    // A Grid's browsers are the node's children, not the server's: the Grid kill stands for them.
    checks.add(
      'faults',
      'browser and renderer kill',
      'skip',
      'local backend only (--backend playwright)',
    );
    await gridOutage(page, checks, log);
  }
  log('  Redis kill and return');
  await redisOutage(page, checks, env);
  log('  client disconnect mid-queue');
  await disconnectMidQueue(hostile, checks, env);
  log('  read-only disk');
  await readOnlyDisk(hostile, checks, env);
  log('  hostile pages');
  await hostilePages(hostile, checks, env);
}
