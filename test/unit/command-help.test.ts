import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Every script in bench/ and scripts/ that takes arguments, as a user runs it. */
const SCRIPTS: [string, string[]][] = [
  ['bench/main', [process.execPath, 'dist/bench/main.js']],
  ['bench/reliability/main', [process.execPath, 'dist/bench/reliability/main.js']],
  ['bench/backends', [process.execPath, 'dist/bench/backends.js']],
  ['scripts/run-tests.mjs', [process.execPath, 'scripts/run-tests.mjs']],
  ['scripts/bootstrap.sh', ['bash', 'scripts/bootstrap.sh']],
];

for (const [name, [command, ...args]] of SCRIPTS) {
  test(`${name} --help prints its usage and exits 0, starting nothing`, () => {
    const r = spawnSync(command, [...args, '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 0, `${r.stderr}${r.stdout}`);
    assert.match(r.stdout, /^(\/\/ )?Usage: /m);
    assert.ok(r.stdout.includes(args[0].replace(/^dist\//, '')), r.stdout);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  });
}

test('a flag a bench script does not take is named, with the usage, exit 2', () => {
  const r = spawnSync(process.execPath, [join('dist/bench/reliability/main.js'), '--nope'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 2, `${r.stderr}${r.stdout}`);
  assert.match(r.stderr, /--nope/);
  assert.match(r.stderr, /Usage: /);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});
