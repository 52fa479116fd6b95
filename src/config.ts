import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { CONSEQUENTIAL_WORDS } from './core/approval.js';
import { looseEnum } from './core/schema.js';
import { closedDirsOf, isWithin, parseOriginPattern } from './core/url-policy.js';
import { BROWSER_NAMES } from './drivers/driver.js';
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

const originPatterns = list.superRefine((patterns, ctx) => {
  for (const p of patterns) {
    try {
      parseOriginPattern(p);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
    }
  }
});

// A Host header name: a DNS name or an IP (IPv6 in brackets), with an optional port.
const hostList = list.superRefine((hosts, ctx) => {
  for (const h of hosts)
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/i.test(h))
      ctx.addIssue({ code: 'custom', message: `"${h}" is not a host or host:port` });
});

// A mount path: segments of URL-safe characters, no trailing slash ("/" alone is no prefix).
const routePrefix = z
  .string()
  .transform((v) => v.trim().replace(/\/+$/, ''))
  .pipe(
    z
      .string()
      .regex(
        /^(\/[A-Za-z0-9._~-]+)*$/,
        'expected a path like /sb or /tools/browse (starting with /, letters, digits, . _ ~ -)',
      ),
  );

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration in ms from seconds (`90`) or with a unit (`500ms`, `30s`, `30m`, `12h`, `7d`); 0 means never. */
const duration = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(String(v));
  if (!m) {
    ctx.addIssue({
      code: 'custom',
      message: `expected seconds or a duration like 30m, got "${v}"`,
    });
    return z.NEVER;
  }
  const unit = (m[2]?.toLowerCase() ?? 's') as keyof typeof UNIT_MS;
  return Math.round(Number(m[1]) * UNIT_MS[unit]);
});

