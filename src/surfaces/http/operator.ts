import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { isLoopback, type Config } from '../../config.js';
import { carriesToken, unauthorized } from './bearer.js';

/** Routes for the operator, not for callers: they see every session (DESIGN §13). */
export const OPERATOR_PREFIXES = ['/admin', '/logs', '/viewer'] as const;

export const OPERATOR_COOKIE = 'swiftbrowse_operator';

export function isOperatorPath(path: string): boolean {
  return OPERATOR_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

function forbid(c: Context, message: string) {
  return c.json(
    { ok: false, error: { kind: 'permission_denied', message, recoverable: false } },
    403,
  );
}

/**
 * Guards operator routes. With SWIFTBROWSE_ADMIN_TOKEN set they need it (as a bearer token, or
 * the cookie the viewer sets from `?token=` once). Unset, they answer only on a loopback HOST
 * with no SWIFTBROWSE_TOKEN: a server that has callers' tokens has callers who must not see each
 * other's sessions, so the callers' token never opens them.
 */
export function operatorGuard(config: Config): MiddlewareHandler {
  return async (c, next) => {
    const token = config.adminToken;
    if (!token) {
      if (isLoopback(config.host) && !config.token) return next();
      return forbid(
        c,
        `Operator routes (${OPERATOR_PREFIXES.join(', ')}) see every session, so they are off while SWIFTBROWSE_TOKEN is set and SWIFTBROWSE_ADMIN_TOKEN is not: the callers' token does not open them. Set SWIFTBROWSE_ADMIN_TOKEN and send it as Authorization: Bearer <SWIFTBROWSE_ADMIN_TOKEN>.`,
      );
    }
    const offered = c.req.query('token');
    if (offered === token && c.req.method === 'GET') {
      // The viewer takes the token once: keep it in a cookie and drop it from the address bar.
      setCookie(c, OPERATOR_COOKIE, token, {
        httpOnly: true,
        sameSite: 'Strict',
        path: config.routePrefix || '/',
        secure: new URL(c.req.url).protocol === 'https:',
      });
      const url = new URL(c.req.url);
      url.searchParams.delete('token');
      return c.redirect(`${url.pathname}${url.search}`);
    }
    if (carriesToken(c, token) || getCookie(c, OPERATOR_COOKIE) === token) return next();
    return unauthorized(
      c,
      `This is an operator route: send Authorization: Bearer <SWIFTBROWSE_ADMIN_TOKEN> (a browser can open ${config.routePrefix}/viewer?token=<SWIFTBROWSE_ADMIN_TOKEN> once).`,
    );
  };
}
