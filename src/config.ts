import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { CONSEQUENTIAL_WORDS } from './core/approval.js';
import { looseEnum } from './core/schema.js';
import { checkConfigCapabilities } from './drivers/webdriver/capabilities.js';

const bool = z.union([z.boolean(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'boolean') return v;
  const s = v.trim().toLowerCase();
  if (['1', 'true', 'on', 'yes'].includes(s)) return true;
  if (['0', 'false', 'off', 'no'].includes(s)) return false;
  ctx.addIssue({ code: 'custom', message: `expected on/off (true/false), got "${v}"` });
  return z.NEVER;
});

const list = z
  .union([z.array(z.string()), z.string()])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean));

const pathList = z
  .union([z.array(z.string()), z.string()])
  .transform((v) => (Array.isArray(v) ? v : v.split(':')).map((s) => s.trim()).filter(Boolean));

/** A JSON object, from the environment (a string) or from code. */
const jsonObject = z.union([z.record(z.string(), z.unknown()), z.string()]).transform((v, ctx) => {
  if (typeof v !== 'string') return v;
  try {
    const parsed: unknown = JSON.parse(v);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: 'expected a JSON object, like {"myorg:pool": "fast"}' });
  return z.NEVER;
});

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/**
 * Every setting, its environment variable and its default. The README's configuration table is
 * this list; flags override the environment.
 */
export const SETTINGS = {
  port: { env: 'PORT', schema: int(0, 65535).default(8765), doc: 'HTTP port' },
  host: {
    env: 'HOST',
    schema: z.string().min(1).default('127.0.0.1'),
    doc: 'Address to bind; a non-loopback address needs SWIFTBROWSE_TOKEN',
  },
  token: {
    env: 'SWIFTBROWSE_TOKEN',
    schema: z.string().min(8).optional(),
    doc: 'Bearer token every HTTP request must carry (at least 8 characters)',
  },
  publicUrl: {
    env: 'PUBLIC_URL',
    schema: z.url().optional(),
    doc: 'Absolute base URL for links the server hands out',
  },
  dataDir: {
    env: 'DATA_DIR',
    schema: z.string().min(1).default(join(homedir(), '.swiftbrowse')),
    doc: 'Where files, logs and uploads live (default ~/.swiftbrowse)',
  },
  browserPath: {
    env: 'BROWSER_PATH',
    schema: z.string().min(1).optional(),
    doc: 'Chromium executable (default: found on the system)',
  },
  headless: { env: 'HEADLESS', schema: bool.default(true), doc: 'Run browsers without a window' },
  uploadDirs: {
    env: 'UPLOAD_DIRS',
    schema: pathList.optional(),
    doc: 'Colon-separated directories `upload` may read from (default DATA_DIR/uploads)',
  },
  evaluate: {
    env: 'EVALUATE',
    schema: bool.default(true),
    doc: 'Allow `evaluate` and `js` conditions',
  },
  approval: {
    env: 'APPROVAL',
    schema: bool.default(false),
    doc: 'Require approved: true for consequential clicks over HTTP and CLI (MCP has its own default)',
  },
  mcpApproval: {
    env: 'MCP_APPROVAL',
    schema: bool.default(true),
    doc: 'Require approved: true for consequential clicks and Enter over MCP (default on)',
  },
  mcpTools: {
    env: 'MCP_TOOLS',
    schema: looseEnum(['full', 'compact']).default('compact'),
    doc: 'MCP tool set: compact (browser_run plus lifecycle) or full (one tool per op)',
  },
  mcpResourceTools: {
    env: 'MCP_RESOURCE_TOOLS',
    schema: bool.default(false),
    doc: 'Also offer browser_read_resource, for MCP clients that cannot read resources',
  },

  diff: {
    env: 'DIFF',
    schema: bool.default(true),
    doc: 'Report data.changes after every acting op (off: --no-diff)',
  },
  changesMaxChars: {
    env: 'CHANGES_MAX_CHARS',
    schema: int(200, 1_000_000).default(8000),
    doc: 'Longest data.changes text in characters; snapshot returns the rest',
  },
  consequentialWords: {
    env: 'CONSEQUENTIAL_WORDS',
    schema: list.default([...CONSEQUENTIAL_WORDS]),
    doc: 'Comma-separated words that make a click or Enter need approval (default: delete, remove, pay, buy, send, publish…)',
  },
  timeoutMs: {
    env: 'DEFAULT_TIMEOUT_MS',
    schema: int(100, 600_000).default(10_000),
    doc: 'Default per-op timeout in ms',
  },
  settleTimeoutMs: {
    env: 'SETTLE_TIMEOUT_MS',
    schema: int(0, 120_000).default(5_000),
    doc: 'Longest wait for a page to settle after an action, in ms',
  },
  navigationTimeoutMs: {
    env: 'NAVIGATION_TIMEOUT_MS',
    schema: int(100, 600_000).default(30_000),
    doc: 'Default timeout of goto/back/forward/reload in ms',
  },
  viewportWidth: {
    env: 'VIEWPORT_WIDTH',
    schema: int(200, 8000).default(1280),
    doc: 'Default viewport width',
  },
  viewportHeight: {
    env: 'VIEWPORT_HEIGHT',
    schema: int(200, 8000).default(800),
    doc: 'Default viewport height',
  },
  maxSessions: {
    env: 'MAX_SESSIONS',
    schema: int(1, 10_000).default(16),
    doc: 'Most live browsers at once',
  },
  allowedOrigins: {
    env: 'ALLOWED_ORIGINS',
    schema: list.default([]),
    doc: 'Browser origins allowed to call the API (comma-separated); others are refused',
  },
  bodyLimit: {
    env: 'BODY_LIMIT',
    schema: int(1024, 100 * 1024 * 1024).default(2 * 1024 * 1024),
    doc: 'Largest request body in bytes',
  },
  gridUrl: {
    env: 'GRID_URL',
    schema: z.url().optional(),
    doc: 'Selenium Grid (or any W3C WebDriver endpoint) to run browsers on instead of the local Chromium',
  },
  sessionCapabilities: {
    env: 'SESSION_CAPABILITIES',
    schema: jsonObject.default({}),
    doc: 'JSON object of WebDriver capabilities sent under every Grid session (e.g. a node pool key); keys SwiftBrowse owns are refused',
  },
  gridQueueWaitMs: {
    env: 'GRID_QUEUE_WAIT_MS',
    schema: int(0, 3_600_000).default(0),
    doc: 'Longest wait for a Grid node when opening a browser, in ms (0: as long as the Grid queue waits)',
  },
  logLevel: {
    env: 'LOG_LEVEL',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    doc: 'Server log level',
  },
} as const;

