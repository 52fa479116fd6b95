import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The `roots` and every process below them in `ps` rows. */
function withDescendants(rows: { pid: number; ppid: number }[], roots: number[]): Set<number> {
  const mine = new Set(roots);
  for (let grew = true; grew;) {
    grew = false;
    for (const r of rows)
      if (!mine.has(r.pid) && mine.has(r.ppid)) {
        mine.add(r.pid);
        grew = true;
      }
  }
  return mine;
}

/**
 * Kills (SIGKILL) every Chromium or Firefox this test process started, the way a crash or the OOM killer
 * would; returns how many browser processes were hit.
 */
export function killBrowsers(root = process.pid): number {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,comm='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, ppid, comm]) => ({ pid: Number(pid), ppid: Number(ppid), comm }));
  const mine = withDescendants(rows, [root]);
  const browsers = rows.filter((r) => mine.has(r.pid) && /chrom|firefox/i.test(r.comm));
  // Only the browser's main process: its children are renderers and helpers that die with it.
  const mains = browsers.filter((r) => !browsers.some((b) => b.pid === r.ppid));
  for (const r of mains) process.kill(r.pid, 'SIGKILL');
  return mains.length;
}

/**
 * Kills (SIGKILL) the renderer of a page running a dedicated worker, in this test's own browsers
 * only: those this process started, or the one whose command line carries `marker` (a Grid node's
 * Chromium, started by chromedriver, passed the marker through goog:chromeOptions.args). The
 * worker is what tells the page's renderer from the others (a spare one, the BiDi mapper's tab):
 * Chromium names its thread "DedicatedWorker thread". Returns how many renderers were hit.
 */
export function killWorkerRenderers(marker?: string): number {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m) => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
  const mine = withDescendants(
    rows,
    rows
      .filter((r) => r.pid === process.pid || (marker !== undefined && r.args.includes(marker)))
      .map((r) => r.pid),
  );
  const renderers = rows.filter(
    (r) => mine.has(r.pid) && r.args.includes('--type=renderer') && runsWorker(r.pid),
  );
  for (const r of renderers) process.kill(r.pid, 'SIGKILL');
  return renderers.length;
}

function runsWorker(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).some((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').startsWith('DedicatedWorker'),
    );
  } catch {
    return false; // gone meanwhile
  }
}
