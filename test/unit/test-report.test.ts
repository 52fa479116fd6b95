import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SCRIPT_NOT_SHOWN, withoutScripts } from '../../src/core/condition.js';
import { classnameOf } from '../../src/flows/test-report.js';

describe('test reports', () => {
  test('a JUnit classname is the path without its extension, directories as dots', () => {
    assert.equal(classnameOf('flows/auth/login.yaml'), 'flows.auth.login');
    assert.equal(classnameOf('smoke.YML'), 'smoke');
    assert.equal(classnameOf('../../tmp/ci/flows/checkout.yml'), 'tmp.ci.flows.checkout');
    assert.equal(classnameOf('flows\\win\\a.yaml'), 'flows.win.a');
  });

  test('no js script survives withoutScripts, in either form, at any depth', () => {
    const report = {
      checks: [
        { condition: { type: 'js', value: 'return secret === "x"' }, passed: false },
        { condition: { type: 'url_contains', value: 'dashboard' }, passed: true },
      ],
      step_error: { all: [{ js: 'return 1 === 1' }] },
    };
    const clean = withoutScripts(report);
    assert.ok(!JSON.stringify(clean).includes('return'), JSON.stringify(clean));
    assert.equal(clean.checks[0].condition.value, SCRIPT_NOT_SHOWN);
    assert.equal(clean.checks[1].condition.value, 'dashboard', 'other conditions are kept');
    assert.equal(
      report.checks[0].condition.value,
      'return secret === "x"',
      'the input is not changed',
    );
  });
});
