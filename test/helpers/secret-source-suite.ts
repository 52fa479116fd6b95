import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SecretSource } from '../../src/secrets/source.js';

/** What a source under test holds: one secret with one key, restricted to one origin. */
export interface SecretSourceFixture {
  source: SecretSource;
  name: string;
  key: string;
  value: string;
  origin: string;
}

/** The behaviour every SecretSource shares (STYLE: one conformance suite per seam). */
export function runSecretSourceSuite(label: string, make: () => Promise<SecretSourceFixture>) {
  test(`${label}: lists the secret with its keys and origin, and no value`, async () => {
    const f = await make();
    const { entries } = await f.source.list();
    const entry = entries.find((e) => e.name === f.name);
    assert.ok(entry, JSON.stringify(entries));
    assert.ok(entry.keys.includes(f.key));
    assert.ok(!entry.keys.some((k) => k.startsWith('_')), 'reserved names are never keys');
    assert.deepEqual([entry.restricted, entry.allowedOrigins], [true, [f.origin]]);
    assert.ok(!JSON.stringify(entries).includes(f.value));
  });

  test(`${label}: reads a value fresh by entry and key`, async () => {
    const f = await make();
    const entry = (await f.source.list()).entries.find((e) => e.name === f.name)!;
    assert.equal((await f.source.read(entry, f.key)).replace(/\n$/, ''), f.value);
  });
}
