import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../../src/config.js';
import { outlineFlow } from '../../src/flows/outline.js';
import { FlowLibrary } from '../../src/flows/library.js';
import { OP_MAP } from '../../src/ops/registry.js';
import { BindAudit, type BindRecord } from '../../src/secrets/audit.js';
import { auditEntries } from '../../src/surfaces/http/admin-audit.js';
import { MASK, settingsView } from '../../src/surfaces/http/admin-settings.js';
import { insidePrefix, prefixedGetPath } from '../../src/surfaces/http/route-prefix.js';

const TOKEN = 'caller-token-0123456789';
const ADMIN = 'operator-token-0123456789';

test('settings name their source and never show a secret', () => {
  const config = loadConfig(
    {
      SWIFTBROWSE_TOKEN: TOKEN,
      SWIFTBROWSE_ADMIN_TOKEN: ADMIN,
      MAX_SESSIONS: '4',
      REDIS_URL: 'redis://:hunter2-pass@redis.internal:6379/0',
      PORT: '9999',
    },
    { port: 0, dataDir: tmpdir() },
  );
  const view = settingsView(config);
  const by = new Map(view.map((s) => [s.name, s]));
  assert.equal(view.length, Object.keys(config.sources).length);
  assert.deepEqual([by.get('port')?.value, by.get('port')?.source], [0, 'flag']);
  assert.deepEqual([by.get('maxSessions')?.value, by.get('maxSessions')?.source], [4, 'env']);
  assert.deepEqual([by.get('headless')?.value, by.get('headless')?.source], [true, 'default']);
  assert.deepEqual(
    [by.get('token')?.value, by.get('token')?.secret, by.get('token')?.env],
    [MASK, true, 'SWIFTBROWSE_TOKEN'],
  );
  assert.equal(by.get('adminToken')?.value, MASK);
  assert.equal(by.get('signingKey')?.value, null, 'an unset secret says it is unset');
  assert.equal(by.get('redisUrl')?.value, `redis://:${MASK}@redis.internal:6379/0`);
  const text = JSON.stringify(view);
  for (const hidden of [TOKEN, ADMIN, 'hunter2-pass']) assert.ok(!text.includes(hidden), hidden);
});

test('ROUTE_PREFIX takes a path, drops a trailing slash, and refuses anything else', () => {
  assert.equal(loadConfig({ ROUTE_PREFIX: '/sb/' }).routePrefix, '/sb');
  assert.equal(loadConfig({ ROUTE_PREFIX: '/' }).routePrefix, '');
  assert.equal(loadConfig({}).routePrefix, '');
  assert.throws(() => loadConfig({ ROUTE_PREFIX: 'sb' }), ConfigError);
  assert.throws(() => loadConfig({ ROUTE_PREFIX: '/a b' }), /ROUTE_PREFIX/);
  const strip = prefixedGetPath('/sb');
  assert.equal(strip(new Request('http://x/sb/browser/goto?a=1')), '/browser/goto');
  assert.equal(strip(new Request('http://x/sb')), '/');
  assert.equal(strip(new Request('http://x/sbx/health')), '/sbx/health');
  assert.equal(insidePrefix('/sb', '/sbx'), false);
});

test('MCP_SESSIONS_PER_CALLER defaults to a quarter of MCP_MAX_SESSIONS, at least 1', () => {
  const share = (env: NodeJS.ProcessEnv) => {
    const by = new Map(settingsView(loadConfig(env)).map((s) => [s.name, s]));
    const view = by.get('mcpSessionsPerCaller');
    return [view?.value, view?.source];
  };
  assert.deepEqual(share({}), [25, 'default']);
  assert.deepEqual(share({ MCP_MAX_SESSIONS: '10' }), [2, 'default']);
  assert.deepEqual(share({ MCP_MAX_SESSIONS: '3' }), [1, 'default']);
  assert.deepEqual(share({ MCP_SESSIONS_PER_CALLER: '40' }), [40, 'env']);
  assert.throws(() => loadConfig({ MCP_SESSIONS_PER_CALLER: '0' }), /MCP_SESSIONS_PER_CALLER/);
});

const bind = (n: number, allowed: boolean): BindRecord => ({
  event: 'secret_bind',
  session: `s${n}`,
  op: 'fill',
  secret: 'admin',
  key: 'password',
  url: `https://login.example.com/path?code=one-time-${n}`,
  allowed,
  ...(allowed ? {} : { reason: 'the page is not allowed' }),
});

test('the audit keeps the newest binds up to its capacity, refusals first, origins only', () => {
  const audit = new BindAudit(pino({ level: 'silent' }), 5);
  const t0 = Date.UTC(2026, 0, 1);
  for (let n = 1; n <= 8; n++) audit.record(bind(n, n !== 2 && n !== 6), new Date(t0 + n * 1000));
  assert.equal(audit.recent().length, 5, 'the oldest three are dropped');
  const entries = auditEntries(audit);
  // s2 (refused) was dropped with the oldest; s6 is the only refusal kept.
  assert.deepEqual(
    entries.map((e) => [e.session, e.allowed]),
    [
      ['s6', false],
      ['s8', true],
      ['s7', true],
      ['s5', true],
      ['s4', true],
    ],
  );
  assert.equal(entries[0].at, new Date(t0 + 6000).toISOString());
  assert.equal(entries[0].url, 'https://login.example.com');
  assert.ok(!JSON.stringify(entries).includes('one-time'));
});

test('the outline lists parameters with the steps that read them, and calls out an unread one', async () => {
  const root = mkdtempSync(join(tmpdir(), 'swiftbrowse-outline-'));
  try {
    const store = new FlowLibrary(root);
    const yaml = `name: sign-in
parameters:
  type: object
  properties:
    site: { type: string, description: The site's base URL, default: "https://example.com" }
    user: { type: string }
    unused: { type: integer }
steps:
  - id: open
    op: goto
    args: { url: "\${site}/login" }
  - op: fill
    args: { target: { label: User }, value: "\${user}" }
    note: the name field
  - id: pw
    op: fill
    args: { target: { label: Password }, secret: { name: admin, key: password } }
    on_error: continue
  - id: literal
    op: evaluate
    args: { script: "\`$\${user}\` + '\${site}'" }
`;
    await store.write('global', 'sign-in', yaml);
    const outline = await outlineFlow(store, OP_MAP, 'global', 'sign-in');
    assert.equal(outline.library, 'global');
    assert.match(outline.revision, /\S/);
    assert.deepEqual(
      outline.params.map((p) => [p.name, p.type, p.read_by, p.unread]),
      [
        ['site', 'string', ['open', 'literal'], false],
        ['user', 'string', ['2'], false],
        ['unused', 'integer', [], true],
      ],
    );
    assert.equal(outline.params[0].description, "The site's base URL");
    assert.equal(outline.params[0].default, 'https://example.com');
    assert.deepEqual(
      outline.steps.map((s) => [s.id, s.op, s.binds_secret, s.reads]),
      [
        ['open', 'goto', false, ['site']],
        ['2', 'fill', false, ['user']],
        ['pw', 'fill', true, []],
        ['literal', 'evaluate', false, ['site']],
      ],
    );
    assert.equal(outline.steps[1].note, 'the name field');
    assert.equal(outline.steps[2].on_error, 'continue');
    await assert.rejects(outlineFlow(store, OP_MAP, 'global', 'nope'), /No flow "nope"/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
