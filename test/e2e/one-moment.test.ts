// Browser behaviour: the answer describes one moment: settling after an act.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LogLine } from '../../src/logs/log-line.js';
import { SETTLE_RULES } from '../../src/ops/settle-table.js';
import type { Changes } from '../../src/ops/track.js';
import { startHarness, type Harness } from '../helpers/harness.js';

// The answer describes one moment (issue 17): page, notes and data.changes are all taken after
// the last wait the op did, so an expect that waited for the page never contradicts changes.

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const open = (page: string) => h.op('goto', { url: `${h.server.PREFIX}/${page}` });
const changesOf = (body: { data?: Record<string, unknown> }) =>
  (body.data?.changes ?? {}) as Changes;

/** The settle phase the log holds for one action, in ms. */
async function settleMsOf(actionId: string | undefined): Promise<number> {
  await h.app.runtime.logs!.flush();
  const text = readFileSync(join(h.dataDir, 'logs', 't', 'events.jsonl'), 'utf8');
  const line = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as LogLine)
    .find((l) => l.action_id === actionId);
  const settleMs = line?.phases?.settle;
  assert.ok(settleMs !== undefined, `no settle phase logged for ${actionId}`);
  return settleMs;
}

/**
 * The settle did not hold for the driver to hear a navigation (settle-table.ts navigation_unheard):
 * that row holds for driverCatchUpMs, so a settle phase shorter than it did not take the row.
 */
async function assertNoCatchUp(actionId: string | undefined): Promise<void> {
  const settleMs = await settleMsOf(actionId);
  assert.ok(settleMs < SETTLE_RULES.driverCatchUpMs, `settle took ${settleMs} ms`);
}

