import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
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
  /** Base URL of the SwiftBrowse HTTP server. */
  url: string;
  dataDir: string;
  /** POST /browser/<op> in a session (default "t"). */
  op(name: string, args?: unknown, session?: string): Promise<OpResponse>;
  /** A raw request to the SwiftBrowse server. */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** Starts a fixture server and a SwiftBrowse server on free loopback ports, with a temp DATA_DIR. */
export async function startHarness(settings: ConfigInput = {}): Promise<Harness> {
  const server = await startFixtureServer();
  const dataDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-test-'));
  // The grid arm drives the same suite through a real Selenium Grid (SWIFTBROWSE_TEST_BACKEND=grid).
  const grid = BACKEND === 'grid' ? { gridUrl: await testGridUrl() } : {};
  const config = loadConfig({}, { port: 0, dataDir, timeoutMs: 5000, ...grid, ...settings });
  const app = createSwiftBrowse(config, pino({ level: 'silent' }));
  const url = await app.listen();
  const request = (path: string, init?: RequestInit) => fetch(`${url}${path}`, init);
  return {
    server,
    app,
    url,
    dataDir,
    request,
    async op(name, args = {}, session = 't') {
      const response = await request(`/browser/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-key': session },
        body: JSON.stringify(args),
      });
      return { status: response.status, body: (await response.json()) as ActionResult };
    },
    async close() {
      await app.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
