import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import { watchEventLoop } from './core/machine-load.js';
import { join } from 'node:path';
import type { Config } from './config.js';
import type { Driver } from './drivers/driver.js';
import { blockedHosts } from './core/url-policy.js';
import { LazyDriver } from './drivers/lazy-driver.js';
import { LocalDriver } from './drivers/local-driver.js';
import { checkDataDir } from './files/data-dir.js';
import { FileStore } from './files/file-store.js';
import { FlowLibrary } from './flows/library.js';
import { ServerLogTap, tappedLogger } from './logs/server-log.js';
import { logsDir, SessionLog } from './logs/session-log.js';
import { OP_MAP } from './ops/registry.js';
import type { OpRuntime } from './ops/run-op.js';
import { createSecrets } from './secrets/secrets.js';
import { SessionManager, type Backend } from './sessions/session-manager.js';
import { MemoryStore } from './sessions/store.js';
import { createHttpApp } from './surfaces/http/app.js';
import { mountMcp } from './surfaces/mcp/http.js';
import { VERSION } from './version.js';

/** How long an idle client connection is kept open. */
const KEEP_ALIVE_MS = 65_000;
/** How often Node looks for requests past HEADERS_TIMEOUT or REQUEST_TIMEOUT (its default: 30 s). */
const TIMEOUT_CHECK_MS = 1000;

export interface SwiftBrowse {
  runtime: OpRuntime;
  logger: Logger;
  /** The server log's lines, for MCP hosts (`logging`). */
  serverLog: ServerLogTap;
  /** Starts the HTTP server; resolves with its base URL (ROUTE_PREFIX included). */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** The composition root: config in, a running server out. */
export async function createSwiftBrowse(
  config: Config,
  operatorLogger: Logger = pino({ level: config.logLevel }),
): Promise<SwiftBrowse> {
  // The operator's logger keeps its level and destination; MCP hosts hear the same lines.
  const serverLog = new ServerLogTap();
  const logger = tappedLogger(operatorLogger, serverLog);
  checkDataDir(config);
  // A page that does not answer on a saturated machine is said to be maybe starved, not stuck.
  watchEventLoop();
  // Libraries a configuration does not use are not loaded (Redis, the Grid's selenium-webdriver),
  // and playwright-core waits for the first browser: start-up is what /health waits for.
  const store = config.redisUrl
    ? await (
        await import('./sessions/redis-store.js')
      ).RedisStore.connect(config.redisUrl, config.sessionRecordTtl)
    : new MemoryStore(config.sessionRecordTtl);
  const drivers: Partial<Record<Backend, Driver>> = {
    playwright: new LocalDriver(
      new LazyDriver('playwright', async () => {
        const { PlaywrightDriver } = await import('./drivers/playwright/playwright-driver.js');
        return new PlaywrightDriver(config.browserPath, blockedHosts(config));
      }),
      new LazyDriver('webdriver', async () => {
        const { LocalFirefoxDriver } = await import('./drivers/webdriver/local-firefox.js');
        return new LocalFirefoxDriver(
          config.firefoxPath,
          blockedHosts(config),
          config.firefoxStartTimeout,
        );
      }),
    ),
  };
  if (config.gridUrl) {
    const { WebDriverDriver } = await import('./drivers/webdriver/webdriver-driver.js');
    drivers.grid = new WebDriverDriver({
      gridUrl: config.gridUrl,
      capabilities: config.sessionCapabilities,
      version: config.sessionVersion,
      queueWaitMs: config.gridQueueWaitMs,
      blockedHosts: blockedHosts(config),
    });
  }
  const sessions = new SessionManager(config, drivers, store, logger);
  const logs = config.sessionLog
    ? new SessionLog({
        dir: logsDir(config.dataDir),
        frames: config.logFrames,
        framesMaxBytes: config.logFramesMaxMb * 1024 * 1024,
        logger,
      })
    : undefined;
  const runtime: OpRuntime = {
    sessions,
    ops: OP_MAP,
    secrets: createSecrets(config, logger),
    files: new FileStore(config),
    flows: new FlowLibrary(join(config.dataDir, 'flows')),
    logs,
  };
  const app = createHttpApp(runtime, VERSION);
  const mcp = mountMcp(app, runtime, serverLog);
  let server: ServerType | undefined;
  return {
    runtime,
    logger,
    serverLog,
    listen: () =>
      new Promise((resolve, reject) => {
        server = serve(
          {
            fetch: app.fetch,
            port: config.port,
            hostname: config.host,
            // A client that trickles its headers or body holds a socket and a parser: cut it
            // (408, closed) once it is past the bounds. They end when the request has arrived, so
            // a long op or an event stream is not cut.
            serverOptions: {
              headersTimeout: config.headersTimeout,
              requestTimeout: config.requestTimeout,
              connectionsCheckingInterval: TIMEOUT_CHECK_MS,
            },
          },
          (info: AddressInfo) => {
            const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
            const url = `http://${host}:${info.port}${config.routePrefix}`;
            logger.info(
              { url, data_dir: config.dataDir, version: VERSION },
              `SwiftBrowse ${VERSION} listening on ${url} (data in ${config.dataDir})`,
            );
            resolve(url);
          },
        );
        server.once('error', reject);
        // Node closes an idle keep-alive socket after 5 s; a client lagging on a loaded machine can
        // send its next request on a socket the server is closing, and it fails as "fetch failed".
        // Clients keep idle sockets for less than the server says (undici: 1 s less), so a long
        // window keeps the server from closing first. (HEADERS_TIMEOUT counts from a request's
        // first byte, not over an idle socket, so it may be the shorter.)
        (server as import('node:http').Server).keepAliveTimeout = KEEP_ALIVE_MS;
      }),
    close: async () => {
      await mcp.close();
      await new Promise<void>((resolve) => {
        if (!server) return resolve();
        (server as import('node:http').Server).closeAllConnections?.();
        server.close(() => resolve());
      });
      // Frames still being taken need their browsers.
      await logs?.flush();
      await sessions.shutdown();
    },
  };
}
