// Browser behaviour: what the Grid and Firefox once did differently from Chromium, now alike.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { BrowserRecord } from '../../src/sessions/browser-record.js';
import { BACKEND } from '../helpers/backend.js';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
  h.server.setContent(
    '/opener.html',
    `<title>Opener</title><button onclick="window.open('popup.html','_blank')">popup</button>`,
  );
  h.server.setContent('/popup.html', '<title>Popup page</title><p>popup text</p>');
  h.server.setRoute('/export/parity.csv', (_req, res) => {
    res.writeHead(200, {
      'content-type': 'text/csv',
      'content-disposition': 'attachment; filename="parity.csv"',
    });
    res.end('id,total\n1,42\n');
  });
  h.server.setRoute('/export/other.csv', (_req, res) => {
    res.writeHead(200, {
      'content-type': 'text/csv',
      'content-disposition': 'attachment; filename="other.csv"',
    });
    res.end('id\n2\n');
  });
  h.server.setRoute('/slow.html', (_req, res) => {
    setTimeout(() => res.end('<title>Slow</title>'), 5000).unref();
  });
  h.server.setContent(
    '/download.html',
    `<a href="/export/parity.csv">Export</a>
     <a href="/export/other.csv" target="_blank">Other</a>`,
  );
});
after(() => h.close());
afterEach(() => h.closeBrowsers());

describe('a popup that keeps its opener', () => {
  test('loads, is read in normal time and closes', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/opener.html` }, 'pop');
    const click = await h.op('click', { target: { role: 'button', name: 'popup' } }, 'pop');
    assert.equal(click.body.ok, true, JSON.stringify(click.body.error));
    const select = await h.op('tab_select', { tab: 't2' }, 'pop');
    assert.equal(select.body.ok, true, JSON.stringify(select.body.error));
    const read = await h.op(
      'evaluate',
      { script: 'document.title + "|" + document.body.innerText' },
      'pop',
    );
    assert.equal(read.body.ok, true, JSON.stringify(read.body.error));
    assert.equal((read.body.data as { result: string }).result, 'Popup page|popup text');
    assert.ok(read.body.timing!.duration_ms < 5000, JSON.stringify(read.body.timing));
    const list = await h.op('tab_list', {}, 'pop');
    const tabs = (list.body.data as { tabs: { id: string; title: string }[] }).tabs;
    assert.equal(tabs.find((t) => t.id === 't2')?.title, 'Popup page', JSON.stringify(tabs));
    const close = await h.op('tab_close', { tab: 't2' }, 'pop');
    assert.equal(close.body.ok, true, JSON.stringify(close.body.error));
    assert.ok(close.body.timing!.duration_ms < 5000, JSON.stringify(close.body.timing));
    const left = await h.op('tab_list', {}, 'pop');
    assert.equal((left.body.data as { tabs: unknown[] }).tabs.length, 1);
  });
});

describe('files after a download', () => {
  test('lists the file at once', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/download.html` }, 'dl');
    const click = await h.op('click', { target: { role: 'link', name: 'Export' } }, 'dl');
    assert.equal(click.body.ok, true, JSON.stringify(click.body.error));
    const files = await h.op('files', {}, 'dl');
    assert.equal(files.body.ok, true, JSON.stringify(files.body.error));
    const names = (files.body.data as { files: { name: string }[] }).files.map((f) => f.name);
    assert.ok(names.includes('parity.csv'), JSON.stringify(names));
    // The symptom was 30 s: the download's record never left `saving`.
    assert.ok(files.body.timing!.duration_ms < 5000, JSON.stringify(files.body.timing));
    const make = await h.op('click', { target: { role: 'link', name: 'Other' } }, 'dl');
    assert.equal(make.body.ok, true, JSON.stringify(make.body.error));
    const again = await h.op('files', {}, 'dl');
    const all = (again.body.data as { files: { name: string }[] }).files.map((f) => f.name);
    assert.ok(all.includes('other.csv'), JSON.stringify(all));
    assert.ok(again.body.timing!.duration_ms < 5000, JSON.stringify(again.body.timing));
  });
});

describe('page_load_timeout and script_timeout', () => {
  test('a 1.5 s page-load timeout answers timeout on a 5 s page', async () => {
    const open = await h.op('open', { page_load_timeout: 1500 }, 'to');
    assert.equal(open.body.ok, true, JSON.stringify(open.body.error));
    const r = await h.op('goto', { url: `${h.server.PREFIX}/slow.html` }, 'to');
    assert.equal(r.body.error?.kind, 'timeout', JSON.stringify(r.body));
  });

  test('a 1 s script timeout ends a 3 s script', async () => {
    const open = await h.op('open', { script_timeout: 1000 }, 'st');
    assert.equal(open.body.ok, true, JSON.stringify(open.body.error));
    const r = await h.op('evaluate', { script: 'new Promise((r) => setTimeout(r, 3000))' }, 'st');
    assert.equal(r.body.error?.kind, 'timeout', JSON.stringify(r.body));
    assert.match(r.body.error!.message, /script_timeout/);
  });
});

