import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildSync } from 'esbuild';
import { chromium, type Browser, type Page, type Route } from 'playwright-core';
import { CHROMIUM_ARGS, findBrowser } from '../../src/drivers/find-browser.js';
import type { ActivityMark } from '../../src/page/protocol.js';

const bundle = buildSync({
  entryPoints: [join(process.cwd(), 'src/page/activity.ts')],
  bundle: true,
  format: 'iife',
  globalName: '__activity',
  write: false,
}).outputFiles[0].text;

let browser: Browser;
let page: Page;
/** Requests to /held/* wait here until the test answers them. */
const held: Route[] = [];
/**
 * A submission answered 204 leaves the page where it is. One left pending would hold every CDP
 * command to the page until it is answered, so the reads after the click could never run.
 */
const NO_CONTENT = '/no-content';

before(async () => {
  browser = await chromium.launch({ executablePath: findBrowser(), args: CHROMIUM_ARGS });
  page = await browser.newPage();
  await page.route('http://app.test/**', (route) =>
    route.request().url().includes('/held/')
      ? void held.push(route)
      : route.request().url().includes(NO_CONTENT)
        ? route.fulfill({ status: 204 })
        : route.fulfill({ contentType: 'text/html', body: '<button>Load</button><p id=out></p>' }),
  );
  await page.goto('http://app.test/');
  await page.addScriptTag({ content: bundle });
  await page.evaluate('__activity.watchActivity()');
});
after(() => browser?.close());

const activity = () => page.evaluate<ActivityMark>('__activity.activity()');
const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
};

test('a fetch or XHR the page starts is counted at once, and open until it is answered', async () => {
  await page.evaluate('__activity.checkpoint()');
  await page.evaluate(`document.querySelector('button').onclick = () => {
    fetch('/held/a').then((r) => r.text()).then((t) => (out.textContent = t));
    const xhr = new XMLHttpRequest();
    xhr.open('GET', '/held/b');
    xhr.send();
  }`);
  await page.click('button');
  // Read in the same turn as the click's answer: no driver event is needed for the page to know.
  const during = await activity();
  assert.equal(during.requests, 2);
  assert.equal(during.requestsOpen, 2);
  await until(() => held.length === 2);
  for (const route of held.splice(0)) await route.fulfill({ body: 'done' });
  await page.waitForFunction('out.textContent === "done"');
  const answered = await activity();
  assert.equal(answered.requests, 2);
  assert.equal(answered.requestsOpen, 0);
});

test('a request started before the mark neither counts nor holds the next action', async () => {
  await page.evaluate(`void fetch('/held/poll')`);
  await until(() => held.length === 1);
  const point = await page.evaluate<{ mutations: number }>('__activity.checkpoint()');
  assert.equal(typeof point.mutations, 'number');
  const next = await activity();
  assert.equal(next.requests, 0);
  assert.equal(next.requestsOpen, 0);
  await held.splice(0)[0].fulfill({ body: 'late' });
});

test('a fetch that fails at once is not left open', async () => {
  await page.evaluate('__activity.checkpoint()');
  await page.evaluate(`void fetch('http://[bad').catch(() => {})`);
  const mark = await activity();
  assert.equal(mark.requestsOpen, 0);
});

test('after the next frame, a render the handler deferred is counted; a hash change is no new document', async () => {
  await page.evaluate('__activity.checkpoint()');
  await page.evaluate(`document.querySelector('button').onclick = () => {
    requestAnimationFrame(() => setTimeout(() => (out.textContent = 'later'), 0));
    location.hash = 'next';
  }`);
  await page.click('button');
  const settled = await page.evaluate<ActivityMark>('__activity.activityAfterFrame()');
  assert.ok(settled.mutations > 0, 'the deferred render is in');
  assert.equal(settled.navigations, 0, 'a same-document navigation leaves the document in place');
  await page.evaluate('__activity.checkpoint()');
  const quiet = await page.evaluate<ActivityMark>('__activity.activityAfterFrame()');
  assert.deepEqual([quiet.mutations, quiet.requests, quiet.navigations], [0, 0, 0]);
});

