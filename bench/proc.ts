// Memory of process trees, read from /proc: RSS (what `ps` shows; shared pages counted in every
// process) and PSS (shared pages split between the processes that map them: sums honestly).
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

export interface Memory {
  rssMb: number;
  pssMb: number;
  processes: number;
}

function parentsByPid(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: fields follow the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // The process ended while we looked.
    }
  }
  return parents;
}

/** CPU time (user + system, ms) the processes in `pids` have used; one that ended counts 0. */
export function cpuMsOf(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, fields 14 and 15 of stat (11 and 12 after the command name).
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended while we looked.
    }
  }
  return ticks * (1000 / CLOCK_TICKS);
}

/** USER_HZ: Linux reports process CPU times in hundredths of a second on every common build. */
const CLOCK_TICKS = 100;

function kb(file: string, key: string): number {
  try {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(file, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Every pid in the trees under `roots` (a root itself only when asked). */
export function treePids(roots: { pid: number; includeRoot: boolean }[]): number[] {
  const parents = parentsByPid();
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const out: number[] = [];
  for (const root of roots) {
    if (root.includeRoot) out.push(root.pid);
    const stack = [...(children.get(root.pid) ?? [])];
    while (stack.length) {
      const pid = stack.pop()!;
      out.push(pid);
      stack.push(...(children.get(pid) ?? []));
    }
  }
  return out;
}

export function memoryOf(roots: { pid: number; includeRoot: boolean }[]): Memory {
  const pids = treePids(roots);
  let rss = 0;
  let pss = 0;
  for (const pid of pids) {
    rss += kb(`/proc/${pid}/status`, 'VmRSS');
    pss += kb(`/proc/${pid}/smaps_rollup`, 'Pss');
  }
  return { rssMb: rss / 1024, pssMb: pss / 1024, processes: pids.length };
}

/** Samples the trees every `everyMs` until stopped; answers the peaks. */
export function samplePeak(roots: () => { pid: number; includeRoot: boolean }[], everyMs = 250) {
  const peak: Memory = { rssMb: 0, pssMb: 0, processes: 0 };
  const sample = () => {
    const m = memoryOf(roots());
    peak.rssMb = Math.max(peak.rssMb, m.rssMb);
    peak.pssMb = Math.max(peak.pssMb, m.pssMb);
    peak.processes = Math.max(peak.processes, m.processes);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop(): Memory {
      clearInterval(timer);
      sample();
      return { ...peak };
    },
  };
}

/** A command's trimmed output for a report line, or "unknown" when it cannot run. */
export function quiet(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}
