import { z } from 'zod';
import type { Config } from '../config.js';
import { BROWSER_NAMES } from '../drivers/driver.js';
import { rememberChoice } from '../drivers/webdriver/capabilities.js';

/**
 * What a session asked for (DESIGN §6). The cascade is config < session < call: these start from
 * the config, `open` changes them for the session, an op's own `timeout` wins for that call.
 */
export const sessionSettingsSchema = z.object({
  backend: z.enum(['playwright', 'grid']),
  browser: z.enum(BROWSER_NAMES),
  version: z.string().optional(),
  headless: z.boolean(),
  viewport: z.object({ width: z.number().int(), height: z.number().int() }),
  timeoutMs: z.number().int(),
  navigationTimeoutMs: z.number().int(),
  locale: z.string().optional(),
  userAgent: z.string().optional(),
  /** A storage-state file (in the session's files) the next browser starts from. */
  storageState: z.string().optional(),
  /** A persistent profile under DATA_DIR/profiles/. */
  profile: z.string().optional(),
  insecure: z.boolean().optional(),
  record: z.boolean().optional(),
  pageLoadTimeoutMs: z.number().int().optional(),
  scriptTimeoutMs: z.number().int().optional(),
  /** The HTTP caller's browser version (X-Version or `?version=`), a layer under `version`. */
  clientVersion: z.string().optional(),
  /**
   * Who chose `browser`: the server (BROWSER, when unset), the HTTP caller (X-Browser or
   * `?browser=`), or an `open` naming one, which no caller layer overrides after.
   */
  browserFrom: z.enum(['server', 'client', 'option']).optional(),
  /** The caller's raw WebDriver capabilities, remembered whole (seed 004). */
  capabilities: z.record(z.string(), z.unknown()).optional(),
});

/**
 * How long a page may take to load: `page_load_timeout` when the session set one (it acts on
 * both backends: Grid navigations go over BiDi, which the WebDriver session's own timeout misses),
 * else `navigation_timeout`.
 */
export function loadTimeoutMs(s: {
  navigationTimeoutMs: number;
  pageLoadTimeoutMs?: number;
}): number {
  return s.pageLoadTimeoutMs ?? s.navigationTimeoutMs;
}

export type SessionSettings = z.infer<typeof sessionSettingsSchema>;

export function defaultSettings(config: Config): SessionSettings {
  return {
    backend: config.gridUrl ? 'grid' : 'playwright',
    browser: config.browser,
    browserFrom: 'server',
    headless: config.headless,
    viewport: { width: config.viewportWidth, height: config.viewportHeight },
    timeoutMs: config.timeoutMs,
    navigationTimeoutMs: config.navigationTimeoutMs,
  };
}

/** Settings as a caller sees them: snake_case like every other field, unset ones left out. */
export function settingsView(s: SessionSettings): Record<string, unknown> {
  const view: Record<string, unknown> = {
    backend: s.backend,
    browser: s.browser,
    version: s.version,
    headless: s.headless,
    viewport: s.viewport,
    timeout_ms: s.timeoutMs,
    navigation_timeout_ms: s.navigationTimeoutMs,
    locale: s.locale,
    user_agent: s.userAgent,
    storage_state: s.storageState,
    profile: s.profile,
    insecure: s.insecure,
    record: s.record,
    page_load_timeout_ms: s.pageLoadTimeoutMs,
    script_timeout_ms: s.scriptTimeoutMs,
    capabilities: s.capabilities,
  };
  for (const k of Object.keys(view)) if (view[k] === undefined) delete view[k];
  return view;
}

/** What `open` may change; absent fields keep the remembered value. */
export interface SettingsChange {
  backend?: SessionSettings['backend'];
  browser?: SessionSettings['browser'];
  version?: string;
  width?: number;
  height?: number;
  headless?: boolean;
  timeoutMs?: number;
  navigationTimeoutMs?: number;
  locale?: string;
  userAgent?: string;
  storageState?: string;
  profile?: string;
  insecure?: boolean;
  record?: boolean;
  pageLoadTimeoutMs?: number;
  scriptTimeoutMs?: number;
  capabilities?: Record<string, unknown>;
}

/** Fields a running browser cannot take on: changing one restarts it. */
const LAUNCH_FIELDS = [
  'backend',
  'browser',
  'version',
  'headless',
  'locale',
  'userAgent',
  'storageState',
  'profile',
  'insecure',
  'record',
  'pageLoadTimeoutMs',
  'scriptTimeoutMs',
  'capabilities',
] as const;

/**
 * The session's settings after `open`; the browser choice follows seed 004's remembering rules
 * ({@link rememberChoice}).
 * Returns the launch fields that changed, so the caller knows whether to restart the browser.
 */
export function applySettings(
  current: SessionSettings,
  change: SettingsChange,
): { settings: SessionSettings; relaunch: string[] } {
  const next: SessionSettings = { ...current, viewport: { ...current.viewport } };
  const { width, height, browser, version, capabilities, ...rest } = change;
  for (const [key, value] of Object.entries(rest))
    if (value !== undefined) (next as Record<string, unknown>)[key] = value;
  if (width !== undefined) next.viewport.width = width;
  if (height !== undefined) next.viewport.height = height;
  const choice = rememberChoice(
    { browser: current.browser, version: current.version, capabilities: current.capabilities },
    { browser, version, capabilities },
  );
  next.browser = choice.browser ?? current.browser;
  if (browser !== undefined) next.browserFrom = 'option';
  delete next.version;
  delete next.capabilities;
  if (choice.version) next.version = choice.version;
  if (choice.capabilities) next.capabilities = choice.capabilities;
  const relaunch = LAUNCH_FIELDS.filter(
    (k) => JSON.stringify(current[k]) !== JSON.stringify(next[k]),
  ).map(snake);
  return { settings: next, relaunch };
}

/**
 * The HTTP caller's browser (X-Browser or `?browser=`), over the server's BROWSER and under a
 * browser an `open` named. It waits for the session's next browser: a running one is not swapped
 * under the caller.
 */
export function applyClientBrowser(
  s: SessionSettings,
  browser: SessionSettings['browser'],
  browserOpen: boolean,
): void {
  if (s.browserFrom === 'option' || browserOpen) return;
  s.browser = browser;
  s.browserFrom = 'client';
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