/**
 * Every setting, its environment variable and its default. The README's configuration table is
 * this list; flags override the environment. `secret` settings are never shown (GET
 * /admin/settings masks them); `urlCredentials` URLs are shown with their password masked.
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
    secret: true,
    schema: z.string().min(8).optional(),
    doc: 'Bearer token every HTTP request must carry (at least 8 characters)',
  },
  adminToken: {
    env: 'SWIFTBROWSE_ADMIN_TOKEN',
    secret: true,
    schema: z.string().min(8).optional(),
    doc: 'Operator token for /admin, /logs and /viewer; unset, they answer only on a loopback HOST',
  },
  publicUrl: {
    env: 'PUBLIC_URL',
    schema: z.url().optional(),
    urlCredentials: true,
    doc: 'Absolute base URL for links the server hands out',
  },
  routePrefix: {
    env: 'ROUTE_PREFIX',
    schema: routePrefix.default(''),
    doc: 'Path the whole server mounts under, e.g. /sb (API, /mcp, /viewer, /logs, /admin, file links); a request outside it answers 404',
  },
  allowedHosts: {
    env: 'ALLOWED_HOSTS',
    schema: hostList.default([]),
    doc: 'Comma-separated host or host:port names the server answers to besides loopback names, HOST and PUBLIC_URL; any other Host is refused (DNS rebinding). On HOST=0.0.0.0 the check is on once this is set',
  },
  dataDir: {
    env: 'DATA_DIR',
    schema: z.string().min(1).default(join(homedir(), '.swiftbrowse')),
    doc: 'Where files, logs and uploads live (default ~/.swiftbrowse); one the server cannot write stops start-up',
  },
  browserPath: {
    env: 'BROWSER_PATH',
    schema: z.string().min(1).optional(),
    doc: 'Chromium executable (default: found on the system)',
  },
  browser: {
    env: 'BROWSER',
    schema: looseEnum(BROWSER_NAMES).default('chromium'),
    doc: 'Browser a session opens unless it names one: chromium (local, Playwright), firefox (local over WebDriver BiDi, or on the Grid), chrome, edge (Grid)',
  },
  firefoxPath: {
    env: 'FIREFOX_PATH',
    schema: z.string().min(1).optional(),
    doc: 'Firefox executable for local Firefox sessions (default: firefox-esr or firefox found on the system)',
  },
  firefoxStartTimeout: {
    env: 'FIREFOX_START_TIMEOUT',
    schema: duration.pipe(z.number().min(1000, 'at least 1s')).default(60_000),
    doc: 'Longest a local Firefox may take to start its WebDriver BiDi listener, and then to answer its first command (seconds or 90s/2m). A loaded machine or a new profile (set up on its first run) starts slower',
  },
  headless: { env: 'HEADLESS', schema: bool.default(true), doc: 'Run browsers without a window' },
  uploadDirs: {
    env: 'UPLOAD_DIRS',
    schema: pathList.optional(),
    doc: 'Colon-separated directories `upload` may read from (default DATA_DIR/uploads)',
  },
  secretsDirs: {
    env: 'SECRETS_DIRS',
    schema: pathList.default([]),
    doc: 'Colon-separated directories of secrets: a directory per secret, a file per key (the Kubernetes mount layout); the first directory offering a name wins',
  },
  secretsKubernetes: {
    env: 'SECRETS_KUBERNETES',
    schema: bool.default(false),
    doc: 'Also list Secrets labelled swiftbrowse.io/expose="true" from the Kubernetes API, with the pod\'s service account (needs get and list on secrets)',
  },
  secretsNamespace: {
    env: 'SECRETS_KUBERNETES_NAMESPACE',
    schema: z.string().min(1).optional(),
    doc: "Namespace to read Secrets from (default: the service account's own)",
  },
  secretsCacheTtl: {
    env: 'SECRETS_CACHE_TTL',
    schema: int(0, 3600).default(10),
    doc: 'Seconds the secrets catalogue (names and keys, never values) is cached',
  },
  signingKey: {
    env: 'SIGNING_KEY',
    secret: true,
    schema: z.string().min(16).optional(),
    doc: 'Key that signs file links (at least 16 characters; default: generated once and stored in DATA_DIR/signing.key)',
  },
  fileLinkTtl: {
    env: 'FILE_LINK_TTL',
    schema: int(1, 31_536_000).default(86_400),
    doc: 'Seconds a signed file link stays valid (default one day)',
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
  mcpMaxSessions: {
    env: 'MCP_MAX_SESSIONS',
    schema: int(1, 100_000).default(100),
    doc: 'Most MCP sessions open at once over HTTP (/mcp); an initialize past it is refused with 429',
  },
  mcpSessionsPerCaller: {
    env: 'MCP_SESSIONS_PER_CALLER',
    schema: int(1, 100_000).optional(),
    doc: 'Most of those sessions one caller (its client address, with its bearer token) holds at once; default a quarter of MCP_MAX_SESSIONS, at least 1',
  },
  mcpSessionIdle: {
    env: 'MCP_SESSION_IDLE',
    schema: duration.default(30 * 60_000),
    doc: 'An MCP session unused this long is closed and its client initializes again (seconds or 30m/2h; 0 = never)',
  },
  mcpResourceTools: {
    env: 'MCP_RESOURCE_TOOLS',
    schema: bool.default(false),
    doc: 'Also offer browser_read_resource, for MCP clients that cannot read resources',
  },
  mcpStructuredContent: {
    env: 'MCP_STRUCTURED_CONTENT',
    schema: bool.default(false),
    doc: 'Also send every MCP tool result whole as structuredContent, for hosts that read it instead of showing it to the model',
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
  maxFrames: {
    env: 'MAX_FRAMES',
    schema: int(0, 1000).default(8),
    doc: 'Most frames (iframes, same-origin or not) one read or search looks into; the answer names those left out',
  },
  maxFrameDepth: {
    env: 'MAX_FRAME_DEPTH',
    schema: int(0, 20).default(2),
    doc: 'Deepest frame nesting read or searched (1: frames of the page only, not frames inside them)',
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
  admissionWait: {
    env: 'ADMISSION_WAIT',
    schema: duration.default(60_000),
    doc: "Longest a session waits for its turn to open a local browser while the machine is saturated (load of 2 per core, or the server's event loop 200 ms late): browsers then open one at a time, and one that waits longer is refused (429, Retry-After). Seconds or 500ms/1m; 0 = open at once however loaded",
  },
  layoutLimit: {
    env: 'LAYOUT_LIMIT',
    schema: duration.default(30_000),
    doc: "Longest a page may stay laying out through ops' deadlines before it is taken for stuck and its tab reopened on the last URL (seconds or 500ms/1m; 0 = never): a layout cannot be stopped, so it is waited for until then",
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
  sessionTtl: {
    env: 'SESSION_TTL',
    schema: duration.default(30 * 60_000),
    doc: 'A session idle this long releases its browser (seconds or 30m/2h; 0 = never); the next op reopens it on the last URL',
  },
  sessionRecordTtl: {
    env: 'SESSION_RECORD_TTL',
    schema: duration.default(7 * 86_400_000),
    doc: 'A session record idle this long is forgotten (default 7d; 0 = never)',
  },
  gridUrl: {
    env: 'GRID_URL',
    urlCredentials: true,
    schema: z.url().optional(),
    doc: 'A Selenium Grid (or any W3C WebDriver endpoint); set, sessions use it unless they ask for backend "playwright"',
  },
  redisUrl: {
    env: 'REDIS_URL',
    urlCredentials: true,
    schema: z
      .string()
      .regex(/^rediss?:\/\//, 'expected redis://host:port or rediss://…')
      .optional(),
    doc: 'Keep session records in Redis so they survive a restart (default: in memory)',
  },
  allowedUrls: {
    env: 'ALLOWED_URLS',
    schema: originPatterns.default([]),
    doc: 'URL patterns [scheme://]host[:port] the browser may navigate to (comma-separated, * wildcards, e.g. https://*.corp.test; no scheme = http and https; file://* for file: URLs); empty = all web URLs',
  },
  blockedUrls: {
    env: 'BLOCKED_URLS',
    schema: originPatterns.default([]),
    doc: 'URL patterns the browser may never navigate to (file://* blocks file: URLs, * everything); wins over ALLOWED_URLS',
  },
  fileUrlDirs: {
    env: 'FILE_URL_DIRS',
    schema: pathList.default([]),
    doc: 'Colon-separated directories whose files the browser may open as file: URLs (after .. and symlinks); never DATA_DIR or SECRETS_DIRS; empty = no file: URL',
  },
  blockMetadata: {
    env: 'BLOCK_METADATA',
    schema: bool.default(true),
    doc: 'Refuse every request to cloud metadata addresses (169.254.0.0/16, metadata.google.internal, 100.100.100.200…) (off: allow)',
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
  headersTimeout: {
    env: 'HEADERS_TIMEOUT',
    schema: duration.pipe(z.number().min(100, 'at least 100ms')).default(10_000),
    doc: "Longest a client may take to send a request's headers (seconds or 500ms/1m); past it the connection answers 408 and is closed",
  },
  requestTimeout: {
    env: 'REQUEST_TIMEOUT',
    schema: duration.pipe(z.number().min(100, 'at least 100ms')).default(30_000),
    doc: 'Longest a client may take to send a whole request, headers and body (seconds or 500ms/1m); past it the connection answers 408 and is closed. The answer may take longer',
  },
  sessionLog: {
    env: 'SESSION_LOG',
    schema: bool.default(true),
    doc: 'Write every op to DATA_DIR/logs/<session>/events.jsonl (off: no session log, no frames)',
  },
  logFrames: {
    env: 'LOG_FRAMES',
    schema: bool.default(true),
    doc: 'Keep a JPEG frame in the session log after ops that change the screen and after every failure',
  },
  logFramesMaxMb: {
    env: 'LOG_FRAMES_MAX_MB',
    schema: int(1, 100_000).default(100),
    doc: 'Most megabytes of frames one session keeps; past it its log says frames stopped',
  },
  sessionCapabilities: {
    env: 'SESSION_CAPABILITIES',
    schema: jsonObject.default({}),
    doc: 'JSON object of WebDriver capabilities sent under every Grid session (e.g. a node pool key); keys SwiftBrowse owns are refused',
  },
  sessionVersion: {
    env: 'SESSION_VERSION',
    schema: z.string().min(1).default('latest'),
    doc: 'Browser version every Grid session asks for unless a client or an open names one (latest: any the Grid has)',
  },
  gridVideoUrl: {
    env: 'GRID_VIDEO_URL',
    schema: z
      .string()
      .regex(
        /^https?:\/\/.*\{name\}/,
        'expected an http(s) URL holding {name}, e.g. https://videos.internal/{name}',
      )
      .optional(),
    doc: "Where the Grid's video recorder puts a recording, with {name} (the video's name) and {grid_session}: `record`'s evidence links there",
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
export type SettingName = keyof Settings;
/** Where a setting's effective value came from: its default, the environment, or a flag (or code). */
export type SettingSource = 'default' | 'env' | 'flag';
export type Config = { -readonly [K in keyof Settings]: z.output<Settings[K]['schema']> } & {
  uploadDirs: string[];
  mcpSessionsPerCaller: number;
  sources: Record<SettingName, SettingSource>;
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
  const sources = {} as Record<SettingName, SettingSource>;
  for (const [key, setting] of Object.entries(SETTINGS) as [
    keyof Settings,
    Settings[keyof Settings],
  ][]) {
    const flagged = overrides[key] !== undefined && overrides[key] !== null;
    const raw = flagged ? overrides[key] : env[setting.env];
    const input = raw === '' ? undefined : raw;
    sources[key] = input === undefined ? 'default' : flagged ? 'flag' : 'env';
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
  config.sources = sources;
  config.dataDir = resolve(config.dataDir);
  config.uploadDirs = (config.uploadDirs ?? [join(config.dataDir, 'uploads')]).map((d) =>
    resolve(d),
  );
  config.fileUrlDirs = config.fileUrlDirs.map((d) => checkFileUrlDir(d, config));
  // One caller's initializes must leave room for others: 6,000 from one client took all 100.
  config.mcpSessionsPerCaller ??= Math.max(1, Math.floor(config.mcpMaxSessions / 4));
  try {
    checkConfigCapabilities(config.sessionCapabilities);
  } catch (e) {
    throw new ConfigError(`Setting SESSION_CAPABILITIES is invalid: ${(e as Error).message}`);
  }
  if (config.headersTimeout > config.requestTimeout) {
    throw new ConfigError(
      `Setting HEADERS_TIMEOUT (${config.headersTimeout} ms) is longer than REQUEST_TIMEOUT (${config.requestTimeout} ms), which already covers the headers. Make HEADERS_TIMEOUT the shorter.`,
    );
  }
  if (!isLoopback(config.host) && !config.token) {
    throw new ConfigError(
      `Setting HOST is ${config.host}, which is reachable from other machines, and SWIFTBROWSE_TOKEN is not set. Set a token or bind to 127.0.0.1.`,
    );
  }
  return config;
}

/** A FILE_URL_DIRS entry as its real path; one at or inside DATA_DIR or SECRETS_DIRS is refused. */
function checkFileUrlDir(dir: string, config: Config): string {
  let real: string;
  try {
    real = realpathSync(resolve(dir));
    if (!statSync(real).isDirectory()) throw new Error('not a directory');
  } catch (e) {
    throw new ConfigError(
      `Setting FILE_URL_DIRS names ${dir}, which is not a directory (${(e as Error).message}). Name existing directories, colon-separated.`,
    );
  }
  const closed = closedDirsOf(config.dataDir, config.secretsDirs).find((c) => isWithin(real, c));
  if (closed) {
    throw new ConfigError(
      `Setting FILE_URL_DIRS names ${dir}, which is ${real === closed ? '' : 'inside '}${closed} (DATA_DIR or SECRETS_DIRS): its signing key, logs and secrets must never be readable as file: URLs. Name another directory.`,
    );
  }
  return real;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
}
