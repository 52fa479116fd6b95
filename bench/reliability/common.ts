// What every section of the reliability suite shares: the verdict record, a bounded HTTP client
// (node:http, so a Host header or a raw body is sent as written), a seeded random source and a
// SwiftBrowse server run as a child process (`serve`), so that a kill or an RSS read is real.
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SWIFTBROWSE_MAIN, cleanEnv } from '../agents/swiftbrowse.js';
import { memoryOf, treePids } from '../proc.js';
import { freePort } from '../../test/helpers/ports.js';

/** `open`: a known failure an open issue owns; shown with every run, not counted as a new failure. */
export type Verdict = 'pass' | 'fail' | 'skip' | 'open';

export interface Check {
  section: string;
  name: string;
  verdict: Verdict;
  /** What was observed: the figures, or the reproducing call and its answer. */
  evidence: string;
}

/** Collects the verdicts of one run, in order. */
export class Checks {
  readonly all: Check[] = [];
  constructor(private readonly log: (line: string) => void) {}

  /** `open` names the issue that owns a known failure; a check that passes drops it by itself. */
  add(
    section: string,
    name: string,
    passed: boolean | 'skip',
    evidence: string,
    open?: string,
  ): void {
    const verdict: Verdict = passed === 'skip' ? 'skip' : passed ? 'pass' : open ? 'open' : 'fail';
    const said = verdict === 'open' ? `${evidence} (open: ${open})` : evidence;
    this.all.push({ section, name, verdict, evidence: said });
    this.log(`  ${verdict.toUpperCase().padEnd(4)} ${section}: ${name}`);
  }
}

export interface Reply {
  status: number;
  /** The body as text; '' when the request did not complete. */
  text: string;
  /** The parsed body when it is JSON. */
  json?: unknown;
  ms: number;
  /** Why no answer came: 'timeout', 'aborted' or the socket error. */
  failed?: string;
  contentType: string;
}

export interface Send {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The client gives up after this long; every request has one. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** One request to `base` + `path`, answered or given up within `timeoutMs`. */
export function send(base: string, path: string, options: Send): Promise<Reply> {
  const t0 = performance.now();
  const url = new URL(path, base);
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost')
    throw new Error(`the reliability suite targets loopback only, not ${url.hostname}`);
  return new Promise((resolve) => {
    let settled = false;
    const done = (reply: Omit<Reply, 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...reply, ms: performance.now() - t0 });
    };
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers, signal: options.signal },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) => done({ status: 0, text: '', failed: e.message, contentType: '' }));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const contentType = String(res.headers['content-type'] ?? '');
          let json: unknown;
          if (/json/i.test(contentType))
            try {
              json = JSON.parse(text);
            } catch {
              // Not JSON after all: the check that reads it says so.
            }
          done({ status: res.statusCode ?? 0, text, json, contentType });
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done({ status: 0, text: '', failed: 'timeout', contentType: '' });
    }, options.timeoutMs);
    req.on('error', (e) =>
      done({
        status: 0,
        text: '',
        failed: options.signal?.aborted ? 'aborted' : e.message,
        contentType: '',
      }),
    );
    req.end(options.body);
  });
}

