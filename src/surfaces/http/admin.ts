import { Hono } from 'hono';
import { OpError } from '../../core/errors.js';
import { scrub } from '../../core/redact.js';
import type { OpRuntime } from '../../ops/run-op.js';
import type { Session } from '../../sessions/session.js';
import { settingsView } from '../../sessions/settings.js';
import type { SessionRecord } from '../../sessions/store.js';

/**
 * What the operator sees of a session: enough to decide to end or forget it. URLs come scrubbed of
 * credentials and of the values typed from secrets (a record from an older server may hold them).
 */
function summary(record: SessionRecord, live: Session | undefined, now: number) {
  const lastUrl = record.lastUrl === undefined ? undefined : scrub(record.lastUrl, live?.bound);
  return {
    name: record.name,
    browser: live?.hasBrowser()
      ? 'open'
      : record.browserState === 'open'
        ? 'closed'
        : record.browserState,
    busy: live?.busy ?? false,
    backend: record.settings.backend,
    last_url: lastUrl,
    idle_ms: now - record.lastActiveAt,
    ops: record.ops,
  };
}

/**
 * The admin API (DESIGN §13): every session, one session's detail, end a browser, forget a
 * session. Mounted under /admin behind the operator guard; later rooms add their routes beside.
 */
export function adminRoutes(rt: OpRuntime): Hono {
  const { sessions } = rt;
  const admin = new Hono();

  const known = async (name: string) => {
    const live = sessions.find(name);
    const record = live?.record() ?? (await sessions.store.load(name));
    if (!record) {
      throw new OpError(
        'session_not_found',
        `No session "${name}" (live or stored). GET /admin/sessions lists them.`,
      );
    }
    return { live, record };
  };

  admin.get('/sessions', async (c) => {
    const now = Date.now();
    const records = await sessions.records();
    return c.json({
      store: sessions.store.kind,
      live_browsers: sessions.liveBrowsers(),
      max_sessions: sessions.config.maxSessions,
      sessions: records.map((r) => summary(r, sessions.find(r.name), now)),
    });
  });

  admin.get('/sessions/:name', async (c) => {
    const { live, record } = await known(c.req.param('name'));
    const tabs = live?.browser?.tabs().map((t) => ({ id: t.id, url: t.url() }));
    // Tab URLs and capabilities are the browser's own: scrubbed like every other text emitted.
    const body = {
      ...summary(record, live, Date.now()),
      settings: settingsView(record.settings),
      running: live?.hasBrowser() ? live.browser?.running() : undefined,
      capabilities: live?.hasBrowser() ? live.browser?.sentCapabilities?.() : undefined,
      tabs,
      pointer: record.pointer,
      actions: record.counter,
      created_at: new Date(record.createdAt).toISOString(),
      last_active_at: new Date(record.lastActiveAt).toISOString(),
      log: `/logs/${encodeURIComponent(record.name)}`,
    };
    return c.json(scrub(body, live?.bound));
  });

  admin.delete('/sessions/:name/browser', async (c) => {
    const { live } = await known(c.req.param('name'));
    const ended = live ? await sessions.closeBrowser(live) : false;
    if (live) await sessions.persist(live);
    return c.json({ ok: true, ended });
  });

  admin.delete('/sessions/:name', async (c) => {
    const name = c.req.param('name');
    await known(name);
    await sessions.forget(name);
    return c.json({ ok: true, forgotten: name });
  });

  return admin;
}
