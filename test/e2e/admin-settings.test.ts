// Server surface: /admin/settings: every setting with its source.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { mcpInitialize } from '../helpers/mcp-initialize.js';

const ADMIN_TOKEN = 'operator-token-e2e-0123456789';
const SIGNING_KEY = 'signing-key-e2e-0123456789abcdef';
const VALUE = 'pw-e2e-never-shown-7f3a';
const OPERATOR = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface Entry {
  at: string;
  session: string;
  op: string;
  secret: string;
  key: string;
  url?: string;
  allowed: boolean;
  reason?: string;
}

let h: Harness;
let secretsDir: string;

const admin = async <T>(
  x: Harness,
  path: string,
): Promise<{ status: number; text: string; body: T }> => {
  const r = await x.request(path, { headers: OPERATOR });
  const text = await r.text();
  return { status: r.status, text, body: JSON.parse(text) as T };
};

const fillPassword = (secret: string) =>
  h.op('fill', { target: { label: 'Password' }, secret: { name: secret, key: 'password' } }, 'aud');

before(async () => {
  secretsDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-admin-secrets-'));
  h = await startHarness({
    adminToken: ADMIN_TOKEN,
    signingKey: SIGNING_KEY,
    secretsDirs: [secretsDir],
  });
  mkdirSync(join(secretsDir, 'admin'));
  writeFileSync(join(secretsDir, 'admin', 'password'), VALUE);
  writeFileSync(join(secretsDir, 'admin', '_allowed_urls'), `${h.server.PREFIX}\n`);
  mkdirSync(join(secretsDir, 'other'));
  writeFileSync(join(secretsDir, 'other', 'password'), 'other-never-typed');
  writeFileSync(join(secretsDir, 'other', '_allowed_urls'), 'https://allowed.example.com\n');
  h.server.setContent(
    '/admin-login.html',
    `<!doctype html><title>Sign in</title>
     <label for="pw">Password</label><input id="pw" type="password">`,
  );
});
after(async () => {
  await h?.close();
  rmSync(secretsDir, { recursive: true, force: true });
});