describe('back and forward', () => {
  test('load the page again, with its status, as a fresh document', async () => {
    h.server.setContent(
      '/first.html',
      '<title>First</title><script>window.loadId = Math.random()</script>',
    );
    h.server.setContent(
      '/second.html',
      '<title>Second</title><script>window.loadId = Math.random()</script>',
    );
    const loadId = async () => {
      const r = await h.op('evaluate', { script: 'window.loadId' }, 'bf');
      assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
      return (r.body.data as { result: number }).result;
    };
    await h.op('goto', { url: `${h.server.PREFIX}/first.html` }, 'bf');
    const first = await loadId();
    await h.op('goto', { url: `${h.server.PREFIX}/second.html` }, 'bf');
    const second = await loadId();
    const back = await h.op('back', {}, 'bf');
    assert.equal(back.body.ok, true, JSON.stringify(back.body.error));
    assert.equal(back.body.page?.url, `${h.server.PREFIX}/first.html`);
    assert.equal((back.body.data as { status?: number }).status, 200, JSON.stringify(back.body));
    assert.notEqual(await loadId(), first, 'the page was loaded again, not restored from a cache');
    const forward = await h.op('forward', {}, 'bf');
    assert.equal(forward.body.ok, true, JSON.stringify(forward.body.error));
    assert.equal(
      (forward.body.data as { status?: number }).status,
      200,
      JSON.stringify(forward.body),
    );
    assert.notEqual(await loadId(), second);
  });
});

describe('a load that fails', () => {
  test('a navigation timeout says the same on every backend, and the tab shows the page it had', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/popup.html` }, 'nt');
    const r = await h.op('goto', { url: `${h.server.PREFIX}/slow.html`, timeout: 1500 }, 'nt');
    assert.deepEqual(r.body.page, {
      url: `${h.server.PREFIX}/popup.html`,
      title: 'Popup page',
      tab: 't1',
    });
    assert.equal(r.body.error?.kind, 'timeout', JSON.stringify(r.body));
    assert.equal(
      r.body.error?.message,
      `Loading ${h.server.PREFIX}/slow.html timed out after 1500 ms: the page did not finish loading (a slow server or a heavy page). It may still load: read the page to see what the tab shows, or try again with a longer timeout.`,
    );
  });
});

describe('what open applied (Grid)', { skip: BACKEND !== 'grid' }, () => {
  test('open returns ignored as status does', async () => {
    const r = await h.op(
      'open',
      { capabilities: { 'goog:chromeOptions': { prefs: { credentials_enable_service: true } } } },
      'ig',
    );
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    const ignored = ['goog:chromeOptions.prefs.credentials_enable_service'];
    assert.deepEqual((r.body.data as { ignored?: string[] }).ignored, ignored);
    const status = await h.op('status', {}, 'ig');
    assert.deepEqual((status.body.data as { ignored?: string[] }).ignored, ignored);
  });

  test('record says whether a video is made, under a name of its own per browser', async () => {
    const videoOf = async () => {
      const r = await h.op('open', { record: true }, 'rec');
      assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
      const note = r.body.notes?.find((n) => n.startsWith('record:'));
      assert.ok(note, JSON.stringify(r.body.notes));
      await h.op('close', {}, 'rec');
      return /rec-[0-9a-f]{8}\.mp4/.exec(note)?.[0];
    };
    const first = await videoOf();
    const second = await videoOf();
    assert.ok(first && second, `${first} ${second}`);
    assert.notEqual(first, second);
  });

  test("with GRID_VIDEO_URL, record's evidence links where the recorder puts the video", async () => {
    const x = await startHarness({ gridVideoUrl: 'http://videos.test/{grid_session}/{name}' });
    try {
      const r = await x.op('open', { record: true }, 'rec');
      assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
      const [video] = r.body.evidence ?? [];
      assert.equal(video?.kind, 'video', JSON.stringify(r.body));
      assert.match(video.name, /^rec-[0-9a-f]{8}\.mp4$/);
      const admin = await x.request('/admin/sessions/rec');
      const { browser_record } = (await admin.json()) as { browser_record?: BrowserRecord };
      const gridSession = browser_record?.ran?.grid_session_id;
      assert.ok(gridSession, JSON.stringify(browser_record));
      assert.equal(video.url, `http://videos.test/${gridSession}/${video.name}`);
      assert.ok(
        r.body.notes?.some((n) => n.includes(video.url)),
        JSON.stringify(r.body.notes),
      );
    } finally {
      await x.close();
    }
  });
});
