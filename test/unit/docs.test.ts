import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { SETTINGS } from '../../src/config.js';
import { OPS } from '../../src/ops/registry.js';

const README = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');

const section = (title: string) => {
  const start = README.indexOf(`## ${title}\n`);
  assert.ok(start >= 0, `README has no "## ${title}" section`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
};

test('the README configuration table lists every setting', () => {
  const table = section('Configuration');
  const missing = Object.values(SETTINGS)
    .map((s) => s.env)
    .filter((env) => !table.includes(`| \`${env}\` |`));
  assert.deepEqual(missing, []);
});

test('the README operations table names every op', () => {
  const table = section('Operations');
  const missing = OPS.map((op) => op.name).filter((name) => !table.includes(`\`${name}\``));
  assert.deepEqual(missing, []);
});
