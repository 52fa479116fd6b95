import type { Context } from 'hono';
import { getPath } from 'hono/utils/url';
import { OpError } from '../../core/errors.js';

/** Whether a request path lies under the mount prefix (`/sb` holds `/sb` and `/sb/…`, not `/sbx`). */
export function insidePrefix(prefix: string, path: string): boolean {
  return prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * Hono's `getPath` for a server mounted under ROUTE_PREFIX: routes see the path without the
 * prefix, so every route, guard and `c.req.path` check is written once, prefix-free. A path
 * outside the prefix is returned as is; `outsidePrefix` refuses it before any route runs.
 */
export function prefixedGetPath(prefix: string): (request: Request) => string {
  return (request) => {
    const path = getPath(request);
    if (prefix === '' || !insidePrefix(prefix, path)) return path;
    return path.slice(prefix.length) || '/';
  };
}

/** The refusal for a request outside the prefix, or undefined when it is inside. */
export function outsidePrefix(prefix: string, c: Context): OpError | undefined {
  const path = getPath(c.req.raw);
  if (insidePrefix(prefix, path)) return undefined;
  return new OpError(
    'route_not_found',
    `No route ${c.req.method} ${path}: this server is mounted under ROUTE_PREFIX ${prefix}. Send ${prefix}${path === '/' ? '/' : path} instead (ops are POST ${prefix}/browser/<op>).`,
  );
}

/** The address this request reached, ROUTE_PREFIX included: what an example in a message names. */
export function servedBase(c: Context, prefix: string): string {
  return `${new URL(c.req.url).origin}${prefix}`;
}
