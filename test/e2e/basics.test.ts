import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

describe('navigation and the ActionResult', () => {
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
});
