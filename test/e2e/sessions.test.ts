// Browser behaviour: sessions: isolation, a killed browser, close and open, the op queue.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserRecord } from '../../src/sessions/browser-record.js';
import { BACKEND } from '../helpers/backend.js';
import { killBrowsers } from '../helpers/browser-process.js';
import { endGridBrowsers, testGridUrl } from '../helpers/grid.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pageValue } from '../helpers/page.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';

let redis: RedisServer;
before(async () => {
  redis = await startRedis();
});
after(() => redis.stop());

// The same behaviour whichever store keeps the records (DESIGN §6).
for (const store of ['memory', 'redis'] as const) {
  describe(`sessions (${store} store)`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({
        maxSessions: 2,
        ...(store === 'redis' ? { redisUrl: redis.url } : {}),
      });
    });
    after(() => h.close());

    const value = (session: string, js: string) => pageValue(h, js, session);

    test('two sessions keep their own cookies, storage and tabs; a third is refused by MAX_SESSIONS', async () => {
      const page = `${h.server.PREFIX}/login.html`;
      for (const s of [`a-${store}`, `b-${store}`]) {
        const opened = await h.op('goto', { url: page }, s);
        assert.equal(opened.body.ok, true, JSON.stringify(opened.body.error));
      }
      await value(`a-${store}`, "document.cookie = 'who=a'; localStorage.setItem('k', 'a'); 1");
      await h.op('tab_new', {}, `a-${store}`);
      assert.equal(await value(`b-${store}`, 'document.cookie'), '');
      assert.equal(await value(`b-${store}`, "localStorage.getItem('k')"), null);
      const tabs = (await h.op('tab_list', {}, `b-${store}`)).body.data?.tabs as unknown[];
      assert.equal(tabs.length, 1);
      // Each session's page is the one shown: none waits hidden behind another's (a Firefox shared
      // by sessions gives each a window of its own).
      assert.equal(await value(`a-${store}`, 'document.visibilityState'), 'visible');
      assert.equal(await value(`b-${store}`, 'document.visibilityState'), 'visible');

      const third = await h.op('goto', { url: page }, `c-${store}`);
      assert.equal(third.status, 429);
      assert.equal(third.body.error?.kind, 'session_limit');
      assert.match(third.body.error!.message, /MAX_SESSIONS/);
      // Nothing was closed to make room.
      assert.equal((await h.op('status', {}, `a-${store}`)).body.data?.browser, 'open');
      assert.equal((await h.op('status', {}, `b-${store}`)).body.data?.browser, 'open');
      await h.op('close', {}, `a-${store}`);
      // Closing one session's browser leaves the other's as it was.
      assert.equal(await value(`b-${store}`, 'document.cookie'), '');
      await h.op('close', {}, `b-${store}`);
    });

    test('a killed browser answers backend once, then comes back on the last URL and says what was lost', async () => {
      const s = `crash-${store}`;
      const url = `${h.server.PREFIX}/login.html`;
      await h.op('goto', { url }, s);
      // On the Grid the browser runs on a node: the Grid ending it (reaped, node lost) is the crash.
      const ended =
        BACKEND === 'grid' ? await endGridBrowsers(await testGridUrl(), s) : killBrowsers();
      assert.ok(ended >= 1, 'no browser to end');
      await h.statusWhen(s, (st) => st.browser !== 'open');
      const hit = await h.op('find', { target: { role: 'button' } }, s);
      assert.equal(hit.body.error?.kind, 'backend', JSON.stringify(hit.body));
      assert.equal(hit.status, 503);
      const seen = (await (await h.request(`/admin/sessions/${s}`)).json()) as {
        browser_record?: BrowserRecord;
      };
      assert.equal(seen.browser_record?.ended?.by, BACKEND === 'grid' ? 'grid' : 'crashed');
      const next = await h.op('find', { target: { role: 'button', name: 'Sign in' } }, s);
      assert.equal(next.body.ok, true, JSON.stringify(next.body.error));
      assert.equal(next.body.page?.url, url);
      const note = next.body.notes?.find((n) => n.startsWith('recovered'));
      assert.ok(note, JSON.stringify(next.body.notes));
      assert.match(note, /cookies and logins/);
      await h.op('close', {}, s);
    });

    test('close keeps the session; open resumes the last URL and open fresh does not', async () => {
      const s = `life-${store}`;
      const url = `${h.server.PREFIX}/login.html`;
      await h.op('goto', { url }, s);
      const closed = await h.op('close', {}, s);
      assert.equal(closed.body.data?.closed, true);
      const st = await h.op('status', {}, s);
      assert.equal(st.body.data?.browser, 'closed');
      assert.equal(st.body.data?.last_url, url);
      const resumed = await h.op('open', {}, s);
      assert.equal(resumed.body.page?.url, url, JSON.stringify(resumed.body));
      await h.op('close', {}, s);
      const fresh = await h.op('open', { fresh: true }, s);
      assert.equal(fresh.body.page?.url, 'about:blank');
      await h.op('close', {}, s);
    });

    test('action ids keep counting across close and open', async () => {
      const s = `ids-${store}`;
      const ids = [] as string[];
      ids.push((await h.op('status', {}, s)).body.action_id);
      ids.push((await h.op('open', { fresh: true }, s)).body.action_id);
      await h.op('close', {}, s);
      ids.push((await h.op('status', {}, s)).body.action_id);
      assert.deepEqual(ids, [`${s}-1`, `${s}-2`, `${s}-4`]);
    });

    test('settings cascade: server default < session (open) < call', async () => {
      const s = `cascade-${store}`;
      await h.op('open', { fresh: true, default_timeout: 1200, width: 900, height: 700 }, s);
      await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, s);
      const sessionWide = await h.op('click', { target: { text: 'nowhere to be found' } }, s);
      assert.equal(sessionWide.body.timing?.timeout_ms, 1200);
      const perCall = await h.op('click', { target: { text: 'nowhere' }, timeout: 400 }, s);
      assert.equal(perCall.body.timing?.timeout_ms, 400);
      assert.deepEqual(await value(s, '[innerWidth, innerHeight]'), [900, 700]);
      const st = await h.op('status', {}, s);
      assert.deepEqual((st.body.data?.settings as { viewport: unknown }).viewport, {
        width: 900,
        height: 700,
      });
      await h.op('close', {}, s);
    });

    test('state_save writes cookies to the session files; open storage_state starts from them', async () => {
      const s = `state-${store}`;
      await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, s);
      await value(s, "document.cookie = 'token=kept; max-age=3600'; 1");
      const saved = await h.op('state_save', { name: 'login.json' }, s);
      assert.equal(saved.body.data?.cookies, 1, JSON.stringify(saved.body));
      const reopened = await h.op('open', { storage_state: 'login.json' }, s);
      assert.ok(reopened.body.notes?.some((n) => n.startsWith('restarted')));
      await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, s);
      assert.equal(await value(s, 'document.cookie'), 'token=kept');
      const missing = await h.op('open', { storage_state: 'nope.json' }, s);
      assert.equal(missing.body.error?.kind, 'invalid_argument');
      assert.match(missing.body.error!.message, /state_save/);
      await h.op('close', {}, s);
    });
  });
}

