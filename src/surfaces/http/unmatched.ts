import type { Context, Hono } from 'hono';
import { OpError } from '../../core/errors.js';
import { failure } from './respond.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A route's entry in Hono's router: the handler and the route record `app.routes` holds. */
type RouterEntry = [[unknown, { method: string }], unknown];

/**
 * The methods the app's own routes take at `path` (prefix-free), asked of the app's router, so
 * Allow cannot drift from the routes. Middleware (`use`, method ALL) is not a route.
 */
export function allowedMethods(app: Hono, path: string): string[] {
  const allowed = METHODS.filter((method) => {
    const [entries] = app.router.match(method, path) as unknown as [RouterEntry[]];
    return entries.some(([[, route]]) => route.method === method);
  });
  // Hono answers HEAD with the GET route.
  return allowed.includes('GET') ? ['GET', 'HEAD', ...allowed.slice(1)] : allowed;
}

/**
 * Answers what no route took: 405 with Allow when the path is a route for other methods,
 * otherwise 404 `route_not_found`; both name the way to the routes that exist.
 */
export function mountUnmatched(app: Hono, prefix: string): void {
  app.notFound((c: Context) => {
    const where = `${c.req.method} ${prefix}${c.req.path}`;
    const listing = `GET ${prefix}/ops lists the ops and their arguments; GET ${prefix}/openapi.json describes every route`;
    const allow = allowedMethods(app, c.req.path);
    if (allow.length === 0) {
      return failure(
        c,
        'request',
        new OpError(
          'route_not_found',
          `No route ${where}. Ops are POST ${prefix}/browser/<op> with a JSON body; ${listing}.`,
        ),
      );
    }
    c.header('Allow', allow.join(', '));
    return failure(
      c,
      'request',
      new OpError(
        'method_not_allowed',
        `${where} is not allowed: ${prefix}${c.req.path} takes ${allow.join(', ')}. ${listing}.`,
        { details: { allow } },
      ),
    );
  });
}
