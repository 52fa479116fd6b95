// Browser behaviour: tabs, popups and new_tab.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pageValue } from '../helpers/page.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());
// Each test's browsers close after it: a local Firefox is then handed to the next test's session.
afterEach(() => h.closeBrowsers());

const open = (page: string, session = 't') =>
  h.op('goto', { url: `${h.server.PREFIX}/${page}` }, session);

describe('frames and shadow roots', () => {
  test('a form inside an iframe is filled and submitted through the frame modifier', async () => {
    await open('iframe.html');
    const frame = { css: 'iframe#inner' };
    assert.equal(
      (await h.op('fill', { target: { label: 'City', frame }, value: 'Lyon' })).body.ok,
      true,
    );
    const r = await h.op('click', { target: { role: 'button', name: 'Send', frame } });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    const sent = await h.op('assert', { visible: { text: 'Sent: Lyon', frame } });
    assert.equal(sent.body.ok, true, JSON.stringify(sent.body.error));
  });

  test('open shadow roots are read through: css, label and role all reach inside', async () => {
    await open('shadow.html');
    assert.equal(
      (await h.op('fill', { target: { label: 'Shadow input' }, value: 'deep' })).body.ok,
      true,
    );
    const r = await h.op('click', {
      target: { css: '#shadow-button' },
      expect: { text_visible: 'Shadow clicked' },
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    const byRole = await h.op('click', { target: { role: 'button', name: 'Shadow button' } });
    assert.equal(byRole.body.ok, true);
  });

  test('within scopes a search to one element', async () => {
    await open('ambiguous.html');
    const r = await h.op('click', {
      target: { role: 'button', name: 'Edit', within: { css: 'tr:nth-child(2)' } },
      expect: { text_visible: 'Editing Bob' },
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
  });
});

describe('conditions: expect, assert, wait_for', () => {
  test('stable_for rejects a state that flickers', async () => {
    await open('flicker.html');
    const r = await h.op('assert', { text_visible: 'Ready', stable_for: 500, timeout: 1200 });
    assert.equal(r.body.error?.kind, 'verification_failed');
    assert.equal(r.body.verification.status, 'failed');
    const steady = await h.op('assert', {
      text_visible: 'Flicker',
      stable_for: 500,
      timeout: 1500,
    });
    assert.equal(steady.body.ok, true, 'a state that holds passes stable_for');
  });

  test("an assert's message is shown when it fails; without one the failure asks for one", async () => {
    await open('login.html');
    const withMessage = await h.op('assert', {
      url_contains: 'dashboard',
      message: 'Sign in first.',
      timeout: 0,
    });
    assert.match(withMessage.body.error!.message, /Assertion failed: Sign in first\./);
    const without = await h.op('assert', { text_visible: 'Nope', timeout: 0 });
    assert.match(without.body.error!.message, /add one/);
    assert.match(without.body.error!.message, /login\.html/);
  });

  test('a js condition must return exactly true or false; the script is not quoted back', async () => {
    await open('login.html');
    assert.equal(
      (await h.op('assert', { js: 'return document.title.length > 0', timeout: 0 })).body.ok,
      true,
    );
    const r = await h.op('assert', { js: "return 'SECRET-LITERAL'", timeout: 0 });
    assert.equal(r.body.error?.kind, 'invalid_argument');
    assert.match(r.body.error!.message, /exactly true or false/);
    assert.ok(
      !JSON.stringify(r.body.error).includes("return 'SECRET"),
      'the script itself is not repeated',
    );
  });

  test('assert all, count and value conditions', async () => {
    await open('controls.html');
    await h.op('fill', { target: { label: 'Name' }, value: 'Ada' });
    const r = await h.op('assert', {
      all: [
        { count: { css: 'input[type=radio]' }, equals: 2 },
        { value: { label: 'Name' }, equals: 'Ada' },
        { hidden: { css: '#nothing' } },
      ],
      timeout: 0,
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body));
    assert.equal(r.body.verification.checks?.length, 3);
  });

  test('wait_for a condition that never holds is a timeout (504)', async () => {
    await open('login.html');
    const r = await h.op('wait_for', { text_visible: 'never there', timeout: 300 });
    assert.equal(r.status, 504);
    assert.equal(r.body.error?.kind, 'timeout');
    assert.equal(r.body.error?.recoverable, true);
  });

  test('an act without expect is not_checked; a passed expect is passed', async () => {
    await open('controls.html');
    const plain = await h.op('fill', { target: { label: 'Name' }, value: 'x' });
    assert.equal(plain.body.verification.status, 'not_checked');
    const checked = await h.op('fill', {
      target: { label: 'Name' },
      value: 'y',
      expect: { value: { label: 'Name' }, equals: 'y' },
    });
    assert.equal(checked.body.verification.status, 'passed');
  });
});

describe('dialogs', () => {
  test('a dialog opened by a click is reported and answered with the dialog op', async () => {
    await open('dialogs.html');
    const r = await h.op('click', { target: { role: 'button', name: 'Confirm' } });
    assert.equal(r.body.ok, true);
    assert.ok(
      r.body.notes?.some((n) => n.startsWith('dialog_open (confirm: Are you sure?)')),
      JSON.stringify(r.body.notes),
    );
    assert.ok(!r.body.notes?.includes('navigated'), 'a dialog is not a navigation');
    const answered = await h.op('dialog', { action: 'accept' });
    assert.equal(answered.body.ok, true);
    assert.ok(!answered.body.notes?.includes('navigated'));
    assert.equal(
      await pageValue(h, "document.querySelector('#result').textContent"),
      'confirm:true',
    );
  });

  test('a prompt is answered with text when armed before the click', async () => {
    await open('dialogs.html');
    await h.op('dialog', { action: 'ACCEPT', text: 'Bob' });
    await h.op('click', { target: { role: 'button', name: 'Prompt' } });
    assert.equal(await pageValue(h, "document.querySelector('#result').textContent"), 'prompt:Bob');
  });

  test('a dialog left open is dismissed by the next op, which says so', async () => {
    await open('dialogs.html');
    await h.op('click', { target: { role: 'button', name: 'Alert' } });
    const next = await h.op('evaluate', {
      script: "document.querySelector('#result').textContent",
    });
    assert.ok(next.body.notes?.some((n) => n.startsWith('dialog_dismissed')));
    assert.equal((next.body.data as { result: string }).result, 'alert:done');
  });
});

describe('tabs', () => {
  test('tab_new, tab_list, tab_select and tab_close; the last tab cannot be closed', async () => {
    await open('login.html', 'tabs');
    const created = await h.op('tab_new', { url: `${h.server.PREFIX}/controls.html` }, 'tabs');
    const id = (created.body.data as { tab: string }).tab;
    assert.equal(created.body.page?.tab, id);
    const list = await h.op('tab_list', {}, 'tabs');
    assert.equal((list.body.data as { tabs: unknown[] }).tabs.length, 2);
    const unknown = await h.op('tab_select', { tab: 't99' }, 'tabs');
    assert.equal(unknown.body.error?.kind, 'invalid_argument');
    assert.match(unknown.body.error!.message, /t1/);
    await h.op('tab_select', { tab: 't1' }, 'tabs');
    assert.match((await h.op('status', {}, 'tabs')).body.data!.tabs!.toString(), /object/);
    await h.op('tab_close', { tab: id }, 'tabs');
    const last = await h.op('tab_close', {}, 'tabs');
    assert.equal(last.body.error?.kind, 'invalid_argument');
    assert.match(last.body.error!.message, /last tab/);
  });

  test('click with new_tab opens the href in a new tab without clicking', async () => {
    await open('links.html', 'nt');
    const r = await h.op(
      'click',
      { target: { role: 'link', name: 'Dashboard' }, new_tab: true },
      'nt',
    );
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.match(r.body.page!.url, /dashboard\.html/);
    await h.op('tab_select', { tab: 't1' }, 'nt');
    // A tab behind another paints no frames: the one ops act on must stay in front.
    const painting =
      'window.__paints = []; (function f() { __paints.push(Date.now()); requestAnimationFrame(f); })()';
    await h.op('evaluate', { script: painting }, 'nt');
    const stay = await h.op(
      'click',
      { target: { role: 'link', name: 'Dashboard' }, new_tab: true, activate: false },
      'nt',
    );
    const answered = Date.now();
    assert.match(stay.body.page!.url, /links\.html/, 'activate false keeps the current tab');
    assert.ok(stay.body.notes?.some((n) => n.startsWith('new_tab t3')));
    await new Promise((resolve) => setTimeout(resolve, 800));
    const paints = await h.op(
      'evaluate',
      { script: `__paints.filter((t) => t > ${answered + 100} && t < ${answered + 700}).length` },
      'nt',
    );
    assert.ok(
      (paints.body.data as { result: number }).result > 0,
      't1 painted no frame while t3 loaded behind it',
    );
  });
});

describe('files, screenshots, evaluate', () => {
  test('upload accepts files inside the upload directory and refuses others', async () => {
    const dir = join(h.dataDir, 'uploads');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'report.txt'), 'hello');
    await open('upload.html');
    const r = await h.op('upload', { target: { label: 'Attachment' }, paths: ['report.txt'] });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(await pageValue(h, "document.querySelector('#files').textContent"), 'report.txt');
    const outside = await h.op('upload', {
      target: { label: 'Attachment' },
      paths: ['/etc/passwd'],
    });
    assert.equal(outside.status, 403);
    assert.equal(outside.body.error?.kind, 'permission_denied');
    const escape = await h.op('upload', {
      target: { label: 'Attachment' },
      paths: ['../../etc/passwd'],
    });
    assert.equal(escape.body.error?.kind, 'permission_denied');
  });

  test('screenshot returns the image and saves it; pdf saves a file', async () => {
    await open('login.html');
    const r = await h.op('screenshot', {});
    assert.equal(r.body.ok, true);
    const data = r.body.data as {
      image: { base64: string; content_type: string };
      file: { name: string; kept: boolean; url: string };
    };
    assert.equal(data.image.content_type, 'image/png');
    assert.ok(Buffer.from(data.image.base64, 'base64').subarray(1, 4).toString() === 'PNG');
    assert.equal(r.body.evidence?.[0].name, data.file.name);
    assert.equal(data.file.kept, false);
    const el = await h.op('screenshot', {
      target: { role: 'button', name: 'Sign in' },
      save: false,
    });
    assert.equal(el.body.ok, true);
    assert.equal(el.body.evidence, undefined);
    const p = await h.op('pdf', {});
    assert.equal(p.body.ok, true, JSON.stringify(p.body.error));
    assert.match(p.body.evidence![0].name, /\.pdf$/);
    assert.match(p.body.evidence![0].url, /^\/files\/.*\.pdf\?exp=\d+&sig=/);
  });

  test('evaluate returns values; a script that throws is invalid_argument quoting the page error', async () => {
    await open('login.html');
    const v = await h.op('evaluate', { script: '(a) => a * 2', arg: 21 });
    assert.equal((v.body.data as { result: number }).result, 42);
    const body = await h.op('evaluate', {
      script: 'const t = document.title; return t.toUpperCase();',
    });
    assert.equal(typeof (body.body.data as { result: string }).result, 'string');
    const bad = await h.op('evaluate', { script: "throw new Error('kaboom')" });
    assert.equal(bad.body.error?.kind, 'invalid_argument');
    assert.match(bad.body.error!.message, /kaboom/);
  });

  test('resize changes the viewport', async () => {
    await open('login.html');
    const r = await h.op('resize', { width: 640, height: 480 });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.deepEqual(r.body.data?.viewport, { width: 640, height: 480 });
    assert.equal(await pageValue(h, 'innerWidth'), 640, JSON.stringify(r.body));
  });

  test('back, forward and reload move through the history', async () => {
    await open('login.html', 'hist');
    await open('controls.html', 'hist');
    const back = await h.op('back', {}, 'hist');
    assert.match(back.body.page!.url, /login\.html/);
    const forward = await h.op('forward', {}, 'hist');
    assert.match(forward.body.page!.url, /controls\.html/);
    const reload = await h.op('reload', {}, 'hist');
    assert.ok(reload.body.notes?.includes('navigated'));
  });
});

describe('lifecycle', () => {
  test('close ends the browser and the session survives; the next op opens a new one', async () => {
    await open('login.html', 'life');
    const closed = await h.op('close', {}, 'life');
    assert.equal((closed.body.data as { closed: boolean }).closed, true);
    const status = await h.op('status', {}, 'life');
    assert.equal((status.body.data as { browser: string }).browser, 'closed');
    const again = await open('login.html', 'life');
    assert.ok(again.body.notes?.includes('browser_opened'));
    // The timeout does not count opening the browser; the answer says how long that took.
    const opening = again.body.timing.browser_open_ms ?? 0;
    assert.ok(
      opening > 0 && opening <= again.body.timing.duration_ms,
      JSON.stringify(again.body.timing),
    );
    assert.equal((await open('login.html', 'life')).body.timing.browser_open_ms, undefined);
  });

  test('open applies viewport options', async () => {
    const r = await h.op('open', { width: 800, height: 600 }, 'opener');
    assert.equal(r.body.ok, true);
    await open('login.html', 'opener');
    assert.equal(await pageValue(h, 'innerWidth', 'opener'), 800);
  });

  test('a page slower than the timeout is a timeout (504); a slow resource is waited for and reported', async () => {
    const slow = await h.op(
      'goto',
      { url: `${h.server.PREFIX}/api/slow?ms=3000`, timeout: 500 },
      'slow',
    );
    assert.equal(slow.status, 504);
    assert.equal(slow.body.error?.kind, 'timeout');
    const page = await h.op('goto', { url: `${h.server.PREFIX}/slow.html` }, 'slow');
    assert.equal(page.body.ok, true, JSON.stringify(page.body));
    assert.ok(page.body.notes?.includes('waited_for_render'), JSON.stringify(page.body.notes));
  });

  test('a goto sent while the last one still waits for its server lands on its own page', async () => {
    await h.op('open', {}, 'superseded');
    const slow = await h.op(
      'goto',
      { url: `${h.server.PREFIX}/api/slow?ms=2500`, timeout: 300 },
      'superseded',
    );
    assert.equal(slow.body.error?.kind, 'timeout');
    // Chromium holds this goto until the slow server answers; that page then commits first.
    const next = await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 'superseded');
    assert.equal(next.body.ok, true, JSON.stringify(next.body.error));
    assert.equal(next.body.page?.url, `${h.server.PREFIX}/login.html`);
    assert.equal((next.body.data as { status?: number }).status, 200);
  });

  test('open and tab_new with a url report a page that did not load', async () => {
    const r = await h.op('open', { url: 'http://swiftbrowse-test.invalid/' }, 'opener2');
    assert.equal(r.body.error?.kind, 'navigation_failed');
    const t = await h.op('tab_new', { url: `${h.server.PREFIX}/status/500` }, 'opener2');
    assert.equal(t.body.error?.kind, 'navigation_failed');
  });

  test('action ids count per session and never repeat', async () => {
    const a = await h.op('status', {}, 'ids');
    const b = await h.op('status', {}, 'ids');
    assert.equal(a.body.action_id, 'ids-1');
    assert.equal(b.body.action_id, 'ids-2');
  });
});
