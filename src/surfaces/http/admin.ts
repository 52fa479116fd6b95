import { Hono } from 'hono';
import { OpError } from '../../core/errors.js';
import { scrub } from '../../core/redact.js';
import type { OpRuntime } from '../../ops/run-op.js';
import { adminState } from '../../sessions/admin-state.js';
import {
  checkSessionDirName,
  hasSessionData,
  removeSessionData,
  sessionDirNames,
} from '../../sessions/session-dirs.js';
import type { Session } from '../../sessions/session.js';
import { settingsView } from '../../sessions/settings.js';
import type { SessionRecord } from '../../sessions/store.js';
import { nameParam, routeDocs } from './route-docs.js';

const operatorDoc = routeDocs('admin', 'operator');
const SESSION = [nameParam('name', 'The session')];

/** What a session holds on disk, for the list: its flows, its files, the bytes of the kept ones. */
async function holdings(rt: OpRuntime, name: string) {
  const files = await rt.files.list(name).catch(() => []);
  const flows = await rt.flows.libraryFlows(name).catch(() => []);
  const keptBytes = files.filter((f) => f.kept).reduce((n, f) => n + f.size, 0);
  return { flows: flows.length, files: files.length, kept_bytes: keptBytes };
}

/**
 * What the operator sees of a session: enough to decide to end or forget it. URLs come scrubbed of
 * credentials and of the values typed from secrets (a record from an older server may hold them).
 */
function summary(record: SessionRecord, live: Session | undefined, now: number) {
  const lastUrl = record.lastUrl === undefined ? undefined : scrub(record.lastUrl, live?.bound);
  const endedBy = live?.hasBrowser() ? undefined : record.browserRecord?.ended?.by;
  return {
    name: record.name,
    state: adminState({
      busy: live?.busy ?? false,
      hasBrowser: live?.hasBrowser() ?? false,
      browserState: record.browserState,
      endedBy,
    }),
    ended_by: endedBy,
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
    orphan: false,
  };
}

/**
 * The admin API (DESIGN §13): every session (and every session directory on disk), one session's
 * detail with its browser record, end a browser, delete a finished session's data, forget a
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

  admin.get(
    '/sessions',
    operatorDoc({
      id: 'admin_sessions_list',
      summary: 'Every session, stored or on disk, with what it holds',
      answers: { 200: { description: 'The sessions, the store and the browser count' } },
    }),
    async (c) => {
      const now = Date.now();
      const records = await sessions.records();
      const named = new Set(records.map((r) => r.name));
      const orphans = (await sessionDirNames(sessions.config.dataDir)).filter((n) => !named.has(n));
      const rows = [
        ...(await Promise.all(
          records.map(async (r) => {
            const live = sessions.find(r.name);
            return { ...summary(r, live, now), ...(await holdings(rt, r.name)) };
          }),
        )),
        ...(await Promise.all(
          orphans.map(async (name) => ({
            name,
            orphan: true,
            state: 'closed',
            ...(await holdings(rt, name)),
          })),
        )),
      ].sort((a, b) => a.name.localeCompare(b.name));
      return c.json({
        store: sessions.store.kind,
        live_browsers: sessions.liveBrowsers(),
        max_sessions: sessions.config.maxSessions,
        sessions: rows,
      });
    },
  );

  admin.get(
    '/sessions/:name',
    operatorDoc({
      id: 'admin_session_get',
      summary: 'One session: settings, capabilities sent with their sources, browser record, tabs',
      parameters: SESSION,
      answers: { 200: { description: 'The session' } },
      fails: [404],
    }),
    async (c) => {
      const { live, record } = await known(c.req.param('name'));
      const tabs = live?.browser?.tabs().map((t) => ({ id: t.id, url: t.url() }));
      // Tab URLs and capabilities are the browser's own: scrubbed like every other text emitted.
      const body = {
        ...summary(record, live, Date.now()),
        settings: settingsView(record.settings),
        running: live?.hasBrowser() ? live.browser?.running() : undefined,
        capabilities: live?.hasBrowser() ? live.browser?.sentCapabilities?.() : undefined,
        browser_record: record.browserRecord,
        ...(await holdings(rt, record.name)),
        tabs,
        pointer: record.pointer,
        actions: record.counter,
        created_at: new Date(record.createdAt).toISOString(),
        last_active_at: new Date(record.lastActiveAt).toISOString(),
        log: `${sessions.config.routePrefix}/logs/${encodeURIComponent(record.name)}`,
        viewer: `${sessions.config.routePrefix}/viewer?session=${encodeURIComponent(record.name)}`,
      };
      return c.json(scrub(body, live?.bound));
    },
  );

  admin.delete(
    '/sessions/:name/browser',
    operatorDoc({
      id: 'admin_session_browser_end',
      summary: 'End a session’s browser (the session stays)',
      parameters: SESSION,
      answers: { 200: { description: 'ended says whether a browser was open' } },
      fails: [404],
    }),
    async (c) => {
      const { live } = await known(c.req.param('name'));
      const ended = live ? await sessions.closeBrowser(live, 'operator') : false;
      if (live) await sessions.persist(live);
      return c.json({ ok: true, ended });
    },
  );

  admin.delete(
    '/sessions/:name/data',
    operatorDoc({
      id: 'admin_session_data_delete',
      summary: 'Delete a finished session’s data on disk (files, flows, logs)',
      parameters: SESSION,
      answers: { 200: { description: 'What was removed' } },
      fails: [400, 404, 409],
    }),
    async (c) => {
      const name = checkSessionDirName(c.req.param('name'));
      const live = sessions.find(name);
      if (live?.busy || live?.hasBrowser()) {
        throw new OpError(
          'not_actionable',
          `Session "${name}" still has its browser ${live.busy ? 'running an op' : 'open'}, so its files are in use. End it first (DELETE /admin/sessions/${name}/browser), then delete its data.`,
        );
      }
      const remembered = !!live || !!(await sessions.store.load(name));
      if (!remembered && !(await hasSessionData(sessions.config.dataDir, name))) {
        throw new OpError(
          'session_not_found',
          `No session "${name}" (live, stored or on disk). GET /admin/sessions lists them.`,
        );
      }
      const removed = await removeSessionData(sessions.config.dataDir, name);
      return c.json({ ok: true, removed });
    },
  );

  admin.delete(
    '/sessions/:name',
    operatorDoc({
      id: 'admin_session_forget',
      summary: 'Forget a session’s stored record',
      parameters: SESSION,
      answers: { 200: { description: 'Forgotten' } },
      fails: [404],
    }),
    async (c) => {
      const name = c.req.param('name');
      await known(name);
      await sessions.forget(name);
      return c.json({ ok: true, forgotten: name });
    },
  );

  return admin;
}
