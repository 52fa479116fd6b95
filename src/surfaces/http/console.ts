import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { OpError } from '../../core/errors.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import { OPERATOR_PAGE_HEADERS } from './logs-routes.js';
import { routeDoc } from './route-docs.js';

const CONSOLE_DIR = join(PACKAGE_ROOT, 'dist', 'ui', 'admin');
/** The built console: one page with its style inlined, and its script (scripts/build.mjs). */
export const CONSOLE_PAGE = join(CONSOLE_DIR, 'index.html');
const CONSOLE_SCRIPT = join(CONSOLE_DIR, 'console.js');

/**
 * `GET /admin/`, the operator console (issue #20), behind the operator guard the app applies to
 * every /admin path. It runs under the viewer's CSP: its own script, inline style, fetches to
 * this origin only. Every path it uses is relative, so `/admin` redirects to `admin/`.
 */
export function mountConsole(app: Hono): void {
  app.get('/admin', (c) => c.redirect('admin/'));
  const built = async (path: string) => {
    try {
      return await readFile(path, 'utf8');
    } catch {
      throw new OpError(
        'not_found',
        `The operator console is not built (no ${path}). Run npm run build, then reload; the JSON admin API under /admin/* works without it.`,
      );
    }
  };
  app.get(
    '/admin/',
    routeDoc({
      id: 'admin_console',
      summary: 'The operator console page',
      tag: 'admin',
      access: 'operator',
      answers: {
        200: {
          description: 'An HTML page',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
      },
      fails: [404],
    }),
    async (c) => c.html(await built(CONSOLE_PAGE), 200, OPERATOR_PAGE_HEADERS),
  );
  app.get('/admin/console.js', async (c) =>
    c.body(await built(CONSOLE_SCRIPT), 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    }),
  );
}
