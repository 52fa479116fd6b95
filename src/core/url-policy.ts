import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OpError } from './errors.js';

/**
 * The server's navigation policy (DESIGN §3.6): which URLs a main frame may load. Only http and
 * https are navigable, `file:` only under FILE_URL_DIRS, cloud metadata addresses never (unless
 * BLOCK_METADATA is off); then the operator's patterns. A pattern is `[scheme://]host[:port]`;
 * `*` in the host matches any run of characters (the empty host of `file:///` included), a
 * missing port matches any; a missing scheme allows http and https only, and blocks any scheme. Matching is on the
 * parsed URL, never on a substring of it.
 */
export interface OriginPattern {
  text: string;
  scheme?: string;
  host: RegExp;
  port?: string;
}

export interface UrlPolicy {
  allowed: readonly OriginPattern[];
  blocked: readonly OriginPattern[];
  /** Real paths of the directories `file:` URLs may read (FILE_URL_DIRS); empty: none. */
  fileDirs: readonly string[];
  /** Directories no `file:` URL may read, whatever FILE_URL_DIRS says (DATA_DIR, SECRETS_DIRS). */
  closedDirs: readonly string[];
  /** Refuse cloud metadata addresses (BLOCK_METADATA). */
  blockMetadata: boolean;
}

export interface PolicySettings {
  allowedUrls: readonly string[];
  blockedUrls: readonly string[];
  fileUrlDirs: readonly string[];
  dataDir: string;
  secretsDirs: readonly string[];
  blockMetadata: boolean;
}

const PATTERN = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^/:?#\s]+)(?::(\d+|\*))?\/?$/i;
const WEB = new Set(['http', 'https']);

/** Parses one pattern; a malformed one is an error naming it, so a typo never allows everything. */
export function parseOriginPattern(text: string): OriginPattern {
  const m = PATTERN.exec(text.trim());
  if (!m) {
    throw new Error(
      `"${text}" is not an origin pattern; write [scheme://]host[:port], e.g. https://*.corp.test, 127.0.0.1:8080 or file://*`,
    );
  }
  const host = m[2]
    .toLowerCase()
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*');
  return {
    text,
    scheme: m[1]?.toLowerCase(),
    host: new RegExp(`^${host}$`),
    port: m[3] === '*' ? undefined : m[3],
  };
}

/**
 * Cloud metadata endpoints (AWS EC2/ECS/EKS, GCP, Azure, Alibaba, Oracle, Tencent, OpenStack,
 * DigitalOcean…), as `new URL` spells their hosts; the whole IPv4 link-local range 169.254/16 is
 * refused besides. The list the drivers hand the browser comes from here too.
 */
export const METADATA_HOSTS: readonly string[] = [
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  '169.254.0.23',
  '100.100.100.200',
  '192.0.0.192',
  '168.63.129.16',
  '[fd00:ec2::254]',
  '[fd00:ec2::23]',
  '[fd20:ce::254]',
  '[fd00:c1::a9fe:a9fe]',
  '[::ffff:a9fe:a9fe]',
  '[64:ff9b::a9fe:a9fe]',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.tencentyun.com',
  'instance-data',
  'instance-data.ec2.internal',
];
const METADATA = new Set(METADATA_HOSTS);

/**
 * The hosts the drivers make the browser itself refuse, for every request it makes; `*` is a
 * wildcard a driver that cannot match one may drop (the exact hosts stay).
 */
export function blockedHosts(config: { blockMetadata: boolean }): readonly string[] {
  return config.blockMetadata ? ['169.254.*', ...METADATA_HOSTS] : [];
}

/** Whether a parsed URL's host is a cloud metadata address (a trailing dot changes nothing). */
export function isMetadataHost(hostname: string): boolean {
  const host = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return host.startsWith('169.254.') || METADATA.has(host);
}

