// Browser behaviour: persistent profiles and storage state.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BACKEND } from '../helpers/backend.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pageValue } from '../helpers/page.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

describe('persistent profiles (open {profile})', () => {
  if (BACKEND === 'grid') {
    test('a Grid session refuses a profile and says what to use instead', async () => {
      const r = await h.op('open', { profile: 'shop' }, 'p-grid');
      assert.equal(r.body.ok, false);
      assert.equal(r.body.error?.kind, 'unsupported');
      assert.match(r.body.error!.message, /storage state/);
    });
    return;
  }

  test('cookies and storage survive closing the browser; the profile is held by one session', async () => {
    const page = `${h.server.PREFIX}/login.html`;
    assert.equal((await h.op('open', { profile: 'shop', url: page }, 'p1')).body.ok, true);
    await pageValue(
      h,
      `document.cookie = 'kept=yes; max-age=3600; path=/'; localStorage.setItem('cart', '3'); return true`,
      'p1',
    );
    const taken = await h.op('open', { profile: 'shop', url: page }, 'p2');
    assert.equal(taken.body.error?.kind, 'invalid_argument');
    assert.match(taken.body.error!.message, /Profile "shop" is in use by another session/);

    assert.equal((await h.op('close', {}, 'p1')).body.ok, true);
    const again = await h.op('open', { profile: 'shop', url: page }, 'p2');
    assert.equal(again.body.ok, true, JSON.stringify(again.body.error));
    assert.deepEqual(
      await pageValue(h, `return [document.cookie, localStorage.getItem('cart')]`, 'p2'),
      ['kept=yes', '3'],
    );

    const fresh = await h.op('open', { url: page }, 'p3');
    assert.equal(fresh.body.ok, true);
    assert.deepEqual(
      await pageValue(h, `return [document.cookie, localStorage.getItem('cart')]`, 'p3'),
      ['', null],
      'a session without the profile starts clean',
    );
    await h.op('close', {}, 'p2');
    await h.op('close', {}, 'p3');
  });
});
