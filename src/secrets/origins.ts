/** An `_allowed_urls` declaration parsed: origins it allows and the lines it refused. */
export interface AllowedOrigins {
  origins: string[];
  rejected: string[];
}

/**
 * Parses declared origins, one per line (blank lines and `#` comments skipped). A line is an
 * origin: http(s), host, optional port; a path, query, fragment or user info refuses the line.
 * A refused line is reported rebuilt from its scheme, host and port: the rest may be a
 * credential (`?token=…`), so it is named, never quoted.
 */
export function parseAllowedOrigins(lines: readonly string[]): AllowedOrigins {
  const origins: string[] = [];
  const rejected: string[] = [];
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const at = `line ${i + 1}`;
    let url: URL;
    try {
      url = new URL(line);
    } catch {
      rejected.push(`${at}: not a URL; write an origin such as https://app.example.com`);
      return;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      rejected.push(`${at}: scheme ${url.protocol} is not http or https`);
      return;
    }
    const extra = [
      url.username || url.password ? 'user info' : '',
      url.pathname !== '/' ? 'a path' : '',
      url.search ? 'a query' : '',
      url.hash ? 'a fragment' : '',
    ].filter(Boolean);
    if (extra.length > 0) {
      rejected.push(
        `${at}: ${url.origin} carried ${extra.join(' and ')}; write the origin alone (scheme, host, port)`,
      );
      return;
    }
    if (!origins.includes(url.origin)) origins.push(url.origin);
  });
  return { origins, rejected };
}

/** The origin of a page URL (`null` for about:, data: and opaque origins). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}

/**
 * Whether a value may be typed on `pageUrl`: exact origin equality (scheme, host, port), never a
 * substring — `https://app.example.com.evil.test` is not `https://app.example.com`.
 */
export function originAllowed(
  pageUrl: string,
  entry: { restricted: boolean; allowedOrigins: readonly string[] },
): boolean {
  if (!entry.restricted) return true;
  const origin = originOf(pageUrl);
  return origin !== 'null' && entry.allowedOrigins.includes(origin);
}
