import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OneAtATime } from '../../src/drivers/one-at-a-time.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('tasks never overlap, run in the order given, and a failure does not stop the next', async () => {
  const line = new OneAtATime();
  const seen: string[] = [];
  const task =
    (name: string, ms: number, fail = false) =>
    async () => {
      seen.push(`${name} start`);
      await sleep(ms);
      seen.push(`${name} end`);
      if (fail) throw new Error(name);
      return name;
    };
  const results = await Promise.allSettled([
    line.run(task('capture', 30)),
    line.run(task('resize', 1, true)),
    line.run(task('screenshot', 5)),
  ]);
  assert.deepEqual(seen, [
    'capture start',
    'capture end',
    'resize start',
    'resize end',
    'screenshot start',
    'screenshot end',
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
});

test('a task that hangs holds the next one no longer than the patience', async () => {
  const line = new OneAtATime(50);
  void line.run(() => new Promise(() => undefined));
  const started = Date.now();
  assert.equal(await line.run(async () => 'ran'), 'ran');
  assert.ok(Date.now() - started < 1000);
});
