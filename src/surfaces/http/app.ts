import type { HttpBindings } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { OpError, toOpError } from '../../core/errors.js';
import { scrub } from '../../core/redact.js';
import { opListing } from '../../ops/listing.js';
import { filesListing } from '../../ops/files.js';
import { sessionStatus } from '../../ops/lifecycle.js';
import { runOp, type OpRuntime } from '../../ops/run-op.js';
import { PACKAGE_ROOT } from '../../package-root.js';
import type { Session } from '../../sessions/session.js';
import { adminAuditRoutes } from './admin-audit.js';
import { adminFlowRoutes } from './admin-flows.js';
import { adminSettingsRoutes } from './admin-settings.js';
import { adminRoutes } from './admin.js';
import { mountConsole } from './console.js';
import { fileAdminRoutes, isSignedFileLink, signedFileRoutes } from './file-routes.js';
import { flowRoutes } from './flows.js';
import { checkBody, hostRefusal, hostRule, jsonBody, ownOriginRule } from './guards.js';
import { applyClientLayer } from './client-layer.js';
import { isOperatorPath, operatorGuard } from './operator.js';
import { answerFor, detailOf } from '../answer.js';
import { answer, callerName, failure } from './respond.js';
import { carriesToken, unauthorized } from './bearer.js';
import { mountUnmatched } from './unmatched.js';
import { mountLogRoutes } from './logs-routes.js';
import { isApiDescriptionPath, mountOpenApi } from './openapi.js';
import { readiness } from './ready.js';
import { opRouteDoc, routeDoc } from './route-docs.js';
import { HEALTH_DOC, OPS_DOC, READY_DOC } from './service-docs.js';
import { outsidePrefix, prefixedGetPath, servedBase } from './route-prefix.js';

/** The port a request came in on (the Node server's socket); undefined off Node. */
const localPort = (c: Context): number | undefined =>
  (c.env as HttpBindings | undefined)?.incoming?.socket?.localPort;