/** Real path when it exists, else the absolute path: a directory created later compares the same. */
function realOrResolved(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/** Whether `path` is `dir` or inside it. */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** The directories no `file:` URL may read: DATA_DIR and SECRETS_DIRS, as given and as real paths. */
export function closedDirsOf(dataDir: string, secretsDirs: readonly string[]): string[] {
  const dirs = [dataDir, ...secretsDirs];
  return [...new Set(dirs.flatMap((d) => [resolve(d), realOrResolved(d)]))];
}

export function urlPolicy(s: PolicySettings): UrlPolicy {
  return {
    allowed: s.allowedUrls.map(parseOriginPattern),
    blocked: s.blockedUrls.map(parseOriginPattern),
    fileDirs: s.fileUrlDirs.map(realOrResolved),
    closedDirs: closedDirsOf(s.dataDir, s.secretsDirs),
    blockMetadata: s.blockMetadata,
  };
}

/** Whether the drivers must watch navigations themselves (Chromium refuses web pages' file: and data: hops). */
export function policyActive(policy: UrlPolicy): boolean {
  return policy.allowed.length > 0 || policy.blocked.length > 0 || policy.fileDirs.length > 0;
}

/** A scheme-less pattern allows web URLs only, and blocks any scheme. */
function matches(pattern: OriginPattern, url: URL, scheme: string, anyScheme: boolean): boolean {
  if (pattern.scheme ? pattern.scheme !== scheme : !anyScheme && !WEB.has(scheme)) return false;
  const port = url.port || (scheme === 'https' ? '443' : scheme === 'http' ? '80' : '');
  if (pattern.port && pattern.port !== port) return false;
  return pattern.host.test(url.hostname.replace(/^\[|\]$/g, '').toLowerCase());
}

/** Why a `file:` URL may not be read, or undefined: under FILE_URL_DIRS after `..` and symlinks, never a closed directory. */
function fileRefusal(policy: UrlPolicy, url: URL): string | undefined {
  if (!policy.fileDirs.length)
    return 'file: URLs are not navigable on this server (FILE_URL_DIRS names no directory)';
  if (url.hostname && url.hostname !== 'localhost')
    return `a file: URL names a file on this machine, not on host ${url.hostname}`;
  let real: string;
  try {
    real = realpathSync(fileURLToPath(url));
  } catch {
    return `${url.pathname} does not exist or cannot be resolved, so it cannot be checked against FILE_URL_DIRS`;
  }
  if (policy.closedDirs.some((d) => isWithin(real, d)))
    return `${real} is inside DATA_DIR or SECRETS_DIRS, which no file: URL may read`;
  if (!policy.fileDirs.some((d) => isWithin(real, d)))
    return `${real} is not under FILE_URL_DIRS (${policy.fileDirs.join(':')})`;
  return undefined;
}

/**
 * Why the browser may not load `href`, or undefined when it may. Blank pages and Chromium's
 * error page always may; every other URL meets the scheme rule, then the patterns.
 */
export function refusedBy(policy: UrlPolicy, href: string): string | undefined {
  if (href === 'about:blank' || href.startsWith('chrome-error:')) return undefined;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined; // not a URL the browser can load; the navigation itself will fail
  }
  const scheme = url.protocol.slice(0, -1);
  if (WEB.has(scheme)) {
    if (policy.blockMetadata && isMetadataHost(url.hostname))
      return `${url.hostname} is a cloud metadata address, blocked by default (BLOCK_METADATA=off lifts it)`;
  } else if (scheme === 'file') {
    const refused = fileRefusal(policy, url);
    if (refused) return refused;
  } else {
    return `${scheme}: URLs are not navigable on this server; only http and https are (and file: under FILE_URL_DIRS)`;
  }
  const blocked = policy.blocked.find((p) => matches(p, url, scheme, true));
  if (blocked) return `BLOCKED_URLS has ${blocked.text}`;
  if (policy.allowed.length && !policy.allowed.some((p) => matches(p, url, scheme, false))) {
    const what = WEB.has(scheme) ? url.origin : `${scheme}: URLs (a pattern like ${scheme}://*)`;
    return `ALLOWED_URLS (${policy.allowed.map((p) => p.text).join(', ')}) does not include ${what}`;
  }
  return undefined;
}

/**
 * Why the browser may not fetch `href` for a page (a frame, a script, a fetch), or undefined:
 * `file:` outside FILE_URL_DIRS and metadata addresses, whatever frame asks.
 */
export function requestRefusedBy(policy: UrlPolicy, href: string): string | undefined {
  if (href.startsWith('file:')) {
    try {
      return fileRefusal(policy, new URL(href));
    } catch {
      return 'not a file URL';
    }
  }
  if (!policy.blockMetadata) return undefined;
  const host = /^https?:\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(href)?.[1];
  return host !== undefined && isMetadataHost(host.toLowerCase())
    ? `${host} is a cloud metadata address`
    : undefined;
}

const EXAMPLE = 'http://host/path (e.g. http://127.0.0.1:8765/demo/login.html)';

/**
 * The URL a navigation op means: `user:pw@host` and `localhost:3000` have no scheme, `data:`
 * does; a bare loopback host is plain http, any other bare host https.
 */
function withScheme(input: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) return input;
  if (/^[^@/]*@/.test(input)) return addScheme(input);
  if (/^[a-z][a-z0-9+.-]*:(?!\d+(?:[/?#]|$))/i.test(input)) return input;
  return addScheme(input);
}

function addScheme(input: string): string {
  const host = input.replace(/^[^@/]*@/, '');
  return /^(localhost|127\.|\[::1\])/i.test(host) ? `http://${input}` : `https://${input}`;
}

/**
 * The absolute URL a navigation op's `url` argument means, or why it is none. `strict` also
 * refuses a scheme-less word (`x`): a host has a dot or a port, or is localhost or [IPv6]. A
 * flow's `${site}/login` is checked at save time with a probe value, so only the op run is strict.
 */
function readTarget(input: string, strict: boolean): { href: string } | { problem: string } {
  const given = input.trim();
  if (/^javascript:/i.test(given))
    return {
      problem: `a javascript: URL runs script, it is not a page to load; give an absolute URL such as ${EXAMPLE}, and run script with evaluate`,
    };
  const href = withScheme(given);
  let url: URL | undefined;
  try {
    url = new URL(href);
  } catch {
    url = undefined;
  }
  const host = url?.hostname ?? '';
  const hostLike =
    !strict ||
    href === given ||
    /[.[]/.test(host) ||
    host === 'localhost' ||
    /^[^/]*:\d+/.test(given);
  if (!url || (WEB.has(url.protocol.slice(0, -1)) && !host) || !hostLike)
    return {
      problem: `${JSON.stringify(input)} is not a URL; give an absolute URL such as ${EXAMPLE}`,
    };
  return { href };
}

/** Why a navigation op's `url` argument is no URL (`javascript:`, `http://`), for its schema: refused before a browser opens. */
export function urlArgumentProblem(input: string): string | undefined {
  const read = readTarget(input, false);
  return 'problem' in read ? read.problem : undefined;
}

/** The absolute URL a navigation op (goto, open, tab_new) means; none is `invalid_argument`. */
export function navigationTarget(op: string, input: string): string {
  const read = readTarget(input, true);
  if ('problem' in read) throw new OpError('invalid_argument', `${op}: url: ${read.problem}.`);
  return read.href;
}
