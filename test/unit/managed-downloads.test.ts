// Managed downloads on a Grid: asked for only where a node that would take the browser offers
// them, read from the Grid's /status as gridStatus gives it. A Grid without them is proven end to
// end in grid-downloads-off.test; the mixed and pooled Grids here are what one machine cannot run.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildCapabilities } from '../../src/drivers/webdriver/capabilities.js';
import type { GridNodeState, GridStatus } from '../../src/drivers/webdriver/grid-status.js';
import { fromNewSession, QueueWaitExpired } from '../../src/drivers/webdriver/errors.js';
import { chooseDownloads } from '../../src/drivers/webdriver/managed-downloads.js';

const node = (
  uri: string,
  downloads: boolean,
  offer: Record<string, unknown> = { browserName: 'chrome', platformName: 'linux' },
  availability = 'UP',
): GridNodeState => ({ uri, availability, downloads, offers: [offer] });

const grid = (...nodeStates: GridNodeState[]): GridStatus => ({
  reached: true,
  ready: true,
  message: '',
  nodes: nodeStates.length,
  liveNodes: nodeStates.filter((n) => n.availability === 'UP').length,
  nodeStates,
  slots: nodeStates.length,
  busy: 0,
  stereotypes: [],
  downloads: 'unknown',
});

const asked = (more: Record<string, unknown> = {}, browser: 'chrome' | 'firefox' = 'chrome') =>
  buildCapabilities({ session: 's', browser, headless: true, insecure: false, raw: more })
    .capabilities;

describe('whether a browser is asked for with managed downloads', () => {
  test('a Grid whose nodes all run without them is asked without, naming the nodes', () => {
    assert.deepEqual(chooseDownloads(grid(node('http://a:5555', false)), asked()), {
      ask: false,
      nodes: ['http://a:5555'],
    });
  });

  test('a Grid where some nodes offer them asks for them, so the browser goes there', () => {
    const mixed = grid(node('http://a:5555', false), node('http://b:5555', true));
    assert.deepEqual(chooseDownloads(mixed, asked()), { ask: true });
  });

  test('only the nodes that would take the browser count: its browser, version and pool', () => {
    const firefoxOffers = grid(
      node('http://a:5555', false),
      node('http://b:5555', true, { browserName: 'firefox' }),
    );
    assert.equal(chooseDownloads(firefoxOffers, asked()).ask, false);
    assert.equal(chooseDownloads(firefoxOffers, asked({}, 'firefox')).ask, true);
    const pools = grid(
      node('http://a:5555', false, { browserName: 'chrome', 'acme:pool': 'Plain' }),
      node('http://b:5555', true, { browserName: 'chrome', 'acme:pool': 'files' }),
    );
    assert.deepEqual(chooseDownloads(pools, asked({ 'acme:pool': 'plain' })), {
      ask: false,
      nodes: ['http://a:5555'],
    });
    assert.equal(chooseDownloads(pools, asked({ 'acme:pool': 'files' })).ask, true);
    const versions = grid(
      node('http://a:5555', false, { browserName: 'chrome', browserVersion: '152.0.1' }),
      node('http://b:5555', true, { browserName: 'chrome', browserVersion: '151.0.9' }),
    );
    const v152 = buildCapabilities({
      session: 's',
      browser: 'chrome',
      version: '152',
      headless: true,
      insecure: false,
    }).capabilities;
    assert.equal(chooseDownloads(versions, v152).ask, false);
  });

  test('a DOWN node counts only when none is UP', () => {
    const drained = grid(
      node('http://a:5555', true, undefined, 'DOWN'),
      node('http://b:5555', false),
    );
    assert.equal(chooseDownloads(drained, asked()).ask, false);
    assert.equal(
      chooseDownloads(grid(node('http://a:5555', true, undefined, 'DOWN')), asked()).ask,
      true,
    );
  });

  test('a Grid that cannot say asks for them as before: no node yet, or not reached', () => {
    assert.equal(chooseDownloads(grid(), asked()).ask, true);
    assert.equal(chooseDownloads({ ...grid(), reached: false }, asked()).ask, true);
    const other = grid(node('http://a:5555', false, { browserName: 'MicrosoftEdge' }));
    assert.equal(chooseDownloads(other, asked()).ask, true);
  });
});

describe('a queue timeout on a Grid where only some nodes offer managed downloads', () => {
  test('names the nodes that offer them and the option that turns them on', () => {
    const mixed = {
      ...grid(node('http://a:5555', false), node('http://b:5555', true)),
      downloads: 'some' as const,
    };
    const built = buildCapabilities({
      session: 's',
      browser: 'chrome',
      headless: true,
      insecure: false,
    });
    const e = fromNewSession(new QueueWaitExpired(3000), built, 'http://grid:4444', mixed);
    assert.match(e.message, /managed downloads, which only http:\/\/b:5555 offers on this Grid/);
    assert.match(e.message, /--enable-managed-downloads true/);
  });
});
