// Grid backend: the Grid's new-session queue against a Grid of one slot: what a caller who gives
// up leaves behind, and what a queue timeout says.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { BrowserRecord } from '../../src/sessions/browser-record.js';
import { BACKEND } from '../helpers/backend.js';
import {
  endGridBrowsers,
  gridBrowsers,
  gridQueueLength,
  startGrid,
  startHub,
  type TestGrid,
} from '../helpers/grid.js';
import { startHarness, type Harness } from '../helpers/harness.js';

const skip = BACKEND !== 'grid';

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Not within 30 s: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('the Grid queue', () => {
  let grid: TestGrid;
  let h: Harness;

  before(async () => {
    if (skip) return;
    grid = await startGrid(1);
    h = await startHarness({ gridUrl: grid.url, gridQueueWaitMs: 60_000 });
  });
  after(async () => {
    if (skip) return;
    await h.close();
    await grid.stop();
  });

  test(
    'an open whose HTTP client gave up while queued leaves no browser holding the slot',
    { skip },
    async () => {
      const holder = await h.op('open', {}, 'holder');
      assert.equal(holder.body.ok, true, JSON.stringify(holder.body.error));
      const abort = new AbortController();
      const queued = h
        .request('/browser/open', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-session-key': 'queued' },
          body: '{}',
          signal: abort.signal,
        })
        .catch(() => undefined);
      await until(async () => (await gridQueueLength(grid.url)) === 1, 'the open is queued');
      abort.abort();
      await queued;
      await h.op('close', {}, 'holder');
      // The freed slot goes to the abandoned request first; the next caller gets it only if
      // SwiftBrowse gave that browser back.
      const next = await h.op('open', {}, 'next');
      assert.equal(next.body.ok, true, JSON.stringify(next.body.error));
      const left = (await gridBrowsers(grid.url)).filter((b) => b.session === 'queued');
      assert.deepEqual(left, []);
      await h.closeBrowsers();
    },
  );

  test('a browser the Grid ended answers that the Grid ended it', { skip }, async () => {
    const opened = await h.op('goto', { url: `${h.server.PREFIX}/index.html` }, 'reaped');
    assert.equal(opened.body.ok, true, JSON.stringify(opened.body.error));
    // What the Grid's session timeout does to an idle browser.
    assert.equal(await endGridBrowsers(grid.url, 'reaped'), 1);
    const next = await h.op('snapshot', {}, 'reaped');
    assert.equal(next.body.error?.kind, 'backend', JSON.stringify(next.body));
    assert.match(next.body.error!.message, /ended by the Grid/);
    await h.closeBrowsers();
  });

  test(
    'a node with no display refusing a headed browser says so, not "try again"',
    { skip },
    async () => {
      const r = await h.op('open', { headless: false }, 'headed');
      await h.closeBrowsers();
      assert.equal(r.body.ok, false, 'a headed Chromium started on a node with no display');
      assert.match(r.body.error!.message, /no display/);
      assert.doesNotMatch(r.body.error!.message, /Trying again may succeed/);
    },
  );
});

describe('a Grid with no node', () => {
  let hub: TestGrid;
  let h: Harness;

  before(async () => {
    if (skip) return;
    hub = await startHub();
    h = await startHarness({ gridUrl: hub.url, gridQueueWaitMs: 3000 });
  });
  after(async () => {
    if (skip) return;
    await h.close();
    await hub.stop();
  });

  test(
    'a queue timeout says the Grid has no node, not that the capabilities match none',
    { skip },
    async () => {
      const r = await h.op('open', { version: '152' }, 'nobody');
      assert.equal(r.body.error?.kind, 'backend', JSON.stringify(r.body));
      assert.match(r.body.error!.message, /has no node at all/);
      assert.doesNotMatch(r.body.error!.message, /check the browser, version/);
    },
  );

  test(
    '/ready stays 200 while the Grid has no node, as an autoscaled Grid at idle',
    { skip },
    async () => {
      const r = await h.request('/ready');
      const body = (await r.json()) as { ready: boolean; grid: { nodes: number; ready: boolean } };
      assert.equal(r.status, 200, JSON.stringify(body));
      assert.equal(body.grid.nodes, 0);
      assert.equal(body.grid.ready, false);
    },
  );
});

describe('the browser version cascade on the Grid', () => {
  let grid: TestGrid;
  let h: Harness;
  let running: string;

  const sentVersion = async (session: string) => {
    const r = await h.request(`/admin/sessions/${session}`);
    const { browser_record } = (await r.json()) as { browser_record?: BrowserRecord };
    return browser_record?.sent?.capabilities.find((c) => c.key === 'browserVersion');
  };

  before(async () => {
    if (skip) return;
    // The node's own Chromium version, in its stereotype: a Grid matches a version only there.
    running = /\d+(\.\d+)+/.exec(execFileSync('/usr/bin/chromium', ['--version']).toString())![0];
    grid = await startGrid(1, undefined, { browserVersion: running });
    h = await startHarness({ gridUrl: grid.url, sessionVersion: running });
  });
  after(async () => {
    if (skip) return;
    await h.close();
    await grid.stop();
  });

  test(
    'SESSION_VERSION is sent as browserVersion with the server as its source',
    { skip },
    async () => {
      const opened = await h.op('open', {}, 'server-version');
      assert.equal(opened.body.ok, true, JSON.stringify(opened.body.error));
      assert.deepEqual(await sentVersion('server-version'), {
        key: 'browserVersion',
        value: running,
        sources: ['server'],
      });
      await h.closeBrowsers();
    },
  );

  test(
    'an X-Version header is sent as browserVersion with the client as its source',
    { skip },
    async () => {
      const r = await h.request('/browser/open', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-session-key': 'client-version',
          'x-version': running,
        },
        body: '{}',
      });
      const body = (await r.json()) as { ok: boolean; error?: unknown };
      assert.equal(body.ok, true, JSON.stringify(body.error));
      assert.deepEqual((await sentVersion('client-version'))?.sources, ['client']);
      await h.op('close', {}, 'client-version');
    },
  );
});
