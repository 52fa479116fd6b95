import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';

const BEARER = /^bearer +(\S+) *$/i;

/** The token an Authorization header carries; the scheme is case-insensitive (RFC 7235 §2.1). */
export function bearerToken(header: string | undefined): string | undefined {
  return header ? BEARER.exec(header)?.[1] : undefined;
}

/** Whether the request carries `token` as its bearer token, compared in constant time. */
export function carriesToken(c: Context, token: string): boolean {
  const sent = bearerToken(c.req.header('authorization'));
  if (sent === undefined) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A 401 with the challenge RFC 6750 asks for: `error="invalid_token"` when a token was sent and
 * refused, none when no credentials came (§3.1).
 */
export function unauthorized(c: Context, message: string) {
  const sent = !!c.req.header('authorization');
  c.header(
    'WWW-Authenticate',
    `Bearer realm="swiftbrowse"${sent ? ', error="invalid_token"' : ''}`,
  );
  return c.json(
    { ok: false, error: { kind: 'permission_denied', message, recoverable: false } },
    401,
  );
}
