import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compactAnswer, type ShownPage } from '../../src/core/compact-answer.js';
import type { ActionResult } from '../../src/core/result.js';

const LOGIN: ShownPage = { url: 'http://127.0.0.1:3000/login.html', title: 'Sign in', tab: 't1' };

/** A fill by label that changed one line, as runOp answers it. */
function fill(overrides: Partial<ActionResult> = {}): ActionResult {
  return {
    ok: true,
    op: 'fill',
    action_id: '_stdio-2',
    session_id: '_stdio',
    target: {
      element: { tag: 'input', ref: 'BBB', role: 'textbox', name: 'Email' },
      strategy: 'label',
      candidates: 1,
    },
    page: LOGIN,
    verification: { status: 'not_checked' },
    data: {
      value: 'ada@example.com',
      changes: { added: 'BBB#inp-email ada@example.com', removed_count: 1 },
    },
    timing: { started_at_ms: 1796126504674, duration_ms: 94, timeout_ms: 10000 },
    ...overrides,
  };
}

test('a fill on an unchanged page keeps its data and the element it found, nothing the caller said', () => {
  const { answer, shown } = compactAnswer(fill(), LOGIN);
  assert.deepEqual(answer, {
    ok: true,
    target: { ref: 'BBB', name: 'Email' },
    data: fill().data,
  });
  assert.deepEqual(shown, LOGIN);
  assert.ok(JSON.stringify(answer).length * 3 < JSON.stringify(fill()).length);
});

test('the page is named on a session’s first answer, when it changed, and on a navigation', () => {
  assert.deepEqual(compactAnswer(fill()).answer.page, LOGIN, 'first answer');
  const retitled = { ...LOGIN, title: 'Sign in (2 errors)' };
  assert.deepEqual(compactAnswer(fill({ page: retitled }), LOGIN).answer.page, retitled);
  const otherTab = { ...LOGIN, tab: 't2' };
  assert.deepEqual(compactAnswer(fill({ page: otherTab }), LOGIN).answer.page, otherTab);
  const reload = fill({ notes: ['navigated'] });
  assert.deepEqual(compactAnswer(reload, LOGIN).answer.page, LOGIN, 'a reload of the same URL');
});

test('a failure keeps its error whole, its page, evidence and notes', () => {
  const error = {
    kind: 'not_actionable' as const,
    message: 'The button "Pay" is covered by div#ad on http://127.0.0.1:3000/login.html.',
    recoverable: true,
    details: { covered_by: 'div#ad' },
    hint: { read: 'skill://swiftbrowse/SKILL.md#covered' },
  };
  const evidence = [
    { kind: 'screenshot' as const, name: 'fail-3.png', url: '/files/fail-3.png?sig=x' },
  ];
  const failed = fill({ ok: false, error, evidence, notes: ['dialog_dismissed'], data: undefined });
  const { answer } = compactAnswer(failed, LOGIN);
  assert.deepEqual(answer.error, error);
  assert.deepEqual(answer.page, LOGIN);
  assert.deepEqual(answer.evidence, evidence);
  assert.deepEqual(answer.notes, ['dialog_dismissed']);
});

test('a verification is kept when checked, passed or failed; not_checked is left out', () => {
  const checks = [
    { condition: { type: 'url_contains' as const, value: 'dashboard' }, passed: false },
  ];
  const failed = compactAnswer(fill({ verification: { status: 'failed', checks } }), LOGIN);
  assert.deepEqual(failed.answer.verification, { status: 'failed', checks });
  const passed = compactAnswer(fill({ verification: { status: 'passed', checks } }), LOGIN);
  assert.equal(passed.answer.verification?.status, 'passed');
  assert.equal(compactAnswer(fill(), LOGIN).answer.verification, undefined);
});

test('the target says only what the call did not: nothing for a ref, the role for a selector, candidates past one', () => {
  const byRef = fill({ target: { ...fill().target!, strategy: 'ref' } });
  assert.equal(compactAnswer(byRef, LOGIN).answer.target, undefined);
  const byCss = fill({ target: { ...fill().target!, strategy: 'css', candidates: 3 } });
  assert.deepEqual(compactAnswer(byCss, LOGIN).answer.target, {
    ref: 'BBB',
    name: 'Email',
    role: 'textbox',
    candidates: 3,
  });
});

test('a batch renders each step compactly, its pages in order', () => {
  const dashboard = { ...LOGIN, url: 'http://127.0.0.1:3000/dashboard', title: 'Dashboard' };
  const steps = [
    fill(),
    fill({ op: 'click', page: dashboard, notes: ['navigated'] }),
    fill({ page: dashboard }),
  ];
  const batch: ActionResult = {
    ...fill({ op: 'batch', target: undefined, page: dashboard }),
    data: { results: steps, ran: 3, total: 3, failed: 0 },
  };
  const { answer, shown } = compactAnswer(batch, LOGIN);
  const results = answer.data?.results as { page?: ShownPage; timing?: unknown }[];
  assert.deepEqual(
    results.map((r) => r.page?.title),
    [undefined, 'Dashboard', undefined],
  );
  assert.ok(results.every((r) => r.timing === undefined));
  assert.equal(answer.page, undefined, 'the batch ends on the page its last step named');
  assert.deepEqual(shown, dashboard);
});

test('a refusal before any op ran is its error alone', () => {
  const error = { kind: 'session_not_found' as const, message: 'No session.', recoverable: false };
  assert.deepEqual(compactAnswer({ ok: false, op: 'click', error }).answer, { ok: false, error });
});
