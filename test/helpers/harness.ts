import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { loadConfig, type ConfigInput } from '../../src/config.js';
import type { ActionResult } from '../../src/core/result.js';
import { createSwiftBrowse, type SwiftBrowse } from '../../src/server.js';
import { BACKEND } from './backend.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';
import { testGridUrl } from './grid.js';

export interface OpResponse {
  status: number;
  body: ActionResult;
}

export interface Harness {
  server: FixtureServer;
  app: SwiftBrowse;
  /** Base URL of the SwiftBrowse HTTP server, ROUTE_PREFIX included (`routePrefix` setting). */
  url: string;
  /** The server's origin, without ROUTE_PREFIX. */
  origin: string;
  dataDir: string;
  /** POST /browser/<op> in a session (default "t"). */
  op(name: string, args?: unknown, session?: string): Promise<OpResponse>;
  /** A raw request to the SwiftBrowse server. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /**
   * The session's status (GET /browser, which runs no op) once `ready` holds of it: what a test
   * waits on instead of a sleep (an op running, a browser seen gone).
   */
  statusWhen(
    session: string,
    ready: (status: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown>>;
  /**
   * Ends the browser of every session `op` used since the last call. A Grid browser holds a node
   * slot until it is closed: a file that opens more sessions than the Grid has slots would wait in
   * the Grid's queue (see docs/grid.md) unless each test gives its browsers back.
   */
  closeBrowsers(): Promise<void>;
  close(): Promise<void>;
}

/** How long statusWhen waits for a state that should come within the op that causes it. */
const STATUS_WAIT_MS = 15_000;

/**
 * Starts a fixture server and a SwiftBrowse server on free loopback ports, with a temp DATA_DIR
 * (removed on close); a `dataDir` given in settings is used and left in place (a restart test).
 */
export async function startHarness(
  settings: ConfigInput = {},
  logger: Logger = pino({ level: 'silent' }),
): Promise<Harness> {
  const server = await startFixtureServer();
  const given = typeof settings.dataDir === 'string' ? settings.dataDir : undefined;
  const dataDir = given ?? mkdtempSync(join(tmpdir(), 'swiftbrowse-test-'));
  // The grid arm drives the same suite through a real Selenium Grid (SWIFTBROWSE_TEST_BACKEND=grid).
  const grid = BACKEND === 'grid' ? { gridUrl: await testGridUrl() } : {};
  // The firefox arm: every session opens the local Firefox unless a test names a browser.
  const browser = BACKEND === 'firefox' ? { browser: 'firefox' } : {};
  // Log frames cost a capture per acting op (a third of a Grid or Firefox test's CPU): they are
  // off unless a test asks for them (the session log's and secrets' tests do; spawned servers keep
  // the product default).
  const config = loadConfig(
    {},
    { port: 0, timeoutMs: 5000, logFrames: false, ...grid, ...browser, ...settings, dataDir },
  );
  const app = await createSwiftBrowse(config, logger);
  const url = await app.listen();
  const origin = new URL(url).origin;
  const request = (path: string, init?: RequestInit) => fetch(`${url}${path}`, init);
  const used = new Set<string>();
  const op: Harness['op'] = async (name, args = {}, session = 't') => {
    used.add(session);
    const response = await request(`/browser/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-key': session },
      body: JSON.stringify(args),
    });
    return { status: response.status, body: (await response.json()) as ActionResult };
  };
  const statusWhen: Harness['statusWhen'] = async (session, ready) => {
    const due = Date.now() + STATUS_WAIT_MS;
    for (;;) {
      const r = await request('/browser', { headers: { 'x-session-key': session } });
      const status = ((await r.json()) as ActionResult).data ?? {};
      if (ready(status)) return status;
      if (Date.now() > due)
        throw new Error(
          `session ${session}: not as awaited in ${STATUS_WAIT_MS} ms; last status ${JSON.stringify(status)}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    server,
    app,
    url,
    origin,
    dataDir,
    request,
    op,
    statusWhen,
    async closeBrowsers() {
      const sessions = [...used];
      used.clear();
      await Promise.all(sessions.map((s) => op('close', {}, s)));
    },
    async close() {
      await app.close();
      await server.close();
      if (!given) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
