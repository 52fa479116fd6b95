import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Config } from '../../config.js';
import { browserPathProblem, findBrowser, findFirefox } from '../../drivers/find-browser.js';
import { gridStatus, takingNodes, type GridStatus } from '../../drivers/webdriver/grid-status.js';
import { MANAGED_DOWNLOADS_OPTION } from '../../drivers/webdriver/managed-downloads.js';
import { RedisStore } from '../../sessions/redis-store.js';
import type { StoreHealth } from '../../sessions/store.js';
import type { SettingView } from '../http/admin-settings.js';
import type { Readiness } from '../http/ready.js';
import { VERSION } from '../../version.js';
import { getJson, isHealthy, type ClientOptions } from './client.js';

/** What `doctor` found: one line per check, and whether the server can open a browser. */
export interface DoctorReport {
  lines: string[];
  ok: boolean;
}

const APT = (pkg: string) => `Debian: apt-get install -y ${pkg}`;

/** The first line a program prints for a version flag (java prints it to stderr), or why not. */
function versionOf(path: string, args = ['--version']): { version?: string; error?: string } {
  const r = spawnSync(path, args, { encoding: 'utf8', timeout: 10_000 });
  if (r.error) return { error: r.error.message };
  const first = (r.stdout.trim() || r.stderr.trim()).split('\n')[0];
  return r.status === 0 ? { version: first } : { error: first || `exit ${r.status}` };
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

const BROWSER_FIX =
  'point BROWSER_PATH (or --browser-path) at a Chromium executable, or unset it to use an installed one';

function browserLine(config: Config): { line: string; found: boolean } {
  const problem = config.browserPath && browserPathProblem(config.browserPath);
  if (problem)
    return {
      line: `browser: BROWSER_PATH=${config.browserPath} ${problem} — ${BROWSER_FIX}`,
      found: false,
    };
  const browser = findBrowser(config.browserPath);
  if (!browser)
    return {
      line: `browser: none found in the usual places — install Chromium (${APT('chromium')}) or set BROWSER_PATH`,
      found: false,
    };
  const { version, error } = versionOf(browser);
  return {
    line: version
      ? `browser: ${browser} — ${version}`
      : `browser: ${browser} — found but did not start (${error}); check it runs: ${browser} --version`,
    found: !!version,
  };
}

/** The browser a running local-backend server found, from its /ready, not this shell's BROWSER_PATH. */
function servedBrowserLine(served: Readiness): { line: string; found: boolean } {
  if (served.browser) return { line: `browser: ${served.browser} (the server’s)`, found: true };
  const why = served.browser_problem
    ? `${served.browser_problem} — ${BROWSER_FIX}`
    : `none found — install Chromium (${APT('chromium')}) or set BROWSER_PATH`;
  return { line: `browser: ${why} (the server’s)`, found: false };
}

/** The local Firefox (FIREFOX_PATH or an installed one); `needed` when BROWSER=firefox. */
function firefoxLine(config: Config): { line: string; found: boolean } {
  // With a Grid, a Firefox session runs on a node: this machine's Firefox is not needed.
  const needed = config.browser === 'firefox' && !config.gridUrl;
  const path = findFirefox(config.firefoxPath);
  if (!path)
    return {
      line: config.firefoxPath
        ? `firefox: FIREFOX_PATH=${config.firefoxPath} is not an executable — point it at Firefox, or unset it to use an installed one`
        : `firefox: none found — open {"browser": "firefox"} needs it (${APT('firefox-esr')})`,
      found: !needed,
    };
  const { version, error } = versionOf(path);
  return version
    ? { line: `firefox: ${path} — ${version}`, found: true }
    : {
        line: `firefox: ${path} — found but did not start (${error}); check it runs: ${path} --version`,
        found: !needed,
      };
}

function chromedriverLine(): string {
  const path = onPath('chromedriver');
  if (!path)
    return `chromedriver: not found on PATH — a local Selenium Grid node needs it (${APT('chromium-driver')})`;
  const { version, error } = versionOf(path);
  return version
    ? `chromedriver: ${path} — ${version}`
    : `chromedriver: ${path} — did not start (${error})`;
}

function javaLine(): string {
  const path = onPath('java');
  if (!path)
    return `java: not found on PATH — a local Selenium Grid server needs it (${APT('default-jre-headless')})`;
  const { version, error } = versionOf(path, ['-version']);
  return version ? `java: ${path} — ${version}` : `java: ${path} — did not start (${error})`;
}

/** Whether a file a page downloads reaches the session's files, and what to turn on when not. */
function downloadsClause(grid: GridStatus): string {
  const without = takingNodes(grid.nodeStates).filter((n) => !n.downloads);
  const fix = `start them with ${MANAGED_DOWNLOADS_OPTION}`;
  if (grid.downloads === 'off')
    return `downloads off: no node runs with managed downloads, so a file a page downloads stays on the node — ${fix}`;
  if (grid.downloads === 'some')
    return `downloads on some nodes: browsers are opened on those, and ${without.map((n) => n.uri).join(', ')} take none — ${fix}`;
  return grid.downloads === 'on' ? 'downloads on' : 'downloads unknown until a node is listed';
}

function gridLine(url: string, grid: GridStatus): string {
  const offers = grid.stereotypes
    .map((s) => [s.browserName, s.browserVersion].filter(Boolean).join(' '))
    .join(', ');
  if (grid.ready || grid.nodes > 0)
    return `grid: ${url} — ${grid.ready ? 'ready' : 'not ready'}, ${grid.nodes} node(s), ${grid.busy}/${grid.slots} slots busy${offers ? `, offers ${offers}` : ''}${grid.message ? ` (${grid.message})` : ''}; ${downloadsClause(grid)}`;
  return `grid: ${url} — not ready: ${grid.message || 'no node'}; start the Grid (and a node), or fix GRID_URL`;
}

/**
 * The DATA_DIR a running server uses, read from its settings (an operator route: the admin token,
 * or none on a loopback server without callers' tokens); else this shell's, saying why.
 */
async function servedDataDirLine(config: Config, client: ClientOptions): Promise<string> {
  const token = config.adminToken ?? client.token;
  let why: string;
  try {
    const r = await getJson({ ...client, token, session: undefined }, '/admin/settings');
    const settings = (r.body as { settings?: SettingView[] }).settings;
    const value = settings?.find((s) => s.name === 'dataDir')?.value;
    if (r.status === 200 && typeof value === 'string') return `data dir: ${value} (the server’s)`;
    why =
      r.status === 401 || r.status === 403
        ? `its settings are an operator route and answered ${r.status} — set SWIFTBROWSE_ADMIN_TOKEN to the server's to see its own`
        : `its /admin/settings answered ${r.status}`;
  } catch (e) {
    why = `its /admin/settings failed: ${(e as Error).message}`;
  }
  return `data dir: ${config.dataDir} (this shell’s; the server’s is unknown: ${why})`;
}

const storeLine = (h: StoreHealth, source: string) =>
  h.ok
    ? `redis: ${h.url ?? '?'} — answers (${source})`
    : `redis: ${h.url ?? '?'} — ${h.error ?? 'does not answer'} (${source}); start redis-server, fix REDIS_URL, or unset it to keep sessions in memory`;

/**
 * Checks what a server uses: its browser (BROWSER_PATH or an installed Chromium), the local Firefox
 * (FIREFOX_PATH or an installed one), ChromeDriver and
 * Java (a local Grid's), the Grid and Redis. A running server is asked (`/ready`) for the Grid and
 * store it was started with, and (`/admin/settings`) for its DATA_DIR, so a shell without its
 * GRID_URL or DATA_DIR still sees them.
 */
export async function doctor(config: Config, client: ClientOptions): Promise<DoctorReport> {
  const lines = [`swiftbrowse ${VERSION} on Node ${process.version}`];
  let served: Readiness | undefined;
  let serverLine: string;
  const running = await isHealthy(client.server);
  if (running) {
    try {
      const r = await getJson(client, '/ready');
      if (r.status === 200 || r.status === 503) served = r.body as Readiness;
      serverLine = served
        ? `server: running at ${client.server} — ${served.ready ? 'ready' : 'not ready'}`
        : `server: running at ${client.server}, but /ready answered ${r.status} — pass its token with --token (or SWIFTBROWSE_TOKEN)`;
    } catch (e) {
      serverLine = `server: running at ${client.server}, /ready failed: ${(e as Error).message}`;
    }
  } else serverLine = `server: not running at ${client.server}`;

  // A running local server opens its own browser: its BROWSER_PATH counts, not this shell's.
  const browser = served && !served.grid ? servedBrowserLine(served) : browserLine(config);
  const firefox = firefoxLine(config);
  lines.push(
    browser.line,
    firefox.line,
    chromedriverLine(),
    javaLine(),
    running ? await servedDataDirLine(config, client) : `data dir: ${config.dataDir}`,
    serverLine,
  );

  let ok = browser.found && firefox.found;
  const gridUrl = served ? served.grid?.url : config.gridUrl;
  if (gridUrl) {
    const source = served ? 'the server’s GRID_URL' : 'GRID_URL';
    const grid = served?.grid ?? (await gridStatus(gridUrl, 5000));
    lines.push(`${gridLine(gridUrl, grid)} (${source})`);
    ok = grid.ready;
  }

  if (served?.store.kind === 'redis') lines.push(storeLine(served.store, 'the server’s REDIS_URL'));
  else if (!served && config.redisUrl) {
    const health = await RedisStore.probe(config.redisUrl);
    lines.push(storeLine(health, 'REDIS_URL'));
    ok &&= health.ok;
  }
  if (served) ok &&= served.store.ok;
  return { lines, ok };
}
