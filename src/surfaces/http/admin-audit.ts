import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AuditedBind, BindAudit } from '../../secrets/audit.js';
import { originOf } from '../../secrets/origins.js';
import { routeDocs } from './route-docs.js';

const operatorDoc = routeDocs('admin', 'operator');

/** A comment line every 15 s keeps proxies from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

/** One audit entry as the operator reads it: who, where (the page's origin only), never a value. */
export type AuditEntry = Omit<AuditedBind, 'event'>;

/** Field by field, so nothing a caller put on a record beyond its type reaches the operator. */
export function auditEntry(bind: AuditedBind): AuditEntry {
  return {
    at: bind.at,
    session: bind.session,
    op: bind.op,
    ...(bind.flow !== undefined ? { flow: bind.flow } : {}),
    ...(bind.step !== undefined ? { step: bind.step } : {}),
    secret: bind.secret,
    key: bind.key,
    // A path or query can carry a session id or a one-time code: the origin is what is reviewed.
    ...(bind.url !== undefined ? { url: originOf(bind.url) } : {}),
    allowed: bind.allowed,
    ...(bind.reason !== undefined ? { reason: bind.reason } : {}),
  };
}

/** Refusals first (what an operator acts on), then newest first. */
export function auditEntries(audit: BindAudit): AuditEntry[] {
  const newestFirst = audit.recent().reverse();
  return [...newestFirst.filter((b) => !b.allowed), ...newestFirst.filter((b) => b.allowed)].map(
    auditEntry,
  );
}

/** `GET /admin/audit` and `GET /admin/audit/events` (SSE), mounted behind the operator guard. */
export function adminAuditRoutes(audit: BindAudit): Hono {
  const app = new Hono();
  app.get(
    '/',
    operatorDoc({
      id: 'admin_audit',
      summary: 'Recent secret binds, refusals first, never a value',
      answers: { 200: { description: 'The audit entries and the ring’s capacity' } },
    }),
    (c) => c.json({ capacity: audit.capacity, entries: auditEntries(audit) }),
  );
  app.get(
    '/events',
    operatorDoc({
      id: 'admin_audit_events',
      summary: 'Secret binds as they happen (server-sent events named bind)',
      answers: {
        200: {
          description: 'An event stream',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
      },
    }),
    (c) =>
      streamSSE(c, async (stream) => {
        // Writes go one after another: a bind and a heartbeat never interleave on the wire.
        let writing = Promise.resolve();
        const send = (text: () => Promise<unknown>) => {
          writing = writing.then(text).then(
            () => undefined,
            () => stream.abort(),
          );
        };
        const unsubscribe = audit.onBind((bind) =>
          send(() => stream.writeSSE({ event: 'bind', data: JSON.stringify(auditEntry(bind)) })),
        );
        const heartbeat = setInterval(
          () => send(() => stream.write(': heartbeat\n\n')),
          HEARTBEAT_MS,
        );
        const closed = new Promise<void>((resolve) => stream.onAbort(resolve));
        // A client that goes away ends the stream, and with it the subscription and the timer.
        c.req.raw.signal.addEventListener('abort', () => stream.abort(), { once: true });
        try {
          send(() => stream.write(': connected\n\n'));
          await closed;
        } finally {
          clearInterval(heartbeat);
          unsubscribe();
        }
      }),
  );
  return app;
}
