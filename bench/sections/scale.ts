// N sessions doing the same task at once: one SwiftBrowse server (HTTP, one browser per session)
// against N Playwright MCP processes (it serves one browser per process over stdio).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { Agent } from '../agents/agent.js';
import { PlaywrightMcpAgent } from '../agents/playwright-mcp.js';
import { SWIFTBROWSE_MAIN, SwiftBrowseAgent, cleanEnv } from '../agents/swiftbrowse.js';
import { memoryOf, samplePeak } from '../proc.js';
import { runTask } from '../run-tasks.js';
import { round } from '../stats.js';
import type { Task } from '../tasks.js';

export interface ScaleFigures {
  tool: string;
  sessions: number;
  wallMs: number;
  tasksPerMinute: number;
  peakRssMb: number;
  peakPssMb: number;
  pssPerSessionMb: number;
  failed: number;
  /** The distinct failures, shortened. */
  errors: string[];
}

export interface HttpStartup {
  /** Spawn of `swiftbrowse serve` to GET /health answering 200. */
  startToHealthyMs: number;
  /** MCP connect over HTTP plus the first goto (launches the session's browser). */
  firstBrowserReadyMs: number;
  idleServerPssMb: number;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function untilHealthy(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`swiftbrowse serve exited (${child.exitCode})`);
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function together(agents: Agent[], task: Task, base: string) {
  const t0 = performance.now();
  const runs = await Promise.all(agents.map((a) => runTask(a, task, base)));
  const errors = runs.flatMap((r) =>
    r.error ? [r.error.slice(0, 300)] : r.missed.map((m) => `missed ${m}`),
  );
  return {
    wallMs: performance.now() - t0,
    failed: runs.filter((r) => r.error || r.missed.length).length,
    errors: [...new Set(errors)],
  };
}

function figures(
  tool: string,
  n: number,
  wallMs: number,
  failed: number,
  peak: { rssMb: number; pssMb: number },
): Omit<ScaleFigures, 'errors'> {
  return {
    tool,
    sessions: n,
    wallMs: round(wallMs),
    tasksPerMinute: round(((n - failed) / wallMs) * 60_000, 1),
    peakRssMb: round(peak.rssMb),
    peakPssMb: round(peak.pssMb),
    pssPerSessionMb: round(peak.pssMb / n),
    failed,
  };
}

export async function measureScale(options: {
  base: string;
  task: Task;
  dataDir: string;
  workDir: string;
  swiftbrowseSessions: number[];
  playwrightProcesses: number[];
  log: (line: string) => void;
}): Promise<{ startup: HttpStartup; scale: ScaleFigures[] }> {
  const { base, task, log } = options;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [SWIFTBROWSE_MAIN, 'serve', '--port', String(port), '--data-dir', options.dataDir],
    {
      env: { ...cleanEnv(), MAX_SESSIONS: '64', LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    },
  );
  const out: ScaleFigures[] = [];
  try {
    await untilHealthy(url, child);
    const startToHealthyMs = performance.now() - t0;
    const serverTree = () => [{ pid: child.pid ?? 0, includeRoot: true }];
    const idleServerPssMb = round(memoryOf(serverTree()).pssMb);
    const first = new SwiftBrowseAgent({ tools: 'compact', httpBase: url, session: 'first' });
    const started = await first.start(`${base}/blank.html`);
    await first.run('close', {});
    await first.stop();
    const startup = {
      startToHealthyMs: round(startToHealthyMs),
      firstBrowserReadyMs: round(started.connectMs + started.firstNavigateMs),
      idleServerPssMb,
    };

    for (const n of options.swiftbrowseSessions) {
      const agents = Array.from(
        { length: n },
        (_, i) =>
          new SwiftBrowseAgent({ tools: 'compact', httpBase: url, session: `scale${n}-${i}` }),
      );
      await Promise.all(agents.map((a) => a.start(`${base}/blank.html`)));
      const sampler = samplePeak(serverTree);
      const { wallMs, failed, errors } = await together(agents, task, base);
      const peak = sampler.stop();
      out.push({ ...figures('swiftbrowse (1 server)', n, wallMs, failed, peak), errors });
      log(`  swiftbrowse ${n} sessions: ${Math.round(wallMs)} ms, ${failed} failed`);
      await Promise.all(agents.map(async (a) => (await a.run('close', {}), a.stop())));
    }
    for (const n of options.playwrightProcesses) {
      const agents = Array.from(
        { length: n },
        (_, i) => new PlaywrightMcpAgent(`${options.workDir}/scale${n}-${i}`),
      );
      await Promise.all(agents.map((a) => a.start(`${base}/blank.html`)));
      const sampler = samplePeak(() => agents.flatMap((a) => a.roots()));
      const { wallMs, failed, errors } = await together(agents, task, base);
      const peak = sampler.stop();
      out.push({ ...figures('playwright-mcp (N processes)', n, wallMs, failed, peak), errors });
      log(`  playwright-mcp ${n} processes: ${Math.round(wallMs)} ms, ${failed} failed`);
      await Promise.all(agents.map((a) => a.stop()));
    }
    return { startup, scale: out };
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
  }
}
