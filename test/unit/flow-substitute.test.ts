import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referencesIn, substituteText } from '../../src/flows/substitute.js';

const values = new Map([
  ['site', 'https://example.com'],
  ['token', '${site}'],
]);

test('a reference is replaced in one pass: a value that looks like a reference stays as given', () => {
  assert.equal(
    substituteText('${site}/login?t=${token}', values),
    'https://example.com/login?t=${site}',
  );
});

test('$${ writes a literal ${, and a name not supplied is left exactly as written', () => {
  assert.equal(substituteText('`n=$${n}` ${window.scrollY}', values), '`n=${n}` ${window.scrollY}');
  assert.deepEqual(referencesIn('`$${n}` ${a} $${b} ${c}'), ['a', 'c']);
});
