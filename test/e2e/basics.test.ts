// Browser behaviour: navigating, acting and the ActionResult on a real page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

describe('navigation and the ActionResult', () => {
  test('a refused connection leaves the tab at the URL asked for, not kept to reopen on', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 'refused');
    const url = `http://127.0.0.1:${await freePort()}/`;
    const r = await h.op('goto', { url }, 'refused');
    assert.equal(r.body.error?.kind, 'navigation_failed', JSON.stringify(r.body));
    assert.equal(r.body.error?.details?.cause, 'ERR_CONNECTION_REFUSED');
    assert.equal(
      r.body.error?.message,
      `The page ${url} did not load (ERR_CONNECTION_REFUSED): nothing is listening there: check that the site is running.`,
    );
    // Chromium's error page is chrome-error://chromewebdata/ over CDP, Firefox's about:neterror?…
    assert.equal(r.body.page?.url, url);
    const status = await h.op('status', {}, 'refused');
    const data = status.body.data as { tabs: { url: string }[]; last_url?: string };
    assert.deepEqual(
      data.tabs.map((t) => t.url),
      [url],
    );
    assert.equal(data.last_url, `${h.server.PREFIX}/login.html`);
  });

  test('goto answers with the page, a not_checked verification and an action id per session', async () => {
    const r = await h.op('goto', { url: `${h.server.PREFIX}/login.html` });
    assert.equal(r.status, 200);
    assert.equal(r.body.ok, true);
    assert.match(r.body.action_id, /^t-\d+$/);
    assert.equal(r.body.page?.url, `${h.server.PREFIX}/login.html`);
    assert.equal(r.body.verification.status, 'not_checked');
    assert.ok(r.body.notes?.includes('navigated'));
    assert.equal(r.body.error, undefined);
  });

  test('a login click with expect passes verification and lands on the dashboard', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/login.html` });
    await h.op('fill', { target: { label: 'Email' }, value: 'ada@example.com' });
    await h.op('fill', { target: { label: 'Password' }, value: 'pw' });
    const r = await h.op('click', {
      target: { role: 'button', name: 'Sign in' },
      expect: { url_contains: 'dashboard' },
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(r.body.verification.status, 'passed');
    assert.equal(r.body.target?.strategy, 'role');
    assert.equal(r.body.target?.candidates, 1);
    assert.match(r.body.page!.url, /dashboard/);
  });

  test('an expect that does not hold is verification_failed (422), not retried', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/login.html` });
    const r = await h.op('click', {
      target: { role: 'button', name: 'Sign in' },
      expect: { url_contains: 'nowhere' },
      timeout: 800,
    });
    assert.equal(r.status, 422);
    assert.equal(r.body.error?.kind, 'verification_failed');
    assert.equal(r.body.error?.recoverable, false);
    assert.equal(r.body.verification.status, 'failed');
    assert.equal(r.body.verification.checks?.[0].passed, false);
  });

  test('a host that does not resolve is navigation_failed (502)', async () => {
    const r = await h.op('goto', { url: 'http://swiftbrowse-test.invalid/' });
    assert.equal(r.status, 502);
    assert.equal(r.body.error?.kind, 'navigation_failed');
    assert.match(r.body.error!.message, /NAME_NOT_RESOLVED/);
  });

  test('a click on a link to a dead host is navigation_failed, even behind the error page', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/links.html` });
    const r = await h.op('click', { target: { role: 'link', name: 'Broken host' } });
    assert.equal(r.body.error?.kind, 'navigation_failed', JSON.stringify(r.body));
  });

  test('an HTTP error page is navigation_failed', async () => {
    const r = await h.op('goto', { url: `${h.server.PREFIX}/status/404` });
    assert.equal(r.body.error?.kind, 'navigation_failed');
    assert.match(r.body.error!.message, /HTTP 404/);
  });

  /** A form at `page` whose server holds its answer until the returned function is called. */
  function slowForm(page: string): () => void {
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    h.server.setRoute(`${page}-save`, (_req, res) => {
      void answered.then(() => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<title>Saved</title><h1>Saved</h1>');
      });
    });
    h.server.setContent(
      `${page}.html`,
      `<form action="${page}-save"><input name="q" value="x"><button>Save</button></form>`,
    );
    return answer;
  }

  /** Clicks Save, which answers while the server still holds the form's answer. */
  async function clickSave(): Promise<void> {
    const click = await h.op('click', { target: { role: 'button', name: 'Save' } });
    assert.equal(click.body.ok, true, JSON.stringify(click.body.error));
    assert.ok(
      click.body.notes?.some((n) => n.startsWith('still_loading')),
      JSON.stringify(click.body.notes),
    );
    const changes = (click.body.data as { changes: { note?: string } }).changes;
    assert.match(changes.note ?? '', /waiting for its server/);
  }

  test('a form whose server is slow: the click answers while it waits, and a read waits within its own time', async () => {
    const answer = slowForm('/slow');
    await h.op('goto', { url: `${h.server.PREFIX}/slow.html` });
    await clickSave();
    const read = await h.op('snapshot', { timeout: 1000 });
    assert.equal(read.body.error?.kind, 'timeout', JSON.stringify(read.body));
    assert.match(read.body.error!.message, /still loading .*\/slow-save\?q=x/);
    answer();
    const loaded = await h.op('snapshot', {});
    assert.equal(loaded.body.ok, true, JSON.stringify(loaded.body.error));
    assert.match((loaded.body.data as { track: string }).track, /Saved/);
    assert.equal(loaded.body.page?.title, 'Saved');
  });

  test('an expect on a page whose form waits for its server fails in its time, naming the URL', async () => {
    const answer = slowForm('/held');
    await h.op('goto', { url: `${h.server.PREFIX}/held.html` });
    const click = await h.op('click', {
      target: { role: 'button', name: 'Save' },
      expect: { text_visible: 'Saved' },
      timeout: 1500,
    });
    answer();
    assert.equal(click.body.error?.kind, 'verification_failed', JSON.stringify(click.body));
    const seen = click.body.verification.checks?.[0].observed as { error?: string };
    assert.match(seen.error ?? '', /still loading .*\/held-save\?q=x/);
  });

  /**
   * A page at `path` whose body comes in two parts: the first (title, heading, padding past any
   * sniffing buffer) at once, the second when the returned function is called or after `pauseMs`.
   */
  function twoPartPage(path: string, pauseMs?: number): () => void {
    let rest = () => {};
    const released = new Promise<void>((resolve) => (rest = resolve));
    h.server.setRoute(path, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write(`<title>Report</title><h1>Report</h1><p>Part one</p><!--${'.'.repeat(4096)}-->`);
      const end = () => res.end('<p>Part two arrived</p>');
      void released.then(end);
      if (pauseMs !== undefined) setTimeout(end, pauseMs);
    });
    return rest;
  }

  test('a link to a page whose body pauses mid-way: the click and the next read see all of it', async () => {
    twoPartPage('/paused-report', 700);
    h.server.setContent('/to-report.html', '<a href="/paused-report">Open the report</a>');
    await h.op('goto', { url: `${h.server.PREFIX}/to-report.html` });
    const click = await h.op('click', { target: { role: 'link', name: 'Open the report' } });
    assert.equal(click.body.ok, true, JSON.stringify(click.body.error));
    assert.ok(click.body.notes?.includes('navigated'), JSON.stringify(click.body.notes));
    const read = await h.op('snapshot', {});
    assert.match((read.body.data as { track: string }).track, /Part two arrived/);
  });

  test('a page whose body never ends is read as it stands, said to be loading, and waited for once', async () => {
    const rest = twoPartPage('/endless-report');
    h.server.setContent('/to-endless.html', '<a href="/endless-report">Open the report</a>');
    await h.op('goto', { url: `${h.server.PREFIX}/to-endless.html` });
    const click = await h.op('click', {
      target: { role: 'link', name: 'Open the report' },
      timeout: 2000,
    });
    assert.equal(click.body.ok, true, JSON.stringify(click.body.error));
    assert.ok(
      click.body.notes?.some((n) => n.startsWith('still_loading')),
      JSON.stringify(click.body.notes),
    );
    const first = await h.op('snapshot', { timeout: 2000 });
    assert.equal(first.body.ok, true, JSON.stringify(first.body.error));
    assert.match((first.body.data as { track: string }).track, /Part one/);
    assert.ok(
      first.body.notes?.some((n) => n.startsWith('still_loading')),
      JSON.stringify(first.body.notes),
    );
    // Waiting again would take half the op's time (1000 ms) before reading.
    const second = await h.op('snapshot', { timeout: 2000 });
    assert.ok(
      second.body.notes?.some((n) => n.startsWith('still_loading')),
      JSON.stringify(second.body.notes),
    );
    assert.ok(
      second.body.timing.duration_ms < 1000,
      `read in ${second.body.timing.duration_ms} ms`,
    );
    rest();
    const arrived = await h.op('wait_for', { text_visible: 'Part two arrived' });
    assert.equal(arrived.body.ok, true, JSON.stringify(arrived.body.error));
    const done = await h.op('snapshot', {});
    assert.match((done.body.data as { track: string }).track, /Part two arrived/);
    assert.equal(
      (done.body.notes ?? []).some((n) => n.startsWith('still_loading')),
      false,
      JSON.stringify(done.body.notes),
    );
  });

  test('goto leaves a page whose form is still waiting for its server', async () => {
    const answer = slowForm('/stuck');
    await h.op('goto', { url: `${h.server.PREFIX}/stuck.html` });
    await clickSave();
    const away = await h.op('goto', { url: `${h.server.PREFIX}/login.html` });
    assert.equal(away.body.ok, true, JSON.stringify(away.body.error));
    assert.equal(away.body.page?.url, `${h.server.PREFIX}/login.html`);
    assert.ok(away.body.notes?.includes('navigated'), JSON.stringify(away.body.notes));
    answer();
    const read = await h.op('snapshot', {});
    assert.equal(
      read.body.page?.url,
      `${h.server.PREFIX}/login.html`,
      'the late answer is dropped',
    );
  });
});
