import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { OpError } from '../../core/errors.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import { VIEWER_CSP } from './logs-routes.js';

/** The built console: one page with its script and style inlined (scripts/build.mjs). */
export const CONSOLE_PAGE = join(PACKAGE_ROOT, 'dist', 'ui', 'admin', 'index.html');

/**
 * `GET /admin/`, the operator console (issue #20), behind the operator guard the app applies to
 * every /admin path. It runs under the viewer's CSP: inline script and style, fetches to this
 * origin only. Every path it uses is relative, so `/admin` redirects to `admin/`.
 */
export function mountConsole(app: Hono): void {
  app.get('/admin', (c) => c.redirect('admin/'));
  app.get('/admin/', async (c) => {
    let html: string;
    try {
      html = await readFile(CONSOLE_PAGE, 'utf8');
    } catch {
      throw new OpError(
        'not_found',
        `The operator console is not built (no ${CONSOLE_PAGE}). Run npm run build, then reload; the JSON admin API under /admin/* works without it.`,
      );
    }
    return c.html(html, 200, {
      'content-security-policy': VIEWER_CSP,
      'cache-control': 'no-store',
    });
  });
}
