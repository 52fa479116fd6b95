// Browser behaviour: crashed renderers, dialog storms and other pages that fight back.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { BACKEND, skipOn } from '../helpers/backend.js';
import { ANSWER_SLACK_MS } from '../helpers/bounds.js';
import { killWorkerRenderers } from '../helpers/browser-process.js';
import { startHarness, type Harness, type OpResponse } from '../helpers/harness.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An op and how long it took to answer. */
async function timed(
  name: string,
  args: unknown,
  session: string,
): Promise<OpResponse & { ms: number }> {
  const started = Date.now();
  const r = await h.op(name, args, session);
  return { ...r, ms: Date.now() - started };
}

const WORKER_PAGE = `<!doctype html><title>Worker page</title><h1>Worker page</h1>
<script>document.cookie = 'kept=yes; path=/';
new Worker(URL.createObjectURL(new Blob(['setInterval(() => {}, 1000)'], { type: 'text/javascript' })));</script>`;

describe('a crashed tab', () => {
  test(
    'a killed renderer is backend once, naming the tab; the next op reopens it on its URL',
    { skip: skipOn('firefox', 'chromium-renderer') },
    async () => {
      const s = 'crash';
      const marker = `--swiftbrowse-fault-test=${randomUUID()}`;
      h.server.setContent('/worker.html', WORKER_PAGE);
      // On the Grid the browser is chromedriver's child, not ours: a marker on its command line finds it.
      if (BACKEND === 'grid')
        await h.op('open', { capabilities: { 'goog:chromeOptions': { args: [marker] } } }, s);
      const url = `${h.server.PREFIX}/worker.html?visit=1`;
      assert.equal((await h.op('goto', { url }, s)).body.ok, true);
      let killed = 0;
      for (let i = 0; i < 50 && killed === 0; i++) {
        killed = killWorkerRenderers(marker);
        if (!killed) await sleep(100);
      }
      assert.equal(killed, 1, 'the page renderer was found and killed');
      const killedAt = Date.now();
      // The browser tells of a crash within moments (the Grid's BiDi only by the page's realm going).
      let tabs: { id: string; crashed?: boolean }[] = [];
      while (!tabs[0]?.crashed && Date.now() - killedAt < 3000) {
        await sleep(100);
        tabs = (await h.op('status', {}, s)).body.data!.tabs as typeof tabs;
      }
      assert.equal(tabs[0].crashed, true, `status after 3 s: ${JSON.stringify(tabs)}`);
      const first = await timed('snapshot', {}, s);
      assert.equal(first.body.error?.kind, 'backend', JSON.stringify(first.body));
      assert.ok(first.ms < 3000, `answered in ${first.ms} ms`);
      assert.match(first.body.error!.message, /crashed/);
      assert.ok(first.body.error!.message.includes(url), first.body.error!.message);
      const next = await timed('snapshot', {}, s);
      assert.equal(next.body.ok, true, JSON.stringify(next.body.error));
      assert.equal(next.body.page?.url, url);
      assert.equal(next.body.page?.tab, tabs[0].id);
      assert.ok(
        next.body.notes?.some((n) => n.startsWith('tab_recovered')),
        JSON.stringify(next.body.notes),
      );
      const cookie = await h.op('evaluate', { script: 'document.cookie' }, s);
      assert.match(String((cookie.body.data as { result: string }).result), /kept=yes/);
      const after = await h.op('status', {}, s);
      assert.equal((after.body.data!.tabs as { crashed?: boolean }[])[0].crashed, undefined);
      await h.op('close', {}, s);
    },
  );

  test(
    'an op waiting on the page when its renderer dies answers backend at once',
    { skip: skipOn('firefox', 'chromium-renderer') },
    async () => {
      const s = 'inflight';
      const marker = `--swiftbrowse-fault-test=${randomUUID()}`;
      h.server.setContent('/worker.html', WORKER_PAGE);
      if (BACKEND === 'grid')
        await h.op('open', { capabilities: { 'goog:chromeOptions': { args: [marker] } } }, s);
      await h.op('goto', { url: `${h.server.PREFIX}/worker.html` }, s);
      const waiting = h.op('evaluate', { script: 'new Promise((r) => setTimeout(r, 4500))' }, s);
      await sleep(500);
      assert.equal(killWorkerRenderers(marker), 1);
      const killedAt = Date.now();
      const r = await waiting;
      assert.equal(r.body.error?.kind, 'backend', JSON.stringify(r.body));
      assert.match(r.body.error!.message, /Tab t1 .* crashed/);
      assert.ok(
        Date.now() - killedAt < 2500,
        `answered ${Date.now() - killedAt} ms after the kill`,
      );
      const next = await h.op('snapshot', {}, s);
      assert.equal(next.body.ok, true, JSON.stringify(next.body));
      await h.op('close', {}, s);
    },
  );
});

