import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import type { Config } from './config.js';
import type { Driver } from './drivers/driver.js';
import { PlaywrightDriver } from './drivers/playwright/playwright-driver.js';
import { WebDriverDriver } from './drivers/webdriver/webdriver-driver.js';
import { OP_MAP } from './ops/registry.js';
import type { OpRuntime } from './ops/run-op.js';
import { SessionManager } from './sessions/session-manager.js';
import { createHttpApp } from './surfaces/http/app.js';
import { mountMcp } from './surfaces/mcp/http.js';
import { VERSION } from './version.js';

export interface SwiftBrowse {
  runtime: OpRuntime;
  logger: Logger;
  /** Starts the HTTP server; resolves with its base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** The composition root: config in, a running server out. */
export function createSwiftBrowse(
  config: Config,
  logger: Logger = pino({ level: config.logLevel }),
): SwiftBrowse {
  // Until sessions choose their backend (#5), GRID_URL puts every session on the Grid.
  const driver: Driver = config.gridUrl
    ? new WebDriverDriver({
        gridUrl: config.gridUrl,
        capabilities: config.sessionCapabilities,
        queueWaitMs: config.gridQueueWaitMs,
      })
    : new PlaywrightDriver(config.browserPath);
  const sessions = new SessionManager(config, driver);
  const runtime: OpRuntime = { sessions, ops: OP_MAP };
  const app = createHttpApp(runtime, VERSION);
  const mcp = mountMcp(app, runtime);
  let server: ServerType | undefined;
  return {
    runtime,
    logger,
    listen: () =>
      new Promise((resolve, reject) => {
        server = serve(
          { fetch: app.fetch, port: config.port, hostname: config.host },
          (info: AddressInfo) => {
            const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
            const url = `http://${host}:${info.port}`;
            logger.info(
              { url, data_dir: config.dataDir, version: VERSION },
              `SwiftBrowse ${VERSION} listening on ${url} (data in ${config.dataDir})`,
            );
            resolve(url);
          },
        );
        server.once('error', reject);
      }),
    close: async () => {
      await mcp.close();
      await new Promise<void>((resolve) => {
        if (!server) return resolve();
        (server as import('node:http').Server).closeAllConnections?.();
        server.close(() => resolve());
      });
      await sessions.shutdown();
    },
  };
}