describe('an idle session', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ sessionTtl: '1s' });
  });
  after(() => h.close());

  test('releases its browser past SESSION_TTL and comes back on the last URL', async () => {
    const url = `${h.server.PREFIX}/login.html`;
    await h.op('goto', { url }, 'idle');
    await new Promise((r) => setTimeout(r, 2600));
    assert.equal((await h.op('status', {}, 'idle')).body.data?.browser, 'released');
    const seen = (await (await h.request('/admin/sessions/idle')).json()) as {
      state: string;
      browser_record?: BrowserRecord;
    };
    assert.equal(seen.state, 'ended', 'the operator sees the idle release as an end');
    assert.equal(seen.browser_record?.ended?.by, 'idle');
    const back = await h.op('find', { target: { role: 'button', name: 'Sign in' } }, 'idle');
    assert.equal(back.body.ok, true, JSON.stringify(back.body.error));
    assert.equal(back.body.page?.url, url);
    assert.ok(
      back.body.notes?.some((n) => n.startsWith('reopened')),
      JSON.stringify(back.body),
    );
  });
});

describe('status while an op runs', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('answers busy at once instead of waiting behind it', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 'busy');
    const slow = h.op('wait_for', { js: 'false', timeout: 3000 }, 'busy');
    await h.statusWhen('busy', (st) => st.busy === true);
    const started = Date.now();
    const st = await h.op('status', {}, 'busy');
    assert.equal(st.body.data?.busy, true);
    assert.ok(Date.now() - started < 2000, 'status waited behind the running op');
    await slow;
  });

  test('an op whose arguments cannot parse is refused at once, not after the running op', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 'busy');
    const slow = h.op('wait_for', { js: 'false', timeout: 3000 }, 'busy');
    await h.statusWhen('busy', (st) => st.busy === true);
    const started = Date.now();
    const bad = await h.op('press', { diff: true }, 'busy');
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.equal(bad.body.error?.kind, 'invalid_argument');
    assert.match(bad.body.error!.message, /press: .*key/);
    assert.ok(Date.now() - started < 2000, 'the refusal waited behind the running op');
    // A close that cannot parse ends nothing: the running op goes on to its own answer.
    const badClose = await h.op('close', { now: true }, 'busy');
    assert.equal(badClose.status, 400, JSON.stringify(badClose.body));
    const waited = await slow;
    assert.equal(waited.body.error?.kind, 'timeout', JSON.stringify(waited.body));
  });
});

describe('an op whose caller has gone', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    h.server.setContent(
      '/counter.html',
      `<title>Counter</title><button onclick="fetch('/clicked?n=' + Date.now())">Count</button>`,
    );
  });
  after(() => h.close());

  const clicks = () => h.server.requests.filter((r) => r.startsWith('/clicked')).length;

  test('a click whose HTTP client gave up while it queued never reaches the page; the resend is the one click', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/counter.html` }, 'gone');
    const holding = h.op('wait_for', { ms: 3000 }, 'gone');
    await h.statusWhen('gone', (st) => st.busy === true);
    const click = { target: { role: 'button', name: 'Count' } };
    await assert.rejects(
      h.request('/browser/click', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-key': 'gone' },
        body: JSON.stringify(click),
        signal: AbortSignal.timeout(800),
      }),
    );
    await holding;
    const resent = await h.op('click', click, 'gone');
    assert.equal(resent.body.ok, true, JSON.stringify(resent.body.error));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(clicks(), 1, 'the abandoned click ran as well');
    const log = await h.request('/logs/gone');
    const text = await log.text();
    assert.match(text, /not started: the caller went away/i);
  });
});
