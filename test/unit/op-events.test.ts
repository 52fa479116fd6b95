import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SessionEvents } from '../../src/sessions/op-events.js';
import { PhaseTimes } from '../../src/ops/pipeline/result-builder.js';

describe('per-op events', () => {
  test('an op takes what happened while it ran, and nothing from before or after', () => {
    const events = new SessionEvents();
    events.tabOpened('t0');
    const op = events.watch();
    events.tabOpened('t2');
    events.navigationRefused('https://blocked.example/', 'not in ALLOWED_URLS');
    const taken = op.take();
    events.tabOpened('t3');
    assert.deepEqual(taken.openedTabs, ['t2']);
    assert.deepEqual(taken.refusedNavigations, [
      { url: 'https://blocked.example/', reason: 'not in ALLOWED_URLS' },
    ]);
  });

  test("a nested op's events are its parent's too", () => {
    const events = new SessionEvents();
    const batch = events.watch();
    events.tabOpened('t2');
    const step = events.watch();
    events.tabOpened('t3');
    assert.deepEqual(step.take().openedTabs, ['t3']);
    assert.deepEqual(batch.take().openedTabs, ['t2', 't3']);
  });

  test('a page refused in a loop keeps the first refusals, not every one', () => {
    const events = new SessionEvents();
    const op = events.watch();
    for (let i = 0; i < 500; i++) events.navigationRefused(`https://x.example/${i}`, 'blocked');
    const { refusedNavigations } = op.take();
    assert.equal(refusedNavigations.length, 20);
    assert.equal(refusedNavigations[0].url, 'https://x.example/0');
  });
});

describe('phase times', () => {
  test('phases are kept in the order they ran, in ms to 0.1, a repeated one summed', async () => {
    const times = new PhaseTimes();
    await times.time('prepare', () => new Promise((r) => setTimeout(r, 5)));
    times.add('act', 1.234);
    times.add('act', 1);
    await assert.rejects(times.time('settle', () => Promise.reject(new Error('gone'))));
    const record = times.record;
    assert.deepEqual(Object.keys(record), ['prepare', 'act', 'settle']);
    assert.ok(record.prepare >= 4, String(record.prepare));
    assert.equal(record.act, 2.2);
  });
});