const STORM_PAGE = `<!doctype html><title>Storm</title><h1>Storm</h1><button>Poke</button>
<script>setInterval(() => alert('again'), 50);</script>`;

const BURST_PAGE = `<!doctype html><title>Burst</title><h1>Burst</h1><p id="r">waiting</p>
<button onclick="for (let i = 0; i < 50; i++) alert('burst ' + i); document.querySelector('#r').textContent = 'done'">Burst</button>
<button onclick="document.querySelector('#r').textContent = 'sure: ' + confirm('Sure?')">Ask</button>`;

const LOOP_PAGE = `<!doctype html><title>Loop</title><h1>Loop</h1><p id="r">waiting</p>
<script>for (let i = 0; i < 100000; i++) alert(i);
document.querySelector('#r').textContent = 'looped';</script>`;

/** An answer in time that names a dialog and never an internal error. */
function inTime(r: OpResponse & { ms: number }, timeoutMs: number): void {
  const text = JSON.stringify(r.body);
  assert.ok(r.ms <= timeoutMs + ANSWER_SLACK_MS, `answered in ${r.ms} ms: ${text}`);
  assert.doesNotMatch(text, /Cannot read properties|TypeError/);
  if (!r.body.ok) assert.match(r.body.error!.message, /dialog/, text);
}

describe('dialog storms', () => {
  test('a page alerting every 50 ms: goto, snapshot and click answer in time', async () => {
    const s = 'storm';
    h.server.setContent('/storm.html', STORM_PAGE);
    // Opening a Grid browser waits as long as the Grid does: only the ops on the page are timed.
    await h.op('open', {}, s);
    const goto = await timed('goto', { url: `${h.server.PREFIX}/storm.html` }, s);
    inTime(goto, 5000);
    const snap = await timed('snapshot', {}, s);
    inTime(snap, 5000);
    const click = await timed('click', { target: { role: 'button', name: 'Poke' } }, s);
    inTime(click, 5000);
    const away = await timed('goto', { url: `${h.server.PREFIX}/login.html` }, s);
    assert.equal(away.body.ok, true, JSON.stringify(away.body.error));
    assert.equal((await h.op('snapshot', {}, s)).body.ok, true);
    await h.op('close', {}, s);
  });

  test('a page raising 100,000 alerts as it loads: goto answers in time, the page runs on', async () => {
    const s = 'loop';
    h.server.setContent('/loop.html', LOOP_PAGE);
    await h.op('open', {}, s);
    // Each dialog answered from outside costs a round trip: 100,000 of them held goto for 30 s.
    const goto = await timed('goto', { url: `${h.server.PREFIX}/loop.html`, timeout: 10_000 }, s);
    inTime(goto, 10_000);
    assert.equal(goto.body.ok, true, JSON.stringify(goto.body));
    const done = await timed('assert', { text_visible: 'looped' }, s);
    assert.equal(done.body.ok, true, JSON.stringify(done.body));
    const away = await timed('goto', { url: `${h.server.PREFIX}/login.html` }, s);
    assert.equal(away.body.ok, true, JSON.stringify(away.body.error));
    await h.op('close', {}, s);
  });

  test('one click raising 50 alerts answers in time, and the next op gets past the other 49', async () => {
    const s = 'burst';
    h.server.setContent('/burst.html', BURST_PAGE);
    await h.op('goto', { url: `${h.server.PREFIX}/burst.html` }, s);
    const click = await timed('click', { target: { role: 'button', name: 'Burst' } }, s);
    inTime(click, 5000);
    // The next op meets the other 49 one after the other, under its own reads.
    const next = await timed('assert', { text_visible: 'done' }, s);
    inTime(next, 5000);
    assert.equal(next.body.ok, true, JSON.stringify(next.body));
    assert.ok(
      next.body.notes?.some((n) => n.startsWith('dialog_storm')),
      JSON.stringify(next.body),
    );
    assert.equal((await h.op('snapshot', {}, s)).body.ok, true);
    // Once the page has paused, its dialogs are its own again: a confirm opens and is answered.
    await sleep(2200);
    const ask = await h.op('click', { target: { role: 'button', name: 'Ask' } }, s);
    assert.ok(
      ask.body.notes?.some((n) => n.startsWith('dialog_open (confirm: Sure?)')),
      JSON.stringify(ask.body),
    );
    await h.op('dialog', { action: 'accept' }, s);
    assert.equal((await h.op('assert', { text_visible: 'sure: true' }, s)).body.ok, true);
    await h.op('close', {}, s);
  });
});
