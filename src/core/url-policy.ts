/**
 * The server's navigation policy (DESIGN §3.6): origin patterns a main frame may or may not load.
 * A pattern is `[scheme://]host[:port]`; `*` in the host matches any run of characters, a missing
 * scheme or port matches any. Matching is on the parsed origin, never on a substring of the URL.
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
}

const PATTERN = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^/:?#\s]+)(?::(\d+|\*))?\/?$/i;

/** Parses one pattern; a malformed one is an error naming it, so a typo never allows everything. */
export function parseOriginPattern(text: string): OriginPattern {
  const m = PATTERN.exec(text.trim());
  if (!m) {
    throw new Error(
      `"${text}" is not an origin pattern; write [scheme://]host[:port], e.g. https://*.corp.test or 127.0.0.1:8080`,
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

export function urlPolicy(allowed: readonly string[], blocked: readonly string[]): UrlPolicy {
  return { allowed: allowed.map(parseOriginPattern), blocked: blocked.map(parseOriginPattern) };
}

export function policyActive(policy: UrlPolicy): boolean {
  return policy.allowed.length > 0 || policy.blocked.length > 0;
}

function matches(pattern: OriginPattern, url: URL): boolean {
  const scheme = url.protocol.slice(0, -1);
  if (pattern.scheme && pattern.scheme !== scheme) return false;
  const port = url.port || (scheme === 'https' ? '443' : scheme === 'http' ? '80' : '');
  if (pattern.port && pattern.port !== port) return false;
  return pattern.host.test(url.hostname.replace(/^\[|\]$/g, '').toLowerCase());
}

/**
 * Why a main-frame navigation to `href` is refused, or undefined when it may go. Blank pages are
 * always allowed; anything without a host is refused once an allow list exists.
 */
export function refusedBy(policy: UrlPolicy, href: string): string | undefined {
  if (href === 'about:blank' || href.startsWith('chrome-error:')) return undefined;
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined; // not a URL the browser can load; the navigation itself will fail
  }
  const blocked = policy.blocked.find((p) => url.hostname && matches(p, url));
  if (blocked) return `BLOCKED_URLS has ${blocked.text}`;
  if (policy.allowed.length && !policy.allowed.some((p) => url.hostname && matches(p, url)))
    return `ALLOWED_URLS (${policy.allowed.map((p) => p.text).join(', ')}) does not include ${url.origin}`;
  return undefined;
}