describe('the admin API for the console', () => {
  test('settings list every value with its source, tokens masked', async () => {
    const r = await admin<{
      settings: { name: string; env: string; value: unknown; source: string; secret: boolean }[];
    }>(h, '/admin/settings');
    assert.equal(r.status, 200, r.text);
    const by = new Map(r.body.settings.map((s) => [s.env, s]));
    const token = by.get('SWIFTBROWSE_ADMIN_TOKEN');
    assert.deepEqual([token?.value, token?.secret, token?.source], ['••••', true, 'flag']);
    assert.equal(by.get('SIGNING_KEY')?.value, '••••');
    assert.equal(by.get('HEADLESS')?.source, 'default');
    assert.equal(by.get('PORT')?.value, 0);
    assert.ok(!r.text.includes(ADMIN_TOKEN) && !r.text.includes(SIGNING_KEY), r.text);
    const refused = await h.request('/admin/settings');
    assert.equal(refused.status, 401);
  });

  test('the audit shows a real bind with no value, and a refusal sorts first', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/admin-login.html` }, 'aud');
    const denied = await fillPassword('other');
    assert.equal(denied.body.error?.kind, 'permission_denied');
    const typed = await fillPassword('admin');
    assert.equal(typed.body.ok, true, JSON.stringify(typed.body.error));
    const r = await admin<{ capacity: number; entries: Entry[] }>(h, '/admin/audit');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.capacity, 1000);
    const mine = r.body.entries.filter((e) => e.session === 'aud');
    assert.deepEqual(
      mine.map((e) => [e.secret, e.key, e.allowed, e.op]),
      [
        ['other', 'password', false, 'fill'],
        ['admin', 'password', true, 'fill'],
      ],
    );
    assert.equal(mine[1].url, new URL(h.server.PREFIX).origin);
    assert.match(mine[0].reason ?? '', /origin/);
    assert.ok(Date.parse(mine[0].at) <= Date.parse(mine[1].at));
    assert.ok(!r.text.includes(VALUE) && !r.text.includes('other-never-typed'), r.text);
  });

  test('the event stream delivers a new bind as it happens', async () => {
    const abort = new AbortController();
    const r = await h.request('/admin/audit/events', { headers: OPERATOR, signal: abort.signal });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = r.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    // The stream says it is connected before anything is bound, so the bind below reaches it.
    while (!seen.includes(': connected')) seen += (await reader.read()).value ?? '';
    const typed = await fillPassword('admin');
    assert.equal(typed.body.ok, true, JSON.stringify(typed.body.error));
    while (!/event: bind\ndata: .*\n\n/.test(seen)) {
      const { value, done } = await reader.read();
      assert.ok(!done, `the stream ended before a bind: ${seen}`);
      seen += value;
    }
    const audit = h.app.runtime.secrets.audit;
    assert.equal(audit.listenerCount, 1);
    abort.abort();
    // The server notices the client left and unsubscribes the stream.
    for (let i = 0; i < 100 && audit.listenerCount > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(audit.listenerCount, 0, 'the stream still listens after its client left');
    const data = JSON.parse(/event: bind\ndata: (.*)\n/.exec(seen)![1]) as Entry;
    assert.deepEqual([data.session, data.secret, data.allowed], ['aud', 'admin', true]);
    assert.ok(!seen.includes(VALUE));
  });

  test('a flow outline lists parameters first, with their readers and an unread one', async () => {
    const put = await h.request('/admin/flows/global/sign-in', {
      method: 'PUT',
      headers: { ...OPERATOR, 'content-type': 'application/yaml' },
      body: `name: sign-in
parameters:
  type: object
  properties:
    page: { type: string, description: Where the form is }
    spare: { type: string }
steps:
  - id: open
    op: goto
    args: { url: "\${page}" }
  - id: pw
    op: fill
    args: { target: { label: Password }, secret: { name: admin, key: password } }
    note: typed by the server
`,
    });
    assert.ok([200, 201].includes(put.status), await put.text());
    const r = await admin<{
      name: string;
      library: string;
      revision: string;
      params: { name: string; read_by: string[]; unread: boolean; description?: string }[];
      steps: { id: string; op: string; binds_secret: boolean; reads: string[]; note?: string }[];
    }>(h, '/admin/flows/global/sign-in/outline');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.revision, put.headers.get('etag')?.replace(/"/g, ''));
    assert.deepEqual(
      r.body.params.map((p) => [p.name, p.read_by, p.unread]),
      [
        ['page', ['open'], false],
        ['spare', [], true],
      ],
    );
    assert.deepEqual(
      r.body.steps.map((s) => [s.id, s.op, s.binds_secret, s.reads]),
      [
        ['open', 'goto', false, ['page']],
        ['pw', 'fill', true, []],
      ],
    );
    const missing = await admin<{ error: { kind: string } }>(h, '/admin/flows/global/nope/outline');
    assert.equal(missing.body.error.kind, 'not_found');
  });
});

describe('the whole server under ROUTE_PREFIX', () => {
  let p: Harness;
  before(async () => {
    p = await startHarness({ routePrefix: '/sb', adminToken: ADMIN_TOKEN });
  });
  after(async () => {
    await p.closeBrowsers();
    await p.close();
  });

  test('an op, MCP, the viewer, a file link, a redirect and an admin call answer under it', async () => {
    const goto = await p.op('goto', { url: `${p.server.PREFIX}/index.html` }, 'pre');
    assert.equal(goto.body.ok, true, JSON.stringify(goto.body.error));
    const mcp = await p.request('/mcp?session=prefixed', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: mcpInitialize('prefix-test'),
    });
    assert.equal(mcp.status, 200, await mcp.text());

    const viewer = await p.request('/viewer', { headers: OPERATOR });
    assert.equal(viewer.status, 200);
    assert.match(await viewer.text(), /<html/i);
    const login = await p.request(`/viewer?token=${ADMIN_TOKEN}`, { redirect: 'manual' });
    assert.equal(login.headers.get('location'), '/sb/viewer');
    assert.match(login.headers.get('set-cookie') ?? '', /Path=\/sb(;|$)/);

    mkdirSync(join(p.dataDir, 'files', 'pre'), { recursive: true });
    writeFileSync(join(p.dataDir, 'files', 'pre', 'note.txt'), 'kept under a prefix');
    const files = await p.op('files', {}, 'pre');
    const entry = (files.body.data as { files: { name: string; url: string }[] }).files.find(
      (f) => f.name === 'note.txt',
    )!;
    assert.match(entry.url, /^\/sb\/files\/pre\/note\.txt\?/);
    const file = await fetch(`${p.origin}${entry.url}`);
    assert.equal(await file.text(), 'kept under a prefix');

    const demo = await p.request('/demo', { redirect: 'manual' });
    assert.equal(demo.headers.get('location'), '/sb/demo/index.html');

    const settings = await admin<{ settings: { env: string; value: unknown }[] }>(
      p,
      '/admin/settings',
    );
    assert.equal(settings.body.settings.find((s) => s.env === 'ROUTE_PREFIX')?.value, '/sb');

    const unknown = await p.request('/nowhere');
    assert.equal(unknown.status, 404);
    assert.match(await unknown.text(), /No route GET \/sb\/nowhere/);
  });

  test('a path outside the prefix answers 404 naming the prefix', async () => {
    for (const path of ['/health', '/browser/goto', '/admin/settings', '/sbx/health']) {
      const r = await fetch(`${p.origin}${path}`, { headers: OPERATOR });
      const text = await r.text();
      assert.equal(r.status, 404, `${path}: ${text}`);
      assert.match(text, /ROUTE_PREFIX \/sb/);
    }
    const health = await p.request('/health');
    assert.equal(health.status, 200);
  });
});
