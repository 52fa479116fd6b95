// Server surface: the reliability run starts and reports.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const MAIN = fileURLToPath(new URL('../../bench/reliability/main.js', import.meta.url));

// The short reliability run CI keeps: fixed seed, small count, the local backend. A check an open
// issue owns reports OPEN and fails nothing; any other failure fails this test.
test('npm run reliability --short passes every check', { timeout: 15 * 60_000 }, () => {
  const run = spawnSync(
    process.execPath,
    [MAIN, '--short', '--seed', '16', '--count', '40', '--backend', 'playwright'],
    { encoding: 'utf8', timeout: 14 * 60_000 },
  );
  const summary = /^reliability: (\d+) passed, (\d+) failed$/m.exec(run.stdout);
  assert.ok(summary, `no summary line; stderr: ${run.stderr.slice(-2000)}`);
  assert.equal(Number(summary[2]), 0, run.stdout.slice(-6000));
  assert.equal(run.status, 0);
});
