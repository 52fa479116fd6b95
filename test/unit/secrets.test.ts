import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { OpError } from '../../src/core/errors.js';
import { BoundValues } from '../../src/core/redact.js';
import { BindAudit } from '../../src/secrets/audit.js';
import { SecretsCatalogue } from '../../src/secrets/catalogue.js';
import { FilesystemSource } from '../../src/secrets/filesystem-source.js';
import { originAllowed, parseAllowedOrigins } from '../../src/secrets/origins.js';
import { Secrets } from '../../src/secrets/secrets.js';
import { runSecretSourceSuite } from '../helpers/secret-source-suite.js';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'swiftbrowse-secrets-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

/** A Secrets over the given dirs whose server log lines are collected. */
function secretsOver(dirs: string[], ttlMs = 0) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const secrets = new Secrets(
    new SecretsCatalogue(
      dirs.map((d) => new FilesystemSource(d)),
      ttlMs,
    ),
    new BindAudit(pino({ level: 'info' }, sink)),
  );
  return { secrets, lines };
}

describe('allowed origins', () => {
  const entry = (lines: string[]) => ({
    restricted: true,
    allowedOrigins: parseAllowedOrigins(lines).origins,
  });

  test('https://allowed.example.com.evil.test is refused for https://allowed.example.com', () => {
    const allowed = entry(['https://allowed.example.com']);
    assert.equal(originAllowed('https://allowed.example.com/login?next=/', allowed), true);
    assert.equal(originAllowed('https://allowed.example.com.evil.test/login', allowed), false);
    assert.equal(originAllowed('https://evil.test/?u=https://allowed.example.com', allowed), false);
    assert.equal(originAllowed('http://allowed.example.com/', allowed), false, 'scheme');
    assert.equal(originAllowed('https://allowed.example.com:8443/', allowed), false, 'port');
    assert.equal(originAllowed('https://allowed.example.com:443/', allowed), true);
    assert.equal(originAllowed('about:blank', allowed), false);
  });

  test('a refused line is rebuilt from scheme, host and port: a token in it is never echoed', () => {
    const parsed = parseAllowedOrigins([
      '# staging',
      'https://a.example.com',
      'https://a.example.com/login?token=abc123',
      'https://user:pw@b.example.com',
      'not a url at all',
      'ftp://c.example.com',
    ]);
    assert.deepEqual(parsed.origins, ['https://a.example.com']);
    assert.equal(parsed.rejected.length, 4);
    const text = parsed.rejected.join('\n');
    for (const leak of ['abc123', 'token', 'user:pw', 'pw@', 'not a url'])
      assert.ok(!text.includes(leak), leak);
    assert.match(
      parsed.rejected[0],
      /line 3: https:\/\/a\.example\.com carried a path and a query/,
    );
  });

  test('a declaration that parses to nothing allows nothing; no declaration allows everywhere', () => {
    assert.equal(originAllowed('https://x.test/', entry(['https://x.test/path'])), false);
    assert.equal(originAllowed('https://x.test/', { restricted: false, allowedOrigins: [] }), true);
  });
});

