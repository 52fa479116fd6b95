import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Hono, MiddlewareHandler } from 'hono';
import { OpError } from '../../core/errors.js';
import { DEFAULT_LIMIT, framePath, listLogs, readLog } from '../../logs/log-reader.js';
import { logsDir } from '../../logs/session-log.js';
import { PACKAGE_ROOT } from '../../package-root.js';

// The viewer runs its inline script and style, loads frames from here, and reaches nothing else.
export const VIEWER_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'";

function positiveInt(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new OpError('invalid_argument', `?${name}= takes a whole number ≥ 1 (got "${value}").`);
  return Number(value);
}

function flag(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new OpError('invalid_argument', `?${name}= takes true or false (got "${value}").`);
}

/**
 * `GET /logs`, `GET /logs/:session`, `GET /logs/:session/frames/:name` and `GET /viewer`
 * (DESIGN §12). Frames show whatever was on screen: `guard` is where the operator-token check
 * (SWIFTBROWSE_ADMIN_TOKEN) goes; every route here passes through it.
 */
export function mountLogRoutes(
  app: Hono,
  dataDir: string,
  guard: MiddlewareHandler = async (_c, next) => next(),
): void {
  const dir = logsDir(dataDir);
  app.use('/logs', guard);
  app.use('/logs/*', guard);
  app.use('/viewer', guard);

  app.get('/logs', async (c) => c.json({ sessions: await listLogs(dir) }));

  app.get('/logs/:session', async (c) => {
    const limit = positiveInt(c.req.query('limit'), 'limit') ?? DEFAULT_LIMIT;
    return c.json(
      await readLog(dir, c.req.param('session'), {
        op: c.req.query('op') || undefined,
        errorsOnly: flag(c.req.query('errors_only'), 'errors_only'),
        tab: c.req.query('tab') || undefined,
        limit,
      }),
    );
  });

  app.get('/logs/:session/frames/:name', async (c) => {
    const session = c.req.param('session');
    const name = c.req.param('name');
    let bytes: Buffer;
    try {
      bytes = await readFile(framePath(dir, session, name));
    } catch (e) {
      if (e instanceof OpError) throw e;
      throw new OpError(
        'not_found',
        `Session "${session}" has no frame ${name}: it was never kept or its log was removed.`,
      );
    }
    return c.body(new Uint8Array(bytes), 200, {
      'content-type': 'image/jpeg',
      'cache-control': 'private, max-age=3600',
    });
  });

  app.get('/viewer', async (c) => {
    const html = await readFile(join(PACKAGE_ROOT, 'ui', 'viewer', 'index.html'), 'utf8');
    return c.html(html, 200, {
      'content-security-policy': VIEWER_CSP,
      'cache-control': 'no-store',
    });
  });
}
