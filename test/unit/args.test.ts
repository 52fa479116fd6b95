import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseArgs } from '../../src/core/args.js';
import { OP_MAP } from '../../src/ops/registry.js';

/** The sentence an op's arguments are refused with, or "ok" with what was taken. */
function said(op: string, args: unknown): string {
  try {
    return `ok ${JSON.stringify(parseArgs(op, OP_MAP.get(op)!.args, args))}`;
  } catch (e) {
    return (e as Error).message;
  }
}

describe('argument errors say what was expected and what came', () => {
  test('a value of the wrong type is not called missing', () => {
    assert.equal(said('goto', { url: 42 }), 'goto: url: expected string, got number.');
    assert.equal(said('goto', {}), 'goto: missing url (string).');
    assert.equal(said('goto', { url: null }), 'goto: url: expected string, got null.');
  });

  test('booleans sent as "true"/"false" are taken, as numbers sent as strings are', () => {
    assert.match(said('screenshot', { save: 'false' }), /^ok .*"save":false/);
    assert.match(
      said('screenshot', { save: 'true', quality: '50', format: 'jpeg' }),
      /"quality":50/,
    );
    assert.equal(
      said('screenshot', { save: 'maybe' }),
      'screenshot: save: expected boolean, got string.',
    );
  });

  test("a target's key sent beside the target names where it belongs", () => {
    assert.match(
      said('fill', { css: '#name', value: 'x' }),
      /"css" goes inside target: \{"target": \{"css": …\}\}/,
    );
    // An op without a target keeps the plain unknown-argument sentence.
    assert.match(
      said('goto', { url: 'http://127.0.0.1/', css: 'x' }),
      /unknown argument "css" — goto takes/,
    );
  });
});