type Settings = typeof SETTINGS;
export type Config = { -readonly [K in keyof Settings]: z.output<Settings[K]['schema']> } & {
  uploadDirs: string[];
};
export type ConfigInput = { -readonly [K in keyof Settings]?: unknown };

/** Raised at start-up; the message names the setting. */
export class ConfigError extends Error {}

/** Reads environment and overrides (flags), validates every setting once. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: ConfigInput = {},
): Config {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [
    keyof Settings,
    Settings[keyof Settings],
  ][]) {
    const raw = overrides[key] ?? env[setting.env];
    const input = raw === '' ? undefined : raw;
    const parsed = (setting.schema as z.ZodType).safeParse(input);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => i.message).join('; ');
      throw new ConfigError(
        `Setting ${setting.env} (${String(key)}) is invalid: ${why}. ${setting.doc}.`,
      );
    }
    out[key] = parsed.data;
  }
  const config = out as Config;
  config.dataDir = resolve(config.dataDir);
  config.uploadDirs = (config.uploadDirs ?? [join(config.dataDir, 'uploads')]).map((d) =>
    resolve(d),
  );
  try {
    checkConfigCapabilities(config.sessionCapabilities);
  } catch (e) {
    throw new ConfigError(`Setting SESSION_CAPABILITIES is invalid: ${(e as Error).message}`);
  }
  if (!isLoopback(config.host) && !config.token) {
    throw new ConfigError(
      `Setting HOST is ${config.host}, which is reachable from other machines, and SWIFTBROWSE_TOKEN is not set. Set a token or bind to 127.0.0.1.`,
    );
  }
  return config;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
}