/** The HTTP surface: it only translates requests into runOp calls and results into responses. */
export function createHttpApp(rt: OpRuntime, version: string): Hono {
  const config = rt.sessions.config;
  const prefix = config.routePrefix;
  // Routes are written without ROUTE_PREFIX; Hono strips it before routing.
  const app = new Hono({ getPath: prefixedGetPath(prefix) });

  const hostAllowed = hostRule(config);
  const isOwnOrigin = ownOriginRule(config);

  app.use('*', async (c, next) => {
    const outside = outsidePrefix(prefix, c);
    return outside ? failure(c, 'request', outside) : next();
  });

  // One guard for every route, /mcp included: the MCP SDK's own allowedHosts compares whole
  // Host values (port and all) and is deprecated in favour of middleware like this one.
  app.use('*', async (c, next) => {
    const host = c.req.header('host');
    // /health says only that the server is up, and orchestrators probe it by address.
    if (hostAllowed && c.req.path !== '/health' && !hostAllowed(host))
      return failure(c, 'request', hostRefusal(host));
    const origin = c.req.header('origin');
    // Pages the driven browser visits can reach this port too: a browser Origin must be allowed by
    // name. The console's own writes to /admin come from this server's origin, under any of its names.
    const ownOrigin =
      !!origin && isOperatorPath(c.req.path) && isOwnOrigin(origin, host, localPort(c));
    if (origin && !ownOrigin && !config.allowedOrigins.includes(origin)) {
      return failure(
        c,
        'request',
        new OpError(
          'permission_denied',
          `Requests from the browser origin ${origin} are refused. An operator can allow it with ALLOWED_ORIGINS.`,
        ),
      );
    }
    // Operator routes answer to the operator guard alone: the callers' token never opens them.
    const open =
      isOperatorPath(c.req.path) ||
      c.req.path.startsWith('/demo/') ||
      c.req.path === '/health' ||
      isApiDescriptionPath(c.req.path) ||
      isSignedFileLink(c.req.path);
    if (config.token && !open && !carriesToken(c, config.token)) {
      return unauthorized(
        c,
        'Missing or wrong bearer token: send Authorization: Bearer <SWIFTBROWSE_TOKEN>.',
      );
    }
    await next();
  });

  app.use(
    '*',
    bodyLimit({
      maxSize: config.bodyLimit,
      onError: (c) =>
        failure(
          c,
          'request',
          new OpError(
            'invalid_argument',
            `The request body is larger than ${config.bodyLimit} bytes (BODY_LIMIT).`,
          ),
        ),
    }),
  );
  app.use('*', async (c, next) => {
    const refused = await checkBody(c.req.method, c.req.path, c.req.header('content-type'), () =>
      c.req.text(),
    );
    return refused ? failure(c, 'request', refused) : next();
  });

  app.get('/health', routeDoc(HEALTH_DOC), (c) => c.json({ ok: true, version }));
  app.get('/ready', routeDoc(READY_DOC), async (c) => {
    const ready = await readiness(rt);
    return c.json(ready, ready.ready ? 200 : 503);
  });
  app.get('/ops', routeDoc(OPS_DOC), (c) => c.json({ ops: opListing(rt.ops.values()) }));
  const session = (c: Context) => rt.sessions.get(callerName(c));

  const call = async (c: Context, op: string, args: unknown) => {
    try {
      // The whole result is HTTP's contract; ?detail=compact asks for what a model reads.
      const detail = detailOf(c.req.query('detail'), 'full');
      const caller = await session(c);
      await applyClientLayer(c, caller, rt.sessions);
      const result = await runOp(rt, {
        op,
        args,
        session: caller,
        surface: 'http',
        signal: c.req.raw.signal,
      });
      return answer(c, result, answerFor(caller, result, detail));
    } catch (e) {
      return failure(c, op, toOpError(e));
    }
  };

  const opDoc = (op: string, id: string, tag: 'browser' | 'files' | 'secrets') =>
    opRouteDoc(rt.ops.get(op), id, tag);
  // A GET touches no session (a cross-site <img> can send one): status, secrets and files are
  // read, not run as ops, so no action id is spent, nothing is logged and a name never used is
  // not created.
  const readRoute =
    (op: string, read: (session: Session) => Promise<{ data: object; notes?: string[] }>) =>
    async (c: Context) => {
      try {
        const started = Date.now();
        const { session, known } = await rt.sessions.peek(callerName(c));
        const { data, notes = [] } = await read(session);
        // What is read names URLs and files: the session's typed secrets are scrubbed from them
        // as from every answer the op pipeline builds.
        return c.json(
          scrub(
            {
              ok: true,
              op,
              session_id: session.name,
              verification: { status: 'not_checked' },
              data: known ? data : { ...data, known: false },
              ...(notes.length ? { notes } : {}),
              timing: {
                started_at_ms: started,
                duration_ms: Date.now() - started,
                timeout_ms: session.settings.timeoutMs,
              },
            },
            session.bound,
          ),
        );
      } catch (e) {
        return failure(c, op, toOpError(e));
      }
    };
  app.get(
    '/browser',
    opDoc('status', 'session_status', 'browser'),
    readRoute('status', async (s) => ({ data: await sessionStatus(s, rt.flows) })),
  );
  app.get(
    '/secrets',
    opDoc('secrets', 'secrets_catalogue', 'secrets'),
    readRoute('secrets', async (s) => ({ data: await rt.secrets.list(s.name) })),
  );
  app.get(
    '/files',
    opDoc('files', 'files_list', 'files'),
    readRoute('files', (s) => filesListing(s, rt.files)),
  );
  app.route('/files', signedFileRoutes(rt.files));
  app.delete('/browser', opDoc('close', 'session_close', 'browser'), (c) => call(c, 'close', {}));
  app.post('/browser/:op', async (c) => {
    const op = c.req.param('op');
    if (!rt.ops.has(op)) {
      return failure(
        c,
        op,
        new OpError(
          'invalid_argument',
          `Unknown op "${op}". POST /browser/<op> with one of: ${[...rt.ops.keys()].join(', ')}. GET /ops lists their arguments.`,
        ),
      );
    }
    const base = servedBase(c, prefix);
    let args: unknown;
    try {
      args = jsonBody(
        await c.req.text(),
        `Send the op's arguments as a JSON object, e.g. curl -s ${base}/browser/goto -H 'X-Session-Key: NAME' -H 'content-type: application/json' -d '{"url": "${base}/demo/"}'`,
      );
    } catch (e) {
      return failure(c, op, toOpError(e));
    }
    if (rt.ops.get(op)?.runsSteps && Array.isArray(args)) args = { steps: args };
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return failure(
        c,
        op,
        new OpError(
          'invalid_argument',
          `The body must be a JSON object of ${op}'s arguments; GET /ops shows them.`,
        ),
      );
    }
    return call(c, op, args);
  });

  // Operator routes: the guard is registered before them, so it runs first.
  const guard = operatorGuard(config);
  app.use('*', (c, next) => (isOperatorPath(c.req.path) ? guard(c, next) : next()));
  mountLogRoutes(app, config.dataDir);
  mountConsole(app);
  app.route('/admin', adminRoutes(rt));
  app.route('/admin', fileAdminRoutes(rt.files));
  app.route('/admin/flows', adminFlowRoutes(rt));
  app.route('/admin/settings', adminSettingsRoutes(config));
  app.route('/admin/audit', adminAuditRoutes(rt.secrets.audit));

  app.route('/', flowRoutes(rt));
  mountOpenApi(app, rt.ops, { version, publicUrl: config.publicUrl, routePrefix: prefix });
  // Before the static files, which answer /demo too: the page's relative links need /demo/.
  app.get('/demo', (c) => c.redirect(`${prefix}/demo/index.html`));
  app.get('/demo/', (c) => c.redirect(`${prefix}/demo/index.html`));
  app.use('/demo/*', serveStatic({ root: PACKAGE_ROOT, rewriteRequestPath: (p) => p }));
  mountUnmatched(app, prefix);
  app.onError((e, c) => failure(c, 'request', toOpError(e)));
  return app;
}