test('a navigation the page cancels or a router intercepts is none', async () => {
  await page.evaluate('__activity.checkpoint()');
  await page.evaluate(`navigation.addEventListener('navigate', (e) => e.preventDefault(), { once: true });
    location.href = '/cancelled'`);
  assert.equal((await activity()).navigations, 0, 'the cancelled navigation');
  await page.evaluate(`navigation.addEventListener('navigate', (e) => e.intercept(), { once: true });
    navigation.navigate('/routed')`);
  assert.equal((await activity()).navigations, 0, 'the intercepted navigation');
});

test('a form submission counts as a navigation as the click returns; a prevented one does not', async () => {
  await page.evaluate(`document.body.insertAdjacentHTML('beforeend',
    '<form id=kept onsubmit="event.preventDefault()"><button>Kept</button></form>' +
    '<form id=sent action="${NO_CONTENT}"><button>Sent</button></form>')`);
  await page.evaluate('__activity.checkpoint()');
  await page.click('#kept button');
  assert.equal((await activity()).navigations, 0, 'a prevented submission stays');
  await page.click('#sent button', { noWaitAfter: true });
  assert.equal((await activity()).navigations, 1);
});

test("a short timer is the action's when its handler sets it, not when a poll begun before does", async () => {
  await page.evaluate(`
    setInterval(() => setTimeout(() => {}, 50), 60);
    (async () => { for (;;) { await new Promise((r) => setTimeout(r, 40)); await null; } })();
    requestAnimationFrame(function frame() { setTimeout(() => {}, 10); requestAnimationFrame(frame); });
    document.querySelector('button').onclick = () => setTimeout(() => {}, 300);
  `);
  await page.evaluate('__activity.checkpoint()');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal((await activity()).timersPending, 0, 'the polls set timers of their own');
  await page.click('button');
  assert.equal((await activity()).timersPending, 1);
});

test('a render the handler made at once leaves the next frame quiet; one it spread over frames does not', async () => {
  await page.evaluate(`document.querySelector('button').onclick = () => (out.textContent = 'now')`);
  await page.evaluate('__activity.checkpoint()');
  await page.click('button');
  const once = await page.evaluate<ActivityMark>('__activity.activityAfterFrame()');
  assert.ok(once.mutations > 0);
  assert.deepEqual([once.quietThroughFrame, once.framesPending], [true, 0]);
  // A render spread over frames: its next frame is always asked for until the test ends it, so
  // the read never depends on how many frames a loaded machine paints meanwhile.
  await page.evaluate(`document.querySelector('button').onclick = () => {
    out.textContent = 'first';
    window.spreading = true;
    requestAnimationFrame(function step() {
      if (window.spreading) requestAnimationFrame(step);
      else out.textContent = 'second';
    });
  }`);
  await page.evaluate('__activity.checkpoint()');
  await page.click('button');
  const spread = await page.evaluate<ActivityMark>('__activity.activityAfterFrame()');
  assert.equal(spread.framesPending, 1, 'the next frame the render asked for');
  await page.evaluate('window.spreading = false');
  await page.waitForFunction('out.textContent === "second"');
  assert.equal((await activity()).framesPending, 0);
});

test('a click that changed and deferred nothing is read at once; a wheel waits for its frame', async () => {
  // Read at once resolves within a few microtasks; a frame's wait takes a task at least.
  const readAtOnce = (documentBefore?: string) =>
    page.evaluate<boolean>(`(async () => {
      let done = false;
      void __activity.activityAfterFrame(${JSON.stringify(documentBefore)}).then(() => (done = true));
      for (let i = 0; i < 10; i++) await null;
      return done;
    })()`);
  await page.evaluate(`document.querySelector('button').onclick = () => {}`);
  await page.evaluate('__activity.checkpoint()');
  assert.equal(await readAtOnce(), false, 'no input seen yet: the frame is waited for');
  assert.equal(await readAtOnce('the-document-before'), true, 'a new document at rest');
  await page.click('button');
  assert.equal(await readAtOnce(), true);
  await page.evaluate('__activity.checkpoint()');
  await page.mouse.wheel(0, 10);
  await page.waitForFunction('true');
  assert.equal(await readAtOnce(), false, 'the browser scrolls on a later frame');
});