describe('filesystem source', () => {
  runSecretSourceSuite('filesystem', async () => {
    const dir = mkdtempSync(join(root, 'suite-'));
    write(join(dir, 'site', 'password'), 'suite-value\n');
    write(join(dir, 'site', '_allowed_urls'), 'https://site.example.com\n');
    return {
      source: new FilesystemSource(dir),
      name: 'site',
      key: 'password',
      value: 'suite-value',
      origin: 'https://site.example.com',
    };
  });

  test('the Kubernetes ..data layout is read; dotfiles, nested directories and reserved names are not keys', async () => {
    const dir = join(root, 'k8s');
    const secret = join(dir, 'admin');
    write(join(secret, '..2026_11_29_10_00_00.123', 'password'), 's3cret\n');
    write(join(secret, '..2026_11_29_10_00_00.123', 'username'), 'admin');
    write(
      join(secret, '..2026_11_29_10_00_00.123', '_allowed_urls'),
      'https://admin.example.com\n',
    );
    symlinkSync('..2026_11_29_10_00_00.123', join(secret, '..data'));
    for (const key of ['password', 'username', '_allowed_urls'])
      symlinkSync(join('..data', key), join(secret, key));
    write(join(secret, '.dockerconfigjson'), '{}');
    mkdirSync(join(secret, 'nested'));
    write(join(dir, '.hidden', 'key'), 'x');
    const { entries } = await new FilesystemSource(dir).list();
    assert.deepEqual(entries, [
      {
        name: 'admin',
        keys: ['password', 'username'],
        allowedOrigins: ['https://admin.example.com'],
        restricted: true,
        rejected: [],
      },
    ]);
  });

  test('a secret directory that cannot be read leaves the rest listed', async () => {
    const dir = join(root, 'partly');
    write(join(dir, 'good', 'token'), 't');
    write(join(dir, 'locked', 'token'), 't');
    chmodSync(join(dir, 'locked'), 0o000); // effective unless running as root
    symlinkSync('loop', join(dir, 'loop')); // ELOOP for everyone, root included
    const { secrets } = secretsOver([dir]);
    const listed = (await secrets.list('s')) as { secrets: { name: string }[]; problems: string[] };
    chmodSync(join(dir, 'locked'), 0o755);
    const names = listed.secrets.map((s) => s.name);
    assert.ok(names.includes('good'));
    assert.ok(!names.includes('loop'));
    assert.ok(
      listed.problems.some((p) => /secret loop cannot be read/.test(p)),
      listed.problems.join(),
    );
  });

  test('the first directory offering a name wins and the listing says which', async () => {
    const first = join(root, 'first');
    const second = join(root, 'second');
    write(join(first, 'shared', 'a'), '1');
    write(join(second, 'shared', 'b'), '2');
    write(join(second, 'only-second', 'c'), '3');
    write(join(first, 'shared', '_description'), 'The first one\n');
    const { secrets } = secretsOver([first, join(root, 'missing'), second]);
    const listed = (await secrets.list('s')) as {
      secrets: { name: string; keys: string[]; source: string; description?: string }[];
      problems: string[];
    };
    const shared = listed.secrets.find((s) => s.name === 'shared')!;
    assert.deepEqual(shared.keys, ['a']);
    assert.equal(shared.source, `filesystem:${first}`);
    assert.equal(shared.description, 'The first one');
    assert.ok(listed.secrets.some((s) => s.name === 'only-second'));
    assert.ok(
      listed.problems.some((p) => p.includes('missing')),
      'a missing directory is a problem, not a failure',
    );
    assert.ok(!JSON.stringify(listed).includes('"1"'));
  });
});

