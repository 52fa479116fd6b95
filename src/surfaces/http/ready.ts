import { browserPathProblem, findBrowser } from '../../drivers/find-browser.js';
import { gridStatus, type GridStatus } from '../../drivers/webdriver/grid-status.js';
import type { OpRuntime } from '../../ops/run-op.js';
import type { StoreHealth } from '../../sessions/store.js';

export interface Readiness {
  ready: boolean;
  /** The local browser's path, or what the Grid offers; null when there is none. */
  browser: string | null;
  /** Why the configured BROWSER_PATH cannot be launched, when it cannot. */
  browser_problem?: string;
  grid?: { url: string } & GridStatus;
  store: StoreHealth;
  sessions: number;
}

/**
 * What `GET /ready` answers: ready when a browser can be opened (a local one found, or a Grid
 * that answers) and the session store answers. Each is asked asynchronously with a short
 * limit, together, so a slow Grid or a hung Redis never holds the event loop.
 */
export async function readiness(rt: OpRuntime): Promise<Readiness> {
  const config = rt.sessions.config;
  const [grid, store] = await Promise.all([
    config.gridUrl ? gridStatus(config.gridUrl, 2000) : undefined,
    rt.sessions.store.check(),
  ]);
  const sessions = rt.sessions.liveBrowsers();
  if (config.gridUrl && grid) {
    return {
      // An autoscaled Grid at idle has no node and says not ready; it queues an open and scales up.
      ready: grid.reached && store.ok,
      // What the Grid offers, in the place a local browser's path would be.
      browser: grid.stereotypes.map((s) => s.browserName).join(', ') || null,
      grid: { url: config.gridUrl, ...grid },
      store,
      sessions,
    };
  }
  const problem = config.browserPath && browserPathProblem(config.browserPath);
  if (problem) {
    const browser_problem = `BROWSER_PATH=${config.browserPath} ${problem}`;
    return { ready: false, browser: null, browser_problem, store, sessions };
  }
  const browser = findBrowser(config.browserPath) ?? null;
  return { ready: !!browser && store.ok, browser, store, sessions };
}