describe('the answer describes one moment', () => {
  test('a submit that navigates 150 ms later reports the new page, navigated', async () => {
    h.server.setContent(
      '/delayed-login.html',
      `<title>Sign in</title>
       <form id=f><label>Email <input name=email></label><button>Sign in</button></form>
       <script>
         document.querySelector('#f').addEventListener('submit', (e) => {
           e.preventDefault();
           setTimeout(() => { location.href = 'delayed-dashboard.html'; }, 150);
         });
       </script>`,
    );
    h.server.setContent(
      '/delayed-dashboard.html',
      `<title>Dashboard</title><h1>Welcome back</h1><p>Three invoices are due this week.</p>`,
    );
    await open('delayed-login.html');
    const r = await h.op('click', {
      target: { role: 'button', name: 'Sign in' },
      expect: { url_contains: 'dashboard' },
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(r.body.verification.status, 'passed');
    assert.match(r.body.page!.url, /delayed-dashboard\.html$/);
    assert.equal(r.body.page!.title, 'Dashboard');
    const changes = changesOf(r.body);
    assert.equal(changes.no_change, undefined, JSON.stringify(changes));
    assert.match(changes.added ?? '', /Three invoices are due this week/);
    assert.ok(r.body.notes?.includes('navigated'), JSON.stringify(r.body.notes));
  });

  test('a click whose handler navigates 400 ms later, with no expect, answers on the new page', async () => {
    h.server.setContent(
      '/deferred-login.html',
      `<title>Sign in</title>
       <button onclick="setTimeout(() => { location.href = 'deferred-home.html'; }, 400)">Sign in</button>
       <button onclick="this.dataset.pressed = 1">Help</button>
       <script>setInterval(() => {}, 100); setTimeout(function poll() { setTimeout(poll, 200); }, 50);</script>`,
    );
    h.server.setContent('/deferred-home.html', `<title>Home</title><p>Two messages wait.</p>`);
    await open('deferred-login.html');
    const r = await h.op('click', { target: { role: 'button', name: 'Sign in' } });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.match(r.body.page!.url, /deferred-home\.html$/, JSON.stringify(r.body));
    assert.ok(r.body.notes?.includes('navigated'), JSON.stringify(r.body.notes));
    assert.match(changesOf(r.body).added ?? '', /Two messages wait/);
    // The page's own poll, begun before the click, is not the click's: it holds no settle.
    await open('deferred-login.html');
    const help = await h.op('click', { target: { role: 'button', name: 'Help' } });
    assert.equal(help.body.ok, true, JSON.stringify(help.body.error));
    const settleMs = await settleMsOf(help.body.action_id);
    assert.ok(settleMs < SETTLE_RULES.deferredMs, `settle took ${settleMs} ms`);
  });

  test("a page's own polls (an interval, an async sleep loop, an animation loop) hold no settle", async () => {
    // Each sets short timers from a callback begun at load: none of them is the click's.
    h.server.setContent(
      '/busy-polls.html',
      `<title>Polls</title>
       <button onclick="this.dataset.pressed = 1">Help</button>
       <script>
         setInterval(() => setTimeout(() => {}, 100), 120);
         const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
         (async () => { for (;;) { await sleep(150); await Promise.resolve(); } })();
         requestAnimationFrame(function frame() { setTimeout(() => {}, 16); requestAnimationFrame(frame); });
       </script>`,
    );
    await open('busy-polls.html');
    const help = await h.op('click', { target: { role: 'button', name: 'Help' } });
    assert.equal(help.body.ok, true, JSON.stringify(help.body.error));
    const settleMs = await settleMsOf(help.body.action_id);
    assert.ok(settleMs < SETTLE_RULES.deferredMs, `settle took ${settleMs} ms`);
  });

  test('a route change by timer 700 ms after the click, with no request, shows the new route', async () => {
    h.server.setContent(
      '/timer-route.html',
      `<title>Inbox</title>
       <main id=app><h1>Inbox</h1><button id=go>Open settings</button></main>
       <script>
         document.querySelector('#go').addEventListener('click', () => {
           setTimeout(() => {
             history.pushState({}, '', '#/settings');
             document.title = 'Settings';
             document.querySelector('#app').innerHTML =
               '<h1>Settings</h1><p>Notifications are on for every folder.</p>';
           }, 700);
         });
       </script>`,
    );
    await open('timer-route.html');
    const requests = h.server.requests.length;
    const r = await h.op('click', {
      target: { role: 'button', name: 'Open settings' },
      expect: { text_visible: 'Notifications are on' },
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(r.body.verification.status, 'passed');
    const asked = h.server.requests.slice(requests).filter((r) => r !== '/favicon.ico');
    assert.deepEqual(asked, [], 'the route change asked no server');
    assert.match(r.body.page!.url, /#\/settings$/);
    assert.equal(r.body.page!.title, 'Settings');
    const changes = changesOf(r.body);
    assert.equal(changes.no_change, undefined, JSON.stringify(changes));
    assert.match(changes.added ?? '', /Notifications are on for every folder/);
    assert.ok(r.body.notes?.includes('url_changed'), JSON.stringify(r.body.notes));
    assert.ok(!r.body.notes?.includes('navigated'), JSON.stringify(r.body.notes));
  });

  test('a pushState route change answers url_changed with the new route, without the catch-up wait', async () => {
    h.server.setContent(
      '/push-route.html',
      `<title>Home</title>
       <main id=app><h1>Home</h1><button id=go>Open route two</button></main>
       <script>
         document.querySelector('#go').addEventListener('click', () => {
           history.pushState({}, '', '/route2');
           document.querySelector('#app').innerHTML =
             '<h1>Route two</h1><p>Rendered by the router.</p>';
         });
       </script>`,
    );
    await open('push-route.html');
    const r = await h.op('click', { target: { role: 'button', name: 'Open route two' } });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.match(r.body.page!.url, /\/route2$/);
    assert.match(changesOf(r.body).added ?? '', /Rendered by the router/);
    assert.ok(r.body.notes?.includes('url_changed'), JSON.stringify(r.body.notes));
    assert.ok(!r.body.notes?.includes('navigated'), JSON.stringify(r.body.notes));
    await assertNoCatchUp(r.body.action_id);
  });

  test('a click whose navigation the page cancels answers without the catch-up wait', async () => {
    h.server.setContent(
      '/guarded.html',
      `<title>Draft</title>
       <main id=app><button id=go>Leave</button></main>
       <script>
         document.querySelector('#go').addEventListener('click', () => {
           // An unsaved-changes guard: the navigation is cancelled and a banner says why.
           navigation.addEventListener('navigate', (e) => e.preventDefault(), { once: true });
           location.href = 'elsewhere.html';
           document.querySelector('#app').insertAdjacentHTML('beforeend', '<p>Save your draft first.</p>');
         });
       </script>`,
    );
    await open('guarded.html');
    const requests = h.server.requests.length;
    const r = await h.op('click', { target: { role: 'button', name: 'Leave' } });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.match(r.body.page!.url, /guarded\.html$/);
    assert.match(changesOf(r.body).added ?? '', /Save your draft first/);
    assert.ok(!r.body.notes?.includes('navigated'), JSON.stringify(r.body.notes));
    assert.ok(!h.server.requests.slice(requests).includes('/elsewhere.html'), 'nothing was loaded');
    await assertNoCatchUp(r.body.action_id);
  });

  test('a re-render just after the expect held is what changes and page.title describe', async () => {
    h.server.setContent(
      '/rerender.html',
      `<title>Search</title>
       <main><button id=go>Search</button><p id=status>Idle</p><ul id=rows></ul></main>
       <script>
         document.querySelector('#go').addEventListener('click', () => {
           setTimeout(() => {
             document.querySelector('#status').textContent = 'Results ready';
             setTimeout(() => {
               document.title = 'Results (2)';
               document.querySelector('#rows').innerHTML = '<li>Invoice 1041</li><li>Invoice 1042</li>';
             }, 20);
           }, 400);
         });
       </script>`,
    );
    await open('rerender.html');
    const r = await h.op('click', {
      target: { role: 'button', name: 'Search' },
      expect: { text_visible: 'Results ready' },
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(r.body.verification.status, 'passed');
    const changes = changesOf(r.body);
    assert.equal(changes.no_change, undefined, JSON.stringify(changes));
    assert.match(changes.added ?? '', /Results ready/);
    assert.match(changes.added ?? '', /Invoice 1042/);
    assert.equal(r.body.page!.title, 'Results (2)');
    assert.ok(r.body.notes?.includes('dom_changed'), JSON.stringify(r.body.notes));
  });
});

describe("the runner's phases", () => {
  test('the session log names each phase an acting op went through, in order; the answer does not', async () => {
    h.server.setContent(
      '/phases.html',
      `<button onclick="this.textContent = 'Saved'">Save</button>`,
    );
    await open('phases.html');
    const r = await h.op('click', {
      target: { role: 'button', name: 'Save' },
      expect: { text_visible: 'Saved' },
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal('phases' in r.body, false, 'phases stay out of the answer');
    await h.app.runtime.logs!.flush();
    const text = readFileSync(join(h.dataDir, 'logs', 't', 'events.jsonl'), 'utf8');
    const line = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LogLine)
      .find((l) => l.action_id === r.body.action_id)!;
    const phases = line.phases ?? {};
    assert.deepEqual(Object.keys(phases), [
      'prepare',
      'observe',
      'previous_frame',
      'act',
      'settle',
      'side_effects',
      'verify',
      'settle_after_wait',
      'changes',
      'finish',
    ]);
    for (const ms of Object.values(phases)) assert.ok(ms >= 0 && Number.isFinite(ms), String(ms));
  });
});
