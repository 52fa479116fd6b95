import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Hono, MiddlewareHandler } from 'hono';
import { OpError } from '../../core/errors.js';
import { DEFAULT_LIMIT, framePath, listLogs, readLog } from '../../logs/log-reader.js';
import { logsDir } from '../../logs/session-log.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import { nameParam, pathParam, queryParam, routeDocs } from './route-docs.js';

// The viewer (and the console) run their own script and inline style, load frames from here, and
// reach nothing else; no other page may frame them (clickjacking an operator's buttons).
export const VIEWER_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The headers of an operator page (viewer, console); X-Frame-Options for browsers before CSP 2. */
export const OPERATOR_PAGE_HEADERS = {
  'content-security-policy': VIEWER_CSP,
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
} as const;
const VIEWER_DIR = join(PACKAGE_ROOT, 'ui', 'viewer');

function positiveInt(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new OpError('invalid_argument', `?${name}= takes a whole number ≥ 1 (got "${value}").`);
  return Number(value);
}

function wholeNumber(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value))
    throw new OpError(
      'invalid_argument',
      `?${name}= takes a whole number ≥ 0, the "total" of an earlier page (got "${value}").`,
    );
  return Number(value);
}

function flag(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw new OpError('invalid_argument', `?${name}= takes true or false (got "${value}").`);
}

const logDoc = routeDocs('logs', 'operator');
const SESSION = nameParam('session', 'The session');

/**
 * `GET /logs`, `GET /logs/:session` (`?since=` for what is new), `GET /logs/:session/frames/:name`
 * and `GET /viewer`
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

  app.get(
    '/logs',
    logDoc({
      id: 'logs_list',
      summary: 'The sessions that have a log',
      answers: { 200: { description: 'The sessions' } },
    }),
    async (c) => c.json({ sessions: await listLogs(dir) }),
  );

  app.get(
    '/logs/:session',
    logDoc({
      id: 'log_read',
      summary: 'A session’s event log: one entry per op, newest last',
      parameters: [
        SESSION,
        queryParam('op', 'Only this op', { type: 'string' }),
        queryParam('errors_only', 'Only failed ops', { type: 'boolean' }),
        queryParam('tab', 'Only this tab', { type: 'string' }),
        queryParam('since', 'The total of an earlier page: only what is newer', {
          type: 'integer',
          minimum: 0,
        }),
        queryParam('limit', 'At most this many entries', { type: 'integer', minimum: 1 }),
      ],
      answers: { 200: { description: 'The entries and their total' } },
      fails: [400, 404],
    }),
    async (c) => {
      const limit = positiveInt(c.req.query('limit'), 'limit') ?? DEFAULT_LIMIT;
      return c.json(
        await readLog(dir, c.req.param('session'), {
          op: c.req.query('op') || undefined,
          errorsOnly: flag(c.req.query('errors_only'), 'errors_only'),
          tab: c.req.query('tab') || undefined,
          since: wholeNumber(c.req.query('since'), 'since'),
          limit,
        }),
      );
    },
  );

  app.get(
    '/logs/:session/frames/:name',
    logDoc({
      id: 'log_frame',
      summary: 'A screen frame the log kept',
      parameters: [SESSION, pathParam('name', 'The frame file')],
      answers: {
        200: {
          description: 'A JPEG',
          content: { 'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } } },
        },
      },
      fails: [400, 404],
    }),
    async (c) => {
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
    },
  );

  // The viewer's paths are relative to /viewer: under /viewer/ they would land below it.
  app.get('/viewer/', (c) => c.redirect(`../viewer${new URL(c.req.url).search}`));

  app.get(
    '/viewer',
    logDoc({
      id: 'viewer',
      summary: 'The log viewer page (?token= once sets the operator cookie)',
      parameters: [queryParam('session', 'The session to open', { type: 'string' })],
      answers: {
        200: {
          description: 'An HTML page',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
      },
    }),
    async (c) => {
      const html = await readFile(join(VIEWER_DIR, 'index.html'), 'utf8');
      return c.html(html, 200, OPERATOR_PAGE_HEADERS);
    },
  );

  app.get('/viewer/viewer.js', async (c) => {
    const script = await readFile(join(VIEWER_DIR, 'viewer.js'), 'utf8');
    return c.body(script, 200, {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-store',
    });
  });
}
