// Grid backend: the Grid backend itself, against the real Selenium Grid of the grid arm: what a
// restart, a reap, a download and a refusal look like. The shared suite covers the ops.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OpError } from '../../src/core/errors.js';
import type { OpenOptions } from '../../src/drivers/driver.js';
import {
  WebDriverDriver,
  type WebDriverSession,
} from '../../src/drivers/webdriver/webdriver-driver.js';
import { skipOn } from '../helpers/backend.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { testGridUrl } from '../helpers/grid.js';
import { startHarness } from '../helpers/harness.js';

const skip = skipOn('playwright', 'grid-only');

describe('the Grid backend', () => {
  let gridUrl: string;
  let server: FixtureServer;
  let dir: string;
  const options = (session: string, more: Partial<OpenOptions> = {}): OpenOptions => ({
    session,
    browser: 'chromium',
    headless: true,
    viewport: { width: 900, height: 600 },
    downloadsDir: join(dir, session),
    ...more,
  });

  before(async () => {
    if (skip) return;
    gridUrl = await testGridUrl();
    server = await startFixtureServer();
    dir = mkdtempSync(join(tmpdir(), 'swiftbrowse-grid-test-'));
  });
  after(async () => {
    if (skip) return;
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test(
    'a restarted server re-attaches to the same browser by its handle, page state intact',
    { skip },
    async () => {
      const first = new WebDriverDriver({ gridUrl });
      const browser = (await first.open(options('reattach'))) as WebDriverSession;
      try {
        const tab = browser.tabs()[0];
        await tab.goto(`${server.PREFIX}/index.html`, 10_000);
        await tab.evaluate([], 'window.__mark = 42');
        const ran = browser.running();
        assert.match(ran.version, /^\d+\./);
        assert.ok(ran.node, 'the node the browser runs on is known');
        const handle = browser.handle();
        await first.shutdown(); // what a server restart does: lets go, the Grid keeps the browser

        const second = new WebDriverDriver({ gridUrl });
        const again = await second.attach(handle, options('reattach'));
        assert.ok(again, 'the browser is found again');
        const [t] = again.tabs();
        assert.equal(t.url(), `${server.PREFIX}/index.html`);
        assert.equal(await t.evaluate([], 'window.__mark'), 42);
        assert.deepEqual(again.running(), ran);
        await again.close();
        assert.equal(
          await second.attach(handle, options('reattach')),
          undefined,
          'an ended browser is gone',
        );
      } finally {
        await browser.close().catch(() => undefined);
      }
    },
  );

  test(
    "the capabilities sent are the builder's, with sources, and the session name is on the browser",
    { skip },
    async () => {
      const driver = new WebDriverDriver({ gridUrl, capabilities: { 'test:pool': 'default' } });
      const browser = (await driver.open(
        options('caps', { webdriver: { capabilities: { 'test:pool': 'mine' } } }),
      )) as WebDriverSession;
      try {
        const sent = browser.sentCapabilities();
        assert.ok(sent);
        const pool = sent.sent.find((s) => s.key === 'test:pool');
        assert.deepEqual(pool, { key: 'test:pool', value: 'mine', sources: ['raw'] });
        assert.equal(sent.sent.find((s) => s.key === 'se:swiftbrowseSession')?.value, 'caps');
        assert.deepEqual(sent.asked, { browser: 'chromium', version: 'latest' });
      } finally {
        await browser.close();
      }
    },
  );

  test('an owned raw key is refused before any browser is asked for', { skip }, async () => {
    const driver = new WebDriverDriver({ gridUrl });
    await assert.rejects(
      driver.open(options('owned', { webdriver: { capabilities: { acceptInsecureCerts: true } } })),
      (e: unknown) =>
        e instanceof OpError && e.kind === 'invalid_argument' && /insecure/.test(e.message),
    );
    // No browser carries this session's name: the Grid was never asked.
    const status = (await (await fetch(`${gridUrl}/status`)).json()) as {
      value: {
        nodes: { slots: { session: { capabilities: Record<string, unknown> } | null }[] }[];
      };
    };
    const names = status.value.nodes.flatMap((n) =>
      n.slots.map((slot) => slot.session?.capabilities['se:swiftbrowseSession']),
    );
    assert.equal(names.includes('owned'), false);
  });

  test(
    'a node that cannot start the browser a raw key asked for is invalid_argument naming the key',
    { skip },
    async () => {
      const driver = new WebDriverDriver({ gridUrl });
      await assert.rejects(
        driver.open(
          options('refused', {
            webdriver: { capabilities: { 'goog:chromeOptions': { notAnOption: true } } },
          }),
        ),
        (e: unknown) =>
          e instanceof OpError &&
          e.kind === 'invalid_argument' &&
          /goog:chromeOptions/.test(e.message),
      );
    },
  );

  test(
    "a download lands in the session files through the Grid's managed downloads",
    { skip },
    async () => {
      server.setRoute('/report.csv', (_req, res) => {
        res.writeHead(200, {
          'content-type': 'text/csv',
          'content-disposition': 'attachment; filename="report.csv"',
        });
        res.end('a,b\n1,2\n');
      });
      server.setContent('/download.html', `<a id="dl" href="/report.csv">Report</a>`);
      const driver = new WebDriverDriver({ gridUrl });
      const browser = (await driver.open(options('download'))) as WebDriverSession;
      try {
        const tab = browser.tabs()[0];
        await tab.goto(`${server.PREFIX}/download.html`, 10_000);
        await tab.evaluate([], `document.getElementById('dl').click()`);
        const file = join(dir, 'download', 'report.csv');
        for (let i = 0; i < 100 && browser.downloads().length === 0; i++)
          await new Promise((r) => setTimeout(r, 100));
        await browser.downloadsSettled();
        assert.deepEqual(browser.downloads(), [{ name: 'report.csv', state: 'saved' }]);
        assert.ok(existsSync(file));
        assert.equal(readFileSync(file, 'utf8'), 'a,b\n1,2\n');
      } finally {
        await browser.close();
      }
    },
  );

  test(
    '/ready reports the Grid, and a Grid that cannot be reached is 503 at once',
    { skip },
    async () => {
      const up = await startHarness({ gridUrl });
      try {
        const r = await up.request('/ready');
        const body = (await r.json()) as {
          ready: boolean;
          grid: { nodes: number; downloads: string };
        };
        assert.equal(r.status, 200);
        assert.equal(body.ready, true);
        assert.ok(body.grid.nodes >= 1);
        assert.equal(body.grid.downloads, 'on');
      } finally {
        await up.close();
      }
      const down = await startHarness({ gridUrl: 'http://127.0.0.1:9' });
      try {
        const r = await down.request('/ready');
        const body = (await r.json()) as { ready: boolean; grid: { message: string } };
        assert.equal(r.status, 503);
        assert.match(body.grid.message, /cannot reach the Grid/);
      } finally {
        await down.close();
      }
    },
  );
});
