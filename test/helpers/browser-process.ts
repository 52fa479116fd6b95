import { execFileSync } from 'node:child_process';

/**
 * Kills (SIGKILL) every Chromium this test process started, the way a crash or the OOM killer
 * would; returns how many browser processes were hit.
 */
export function killBrowsers(root = process.pid): number {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,comm='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, ppid, comm]) => ({ pid: Number(pid), ppid: Number(ppid), comm }));
  const mine = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const r of rows)
      if (!mine.has(r.pid) && mine.has(r.ppid)) {
        mine.add(r.pid);
        grew = true;
      }
  }
  const browsers = rows.filter((r) => mine.has(r.pid) && /chrom/i.test(r.comm));
  // Only the browser's main process: its children are renderers and helpers that die with it.
  const mains = browsers.filter((r) => !browsers.some((b) => b.pid === r.ppid));
  for (const r of mains) process.kill(r.pid, 'SIGKILL');
  return mains.length;
}
