// Server surface, also on the Grid: a restart with the Redis store re-attaches what it can (the Grid: the same browser).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { ActionResult } from '../../src/core/result.js';
import type { BrowserRecord } from '../../src/sessions/browser-record.js';
import { BACKEND, TEST_BROWSER, backendEnv } from '../helpers/backend.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { gridBrowsers } from '../helpers/grid.js';
import { freePort } from '../helpers/ports.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';

const MAIN = fileURLToPath(new URL('../../src/surfaces/cli/main.js', import.meta.url));

/** A real `swiftbrowse serve` process, as an operator would run it. */
async function serve(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [MAIN, 'serve'], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      if (i > 150 || child.exitCode !== null) throw new Error('swiftbrowse serve did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function op(base: string, name: string, args: unknown, session = 'keep') {
  const r = await fetch(`${base}/browser/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-session-key': session },
    body: JSON.stringify(args),
  });
  return (await r.json()) as ActionResult;
}

describe('a restart with the Redis store', () => {
  let redis: RedisServer;
  let fixtures: FixtureServer;
  const dataDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-restart-'));
  before(async () => {
    redis = await startRedis();
    fixtures = await startFixtureServer();
  });
  after(async () => {
    await fixtures.close();
    await redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('keeps every session’s settings, last URL, pointer and action count; the next op carries on', async () => {
    const env: Record<string, string> = {
      REDIS_URL: redis.url,
      DATA_DIR: dataDir,
      ...backendEnv(),
    };
    // On the Grid the browser outlives the server and is re-attached; locally a new one opens.
    const gridUrl = env.GRID_URL;
    assert.equal(Boolean(gridUrl), BACKEND === 'grid', 'the grid arm names its Grid');
    const browsersOf = async () =>
      gridUrl ? (await gridBrowsers(gridUrl)).filter((b) => b.session === 'keep') : [];
    const first = await serve(env);
    const url = `${fixtures.PREFIX}/login.html`;
    await op(first.url, 'open', { width: 1000, height: 700, locale: 'de-DE' });
    await op(first.url, 'goto', { url });
    const marked = await op(first.url, 'evaluate', {
      script: '(window.__mark = 42, navigator.language)',
    });
    assert.equal((marked.data as { result: string }).result, 'de-DE');
    const hovered = await op(first.url, 'hover', { target: { role: 'button', name: 'Sign in' } });
    assert.equal(hovered.ok, true, JSON.stringify(hovered.error));
    const before = await browsersOf();
    await first.stop();
    assert.deepEqual(await browsersOf(), before, 'the stopped server left its Grid browser');

    const second = await serve(env);
    try {
      const read = async () =>
        (await (await fetch(`${second.url}/admin/sessions/keep`)).json()) as {
          pointer?: { x: number; y: number };
          settings: { locale: string };
          browser_record?: BrowserRecord;
        };
      const detail = await read();
      assert.equal(detail.settings.locale, 'de-DE');
      // Redis kept the browser record the first server wrote: what was asked and what ran.
      const kept = detail.browser_record;
      assert.deepEqual(kept?.asked?.window, { width: 1000, height: 700 });
      assert.equal(kept?.ran?.backend, BACKEND === 'grid' ? 'grid' : 'playwright');
      assert.ok(kept?.sent?.capabilities.length, JSON.stringify(kept));
      assert.equal(kept?.ended, undefined, 'a stopped server ended nothing');
      assert.ok(detail.pointer && detail.pointer.x > 0, JSON.stringify(detail));

      const status = await op(second.url, 'status', {});
      assert.equal(status.data?.last_url, url);
      assert.deepEqual((status.data?.settings as { viewport: unknown }).viewport, {
        width: 1000,
        height: 700,
      });
      assert.equal(status.action_id, 'keep-5');
      const next = await op(second.url, 'evaluate', {
        script: '[navigator.language, innerWidth, innerHeight, window.__mark ?? null]',
      });
      assert.equal(next.ok, true, JSON.stringify(next.error));
      assert.equal(next.action_id, 'keep-6');
      assert.equal(next.page?.url, url);
      if (BACKEND === 'grid') {
        // The same browser, its page untouched: same WebDriver session, no second browser.
        assert.equal(before.length, 1, JSON.stringify(before));
        assert.deepEqual(await browsersOf(), before);
        assert.deepEqual((next.data as { result: unknown }).result, ['de-DE', 1000, 700, 42]);
        assert.ok(
          next.notes?.some((n) => n.startsWith('reattached: the server restarted')),
          JSON.stringify(next.notes),
        );
        assert.deepEqual((await read()).pointer, detail.pointer, 'the mouse is still there');
      } else {
        // A new browser on the last URL: the old page's state is gone.
        assert.deepEqual((next.data as { result: unknown }).result, ['de-DE', 1000, 700, null]);
        assert.ok(
          next.notes?.some((n) => n.startsWith('resumed: the server restarted')),
          JSON.stringify(next.notes),
        );
      }
      // Closed, not stopped: a durable store would leave the Grid browser for a next server.
      assert.equal((await op(second.url, 'close', {})).ok, true);
      const closed = (await read()).browser_record;
      assert.equal(closed?.ended?.by, 'caller');
      // A re-attached Grid browser is the one that started before the restart.
      if (BACKEND === 'grid') assert.equal(closed?.ran?.started_at, kept?.ran?.started_at);
      // The Grid's status hears of a quit up to a second after the quit answers (seen under load).
      for (let i = 0; i < 50 && (await browsersOf()).length > 0; i++)
        await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(await browsersOf(), []);
    } finally {
      await op(second.url, 'close', {}).catch(() => undefined);
      await second.stop();
    }
  });
});

describe('the admin API', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ adminToken: 'operator-secret', token: 'caller-secret' });
  });
  after(() => h.close());

  const call = (path: string, token: string, method = 'GET') =>
    h.request(path, { method, headers: { authorization: `Bearer ${token}` } });

  test('needs the operator token: the callers’ token is not enough', async () => {
    const r = await call('/admin/sessions', 'caller-secret');
    assert.equal(r.status, 401);
    assert.match(((await r.json()) as { error: { message: string } }).error.message, /ADMIN_TOKEN/);
    assert.equal((await call('/admin/sessions', 'operator-secret')).status, 200);
  });

  test('lists sessions, shows one, ends its browser and forgets it', async () => {
    const goto = await h.request('/browser/goto', {
      method: 'POST',
      headers: {
        authorization: 'Bearer caller-secret',
        'content-type': 'application/json',
        'x-session-key': 'watched',
      },
      body: JSON.stringify({ url: `${h.server.PREFIX}/login.html` }),
    });
    assert.equal(goto.status, 200);
    const list = (await (await call('/admin/sessions', 'operator-secret')).json()) as {
      sessions: { name: string; browser: string; last_url: string; idle_ms: number }[];
    };
    const row = list.sessions.find((s) => s.name === 'watched');
    assert.equal(row?.browser, 'open');
    assert.equal(row?.last_url, `${h.server.PREFIX}/login.html`);
    assert.ok(row!.idle_ms >= 0);

    const detail = (await (await call('/admin/sessions/watched', 'operator-secret')).json()) as {
      running: { browser: string };
      tabs: unknown[];
    };
    assert.equal(detail.running.browser, TEST_BROWSER);
    assert.equal(detail.tabs.length, 1);

    const ended = await call('/admin/sessions/watched/browser', 'operator-secret', 'DELETE');
    assert.deepEqual(await ended.json(), { ok: true, ended: true });
    const forgot = await call('/admin/sessions/watched', 'operator-secret', 'DELETE');
    assert.equal(forgot.status, 200);
    const gone = await call('/admin/sessions/watched', 'operator-secret');
    assert.equal(gone.status, 404);
  });

  test('the viewer takes the operator token once and keeps it in a cookie', async () => {
    const r = await h.request('/admin/sessions?token=operator-secret', { redirect: 'manual' });
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), '/admin/sessions');
    const cookie = r.headers.get('set-cookie') ?? '';
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Strict/i);
    const again = await h.request('/admin/sessions', {
      headers: { cookie: cookie.split(';')[0] },
    });
    assert.equal(again.status, 200);
  });
});
