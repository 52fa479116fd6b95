// Grid backend: a Grid node that dies under a session (its machine lost, its pod evicted): the
// hub keeps listing it as up until its health check, and the browser's socket goes quiet.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserRecord } from '../../src/sessions/browser-record.js';
import { DEADLINE_MARGIN_MS } from '../../src/ops/deadline.js';
import { BACKEND } from '../helpers/backend.js';
import { startHubWithNode, type HubWithNode } from '../helpers/grid.js';
import { startHarness, type Harness } from '../helpers/harness.js';

const skip = BACKEND !== 'grid';

describe('a Grid node that dies under a session', () => {
  let grid: HubWithNode;
  let h: Harness;

  before(async () => {
    if (skip) return;
    // A slot free after the two sessions: the Grid sends the next open to the dead node at once.
    grid = await startHubWithNode(3);
    // A cold node's first Chromium takes seconds to start; the open after the loss takes none.
    h = await startHarness({ gridUrl: grid.url, gridQueueWaitMs: 20_000, timeoutMs: 5000 });
  });
  after(async () => {
    if (skip) return;
    await h.close();
    await grid.stop();
  });

  test(
    'an op in flight and an idle session each answer in time that the node went away, and the next open says the Grid has no live node',
    { skip },
    async () => {
      for (const session of ['lost', 'idle']) {
        const opened = await h.op('goto', { url: `${h.server.PREFIX}/index.html` }, session);
        assert.equal(
          opened.body.ok,
          true,
          `${JSON.stringify(opened.body.error)}\n${grid.nodeLog()}`,
        );
      }
      // An op waiting on the page when the node dies: its answer never comes over the socket.
      const started = Date.now();
      const inFlight = h.op(
        'evaluate',
        { script: 'new Promise((r) => setTimeout(() => r(1), 4000))' },
        'lost',
      );
      await new Promise((r) => setTimeout(r, 500));
      grid.killNode();
      const next = await inFlight;
      const took = Date.now() - started;
      assert.equal(next.body.error?.kind, 'backend', JSON.stringify(next.body));
      assert.ok(
        took <= next.body.timing.timeout_ms + DEADLINE_MARGIN_MS,
        `answered in ${took} ms, past its timeout of ${next.body.timing.timeout_ms} ms and the margin`,
      );
      assert.ok(
        next.body.error!.message.includes(`node ${grid.nodeUri} went away`),
        `names the lost node ${grid.nodeUri}: ${next.body.error!.message}`,
      );

      // A session with no op in flight meets the closed socket on its next op.
      const idle = await h.op('snapshot', {}, 'idle');
      assert.equal(idle.body.error?.kind, 'backend', JSON.stringify(idle.body));
      assert.ok(idle.body.error!.message.includes(`node ${grid.nodeUri} went away`));
      assert.match(idle.body.error!.message, /opens a new browser on the last URL/);
      assert.ok(idle.body.timing.duration_ms <= idle.body.timing.timeout_ms + DEADLINE_MARGIN_MS);

      const record = (await (await h.request('/admin/sessions/lost')).json()) as {
        browser_record?: BrowserRecord;
      };
      assert.equal(record.browser_record?.ran?.node, grid.nodeUri);
      assert.equal(record.browser_record?.ended?.by, 'grid');
      assert.equal(record.browser_record?.ended?.reason, 'node_lost');

      const reopened = await h.op('goto', { url: `${h.server.PREFIX}/index.html` }, 'lost');
      assert.equal(reopened.body.error?.kind, 'backend', JSON.stringify(reopened.body));
      assert.doesNotMatch(reopened.body.error!.message, /check the browser, version/);
      // The hub still lists the dead node as UP until its health check (120 s), then none.
      assert.match(
        reopened.body.error!.message,
        new RegExp(`node ${grid.nodeUri}, which did not answer|has no (live )?node`),
      );
    },
  );
});

describe('a Grid node whose machine vanishes under a session', () => {
  let grid: HubWithNode;
  let h: Harness;

  before(async () => {
    if (skip) return;
    grid = await startHubWithNode();
    h = await startHarness({ gridUrl: grid.url, gridQueueWaitMs: 20_000, timeoutMs: 5000 });
  });
  after(async () => {
    if (skip) return;
    await h.close();
    await grid.stop();
  });

  test(
    'an op in flight answers in its time that the node went away, though nothing answers the hub',
    { skip },
    async () => {
      const opened = await h.op('goto', { url: `${h.server.PREFIX}/index.html` }, 'vanished');
      assert.equal(opened.body.ok, true, `${JSON.stringify(opened.body.error)}\n${grid.nodeLog()}`);
      const started = Date.now();
      const inFlight = h.op(
        'evaluate',
        { script: 'new Promise((r) => setTimeout(() => r(1), 4000))', timeout: 10_000 },
        'vanished',
      );
      await new Promise((r) => setTimeout(r, 500));
      // Stopped, not killed: its sockets stay open and nothing on them answers, as a lost machine.
      grid.killNode('SIGSTOP');
      const next = await inFlight;
      const took = Date.now() - started;
      assert.equal(next.body.error?.kind, 'backend', JSON.stringify(next.body));
      assert.ok(took <= next.body.timing.timeout_ms + DEADLINE_MARGIN_MS, `answered in ${took} ms`);
      assert.ok(
        next.body.error!.message.includes(`node ${grid.nodeUri} went away`),
        next.body.error!.message,
      );
    },
  );
});
