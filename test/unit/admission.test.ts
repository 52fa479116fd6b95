import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Hono } from 'hono';
import { OpError } from '../../src/core/errors.js';
import { Admission } from '../../src/sessions/admission.js';
import { failure } from '../../src/surfaces/http/respond.js';

const SATURATED = 'the machine is saturated (load 14.0 on 2 cores)';
const after = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('opening browsers on a saturated machine', () => {
  test('with CPU to spare every opening goes at once, and none says it waited', async () => {
    const admission = new Admission(60_000, () => undefined);
    const openings = await Promise.all(['a', 'b', 'c'].map((s) => admission.admit(s)));
    assert.deepEqual(
      openings.map((o) => o.note),
      [undefined, undefined, undefined],
    );
  });

  test('saturated, openings go one at a time in the order asked, and the waiting one says so', async () => {
    const admission = new Admission(60_000, () => SATURATED);
    const order: string[] = [];
    const open = async (s: string) => {
      const admitted = await admission.admit(s);
      order.push(`${s} opens`);
      await after(150);
      order.push(`${s} opened`);
      admitted.release();
      return admitted;
    };
    const [first, second] = await Promise.all([open('a'), open('b')]);
    assert.deepEqual(order, ['a opens', 'a opened', 'b opens', 'b opened']);
    assert.equal(first.note, undefined);
    assert.match(second.note ?? '', /^admission_queued: the machine is saturated .*waited 0\.\d s/);
  });

  test('a newcomer on a machine no longer saturated still waits behind the queue', async () => {
    let why: string | undefined = SATURATED;
    const admission = new Admission(60_000, () => why);
    const first = await admission.admit('a');
    why = undefined;
    let late = false;
    const second = admission.admit('b').then((a) => ((late = true), a));
    await after(50);
    assert.equal(late, false, 'it opened beside the one still opening');
    first.release();
    (await second).release();
  });

  test('one that waits past the limit is refused with a time to come back; the line moves on', async () => {
    const admission = new Admission(200, () => SATURATED);
    const first = await admission.admit('a');
    const refused = await admission.admit('b').catch((e: OpError) => e);
    assert.ok(refused instanceof OpError);
    assert.equal(refused.kind, 'session_limit');
    assert.match(refused.message, /1 were still ahead of this one after 0\.2 s \(ADMISSION_WAIT\)/);
    assert.equal(refused.details?.retry_after_s, 1);
    first.release();
    const third = await admission.admit('c');
    third.release();
  });

  test('ADMISSION_WAIT 0 opens at once however loaded', async () => {
    const admission = new Admission(0, () => SATURATED);
    await admission.admit('a');
    const second = await Promise.race([admission.admit('b'), after(100).then(() => 'waited')]);
    assert.notEqual(second, 'waited');
  });

  test('the HTTP refusal carries Retry-After', async () => {
    const app = new Hono();
    app.get('/', (c) =>
      failure(c, 'goto', new OpError('session_limit', 'queued', { details: { retry_after_s: 7 } })),
    );
    const res = await app.request('/');
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '7');
  });
});