/** POST /browser/<op> in `session`. */
export function op(
  base: string,
  name: string,
  args: unknown,
  session: string,
  timeoutMs = 60_000,
  signal?: AbortSignal,
): Promise<Reply> {
  return send(base, `/browser/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-session-key': session },
    body: JSON.stringify(args),
    timeoutMs,
    signal,
  });
}

/** The fields of an ActionResult the checks read. */
export interface ResultShape {
  ok: boolean;
  op?: string;
  error?: { kind?: string; message?: string };
  page?: { url?: string; title?: string };
  data?: Record<string, unknown>;
  evidence?: { path?: string }[];
  notes?: unknown[];
  timing?: { duration_ms?: number; browser_open_ms?: number };
}

export function resultOf(reply: Reply): ResultShape | undefined {
  const j = reply.json as ResultShape | undefined;
  return j && typeof j === 'object' && typeof j.ok === 'boolean' ? j : undefined;
}

/** `status kind: message` of a reply, shortened, for evidence. */
export function brief(reply: Reply): string {
  if (reply.failed) return `no answer (${reply.failed}) after ${Math.round(reply.ms)} ms`;
  const r = resultOf(reply);
  const what = r
    ? r.ok
      ? 'ok'
      : `${r.error?.kind}: ${r.error?.message ?? ''}`
    : reply.text.slice(0, 120);
  const open = r?.timing?.browser_open_ms;
  return (
    `${reply.status} ${what}`.slice(0, 300) +
    ` (${Math.round(reply.ms)} ms${open ? `, ${open} ms of it opening the browser` : ''})`
  );
}

/** mulberry32: a small seeded generator, so a run is reproduced by its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export interface ServerOptions {
  env?: Record<string, string>;
  dataDir?: string;
  /** Answer when the child exits instead of waiting for /health (a start-up that must fail). */
  expectExit?: boolean;
}

/** Every server child still running: the watchdog kills them if the suite must stop. */
const running = new Set<ChildProcess>();

/** Stops every server child still running: SIGTERM (it closes its browsers), SIGKILL after 5 s. */
export async function killAllServers(): Promise<void> {
  for (const child of running) child.kill('SIGTERM');
  await sleep(5000);
  for (const child of running) child.kill('SIGKILL');
}

/** A `swiftbrowse serve` child on a free loopback port with its own DATA_DIR. */
export class ServerChild {
  readonly url: string;
  readonly dataDir: string;
  private child?: ChildProcess;
  output = '';

  private constructor(
    readonly port: number,
    dataDir: string,
    /** Whether the data directory is this server's own, removed when it stops. */
    private readonly own: boolean,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.dataDir = dataDir;
  }

  static async start(options: ServerOptions = {}): Promise<ServerChild> {
    const port = await freePort();
    const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'swiftbrowse-rel-'));
    const server = new ServerChild(port, dataDir, !options.dataDir);
    server.child = spawn(
      process.execPath,
      [SWIFTBROWSE_MAIN, 'serve', '--port', String(port), '--data-dir', dataDir],
      {
        env: {
          ...cleanEnv(),
          LOG_LEVEL: 'warn',
          MAX_SESSIONS: '64',
          DEFAULT_TIMEOUT_MS: '5000',
          NAVIGATION_TIMEOUT_MS: '8000',
          ...options.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const child = server.child;
    running.add(child);
    child.once('exit', () => running.delete(child));
    const keep = (b: Buffer) => (server.output = (server.output + b.toString()).slice(-8000));
    server.child.stdout?.on('data', keep);
    server.child.stderr?.on('data', keep);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (server.child.exitCode !== null) {
        if (options.expectExit) return server;
        throw new Error(`swiftbrowse serve exited (${server.child.exitCode}): ${server.output}`);
      }
      const r = await send(server.url, '/health', { timeoutMs: 1000 }).catch(() => undefined);
      if (r?.status === 200) return server;
      await sleep(100);
    }
    if (options.expectExit) return server;
    await server.stop();
    throw new Error(`swiftbrowse serve did not answer /health in 30 s: ${server.output}`);
  }

  get pid(): number {
    return this.child?.pid ?? 0;
  }

  get exitCode(): number | null {
    return this.child?.exitCode ?? null;
  }

  /** Whether /health answers 200 within 2 s. */
  async healthy(): Promise<boolean> {
    const r = await send(this.url, '/health', { timeoutMs: 2000 });
    return r.status === 200;
  }

  /** RSS of the server process alone, and of its whole tree (browsers included), in MB. */
  memory(): { serverRssMb: number; treeRssMb: number; processes: number } {
    const own = memoryOf([{ pid: this.pid, includeRoot: true }]);
    const alone = memoryOf([{ pid: this.pid, includeRoot: false }]);
    return {
      serverRssMb: Math.round(own.rssMb - alone.rssMb),
      treeRssMb: Math.round(own.rssMb),
      processes: own.processes,
    };
  }

  /** The Chromium processes under this server: main browsers, renderers, all. */
  chromium(): { pid: number; ppid: number; cmdline: string }[] {
    return chromiumUnder(this.pid);
  }

  /** Stops the server; its own data directory goes unless `keep` (a sweep reads it after). */
  async stop(keep = false): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const late = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(late);
    }
    if (this.own && !keep) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** Page renderers (not extension processes) in the Chromium tree under `root`. */
export function renderersUnder(root: number): number[] {
  return chromiumUnder(root)
    .filter((p) => /--type=renderer/.test(p.cmdline) && !/--extension-process/.test(p.cmdline))
    .map((p) => p.pid);
}

/** Chromium processes in the tree under `root`, read from /proc. */
export function chromiumUnder(root: number): { pid: number; ppid: number; cmdline: string }[] {
  const out: { pid: number; ppid: number; cmdline: string }[] = [];
  for (const pid of treePids([{ pid: root, includeRoot: false }])) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (!/chrom/i.test(comm)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      out.push({ pid, ppid, cmdline });
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}