describe('binding', () => {
  const dir = () => join(root, 'bind');
  before(() => {
    write(join(dir(), 'site', 'password'), 'first-value\n');
    write(join(dir(), 'site', '_allowed_urls'), 'https://allowed.example.com\n');
  });

  test('a bind on an allowed origin returns the value, remembers it and audits it without it', async () => {
    const { secrets, lines } = secretsOver([dir()], 60_000);
    const session = { name: 's1', bound: new BoundValues() };
    const ctx = { session, op: 'fill', flow: 'login', step: '3' };
    const value = await secrets.bind(
      ctx,
      { name: 'site', key: 'password' },
      'https://allowed.example.com/login',
    );
    assert.equal(value, 'first-value', 'one final newline is dropped');
    assert.equal(session.bound.taints('x first-value y'), true);
    // The value is read fresh at every bind, although the catalogue is cached.
    writeFileSync(join(dir(), 'site', 'password'), 'rotated-value');
    assert.equal(
      await secrets.bind(ctx, { name: 'site', key: 'password' }, 'https://allowed.example.com/'),
      'rotated-value',
    );
    const audit = lines.filter((l) => l.event === 'secret_bind');
    assert.equal(audit.length, 2);
    assert.deepEqual(
      { ...audit[0], time: 0, pid: 0, hostname: '', msg: '' },
      {
        level: 30,
        time: 0,
        pid: 0,
        hostname: '',
        msg: '',
        event: 'secret_bind',
        session: 's1',
        op: 'fill',
        flow: 'login',
        step: '3',
        secret: 'site',
        key: 'password',
        url: 'https://allowed.example.com/login',
        allowed: true,
      },
    );
    assert.ok(!JSON.stringify(lines).includes('first-value'));
    assert.ok(!JSON.stringify(lines).includes('rotated-value'));
  });

  test('a bind on another origin is refused at warn, naming the allowed origin, and reads nothing', async () => {
    const { secrets, lines } = secretsOver([dir()]);
    const session = { name: 's2', bound: new BoundValues() };
    await assert.rejects(
      secrets.bind(
        { session, op: 'fill' },
        { name: 'site', key: 'password' },
        'https://allowed.example.com.evil.test/login',
      ),
      (e: OpError) =>
        e.kind === 'permission_denied' && e.message.includes('https://allowed.example.com;'),
    );
    assert.equal(session.bound.size, 0);
    assert.equal(lines.at(-1)?.level, 40);
    assert.equal(lines.at(-1)?.allowed, false);
  });

  test('an unknown secret or key is refused listing what exists, and the audit does not echo the request', async () => {
    const { secrets, lines } = secretsOver([dir()]);
    const session = { name: 's3', bound: new BoundValues() };
    await assert.rejects(
      secrets.bind(
        { session, op: 'fill' },
        { name: 'hunter2-typed-by-mistake', key: 'password' },
        'https://allowed.example.com/',
      ),
      /no secret named .* Secrets: site/,
    );
    await assert.rejects(
      secrets.bind(
        { session, op: 'fill' },
        { name: 'site', key: 'pasword' },
        'https://allowed.example.com/',
      ),
      /keys are password/,
    );
    assert.ok(!JSON.stringify(lines).includes('hunter2'));
  });

  test('a secret in evaluate, goto, press or a condition is refused with the reason', () => {
    const { secrets, lines } = secretsOver([dir()]);
    const session = { name: 's4', bound: new BoundValues() };
    const cases: [string, unknown, RegExp][] = [
      [
        'evaluate',
        { script: 'x', secret: { name: 'site', key: 'password' } },
        /script is arbitrary code/,
      ],
      ['goto', { url: 'https://x', secret: { name: 'site', key: 'password' } }, /history/],
      ['press', { key: 'a', secret: { name: 'site', key: 'password' } }, /keys, not a value/],
      [
        'click',
        {
          target: { css: 'a' },
          expect: { value: { css: '#p' }, secret: { name: 'site', key: 'password' } },
        },
        /^expect cannot carry a secret/,
      ],
      ['assert', { value: { css: '#p' }, secret: { name: 'site', key: 'password' } }, /condition/],
    ];
    for (const [op, args, reason] of cases) {
      assert.throws(
        () => secrets.refuseMisplaced({ session, op }, args, { secretRefsAsData: false }),
        (e: OpError) =>
          e.kind === 'permission_denied' && reason.test(e.message) && /fill/.test(e.message),
        op,
      );
    }
    assert.equal(lines.filter((l) => l.level === 40).length, cases.length);
    secrets.refuseMisplaced(
      { session, op: 'fill' },
      { target: { css: '#p' }, secret: { name: 'site', key: 'password' } },
      { secretRefsAsData: false },
    );
    secrets.refuseMisplaced(
      { session, op: 'batch' },
      { steps: [{ op: 'fill', args: { secret: {} } }] },
      { secretRefsAsData: true },
    );
  });
});
