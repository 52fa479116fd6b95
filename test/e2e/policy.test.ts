import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { startRedis } from '../helpers/redis.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../../src/surfaces/cli/main.js', import.meta.url));

describe('the URL policy (BLOCKED_URLS)', () => {
  let h: Harness;
  let blocked: string;
  before(async () => {
    h = await startHarness({ blockedUrls: 'localhost' });
    // The fixture server answers on localhost too: the same pages, an origin the policy refuses.
    blocked = `http://localhost:${h.server.port}/login.html`;
    h.server.setContent(
      '/escape.html',
      `<a href="#" onclick="location.href='${blocked}'; return false">by script</a>
       <button onclick="window.open('${blocked}')">popup</button>`,
    );
  });
  after(() => h.close());

  test('goto to a blocked origin is permission_denied before anything loads', async () => {
    const before = h.server.requests.length;
    const r = await h.op('goto', { url: blocked });
    assert.equal(r.status, 403);
    assert.equal(r.body.error?.kind, 'permission_denied');
    assert.match(r.body.error!.message, /BLOCKED_URLS has localhost/);
    assert.equal(h.server.requests.length, before, 'the blocked page was requested');
  });

  test('a redirect into a blocked origin is refused and the page never loads', async () => {
    const r = await h.op('goto', {
      url: `${h.server.PREFIX}/status/302?to=${encodeURIComponent(blocked)}`,
    });
    assert.equal(r.body.error?.kind, 'permission_denied', JSON.stringify(r.body));
    assert.ok(!h.server.requests.includes('/login.html'));
  });

  test('location= from a click and window.open are refused too', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/escape.html` });
    const byScript = await h.op('click', { target: { text: 'by script' } });
    assert.equal(byScript.body.error?.kind, 'permission_denied', JSON.stringify(byScript.body));
    assert.equal(byScript.body.page?.url, `${h.server.PREFIX}/escape.html`);
    const popup = await h.op('click', { target: { role: 'button', name: 'popup' } });
    assert.equal(popup.body.error?.kind, 'permission_denied', JSON.stringify(popup.body));
  });

  test('an allowed redirect still lands', async () => {
    const target = `${h.server.PREFIX}/login.html`;
    const r = await h.op('goto', {
      url: `${h.server.PREFIX}/status/302?to=${encodeURIComponent(target)}`,
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(r.body.page?.url, target);
  });
});

describe('the URL policy (ALLOWED_URLS)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ allowedUrls: 'http://127.0.0.1:*' });
  });
  after(() => h.close());

  test('only listed origins load; tab_new and open with a URL are held to it', async () => {
    assert.equal((await h.op('goto', { url: `${h.server.PREFIX}/login.html` })).body.ok, true);
    const elsewhere = `http://localhost:${h.server.port}/login.html`;
    for (const r of [
      await h.op('goto', { url: elsewhere }),
      await h.op('tab_new', { url: elsewhere }),
      await h.op('open', { url: elsewhere }),
    ]) {
      assert.equal(r.body.error?.kind, 'permission_denied');
      assert.match(r.body.error!.message, /ALLOWED_URLS \(http:\/\/127\.0\.0\.1:\*\)/);
    }
  });

  test('a malformed pattern fails at start-up naming the setting', () => {
    assert.throws(
      () => loadConfig({}, { blockedUrls: 'https://bad/path' }),
      (e: Error) => e instanceof ConfigError && /BLOCKED_URLS/.test(e.message),
    );
  });
});

describe('session names', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('"../x" is refused over MCP and the CLI, with a message unlike the unnamed one', async () => {
    const client = new Client({ name: 'policy-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp?session=..%2Fx', h.url));
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: 'status', arguments: {} });
      const text = JSON.stringify(r.content);
      assert.match(text, /Invalid session name/);
    } finally {
      await client.close();
    }
    const port = new URL(h.url).port;
    // Asynchronously: this process also serves the HTTP server the CLI would call.
    const cli = await run(process.execPath, [MAIN, 'status', '--session', '../x'], {
      env: { ...process.env, PORT: port },
    }).then(
      () => ({ code: 0, out: '' }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        out: e.stdout + e.stderr,
      }),
    );
    assert.equal(cli.code, 2, cli.out);
    assert.match(cli.out, /Invalid session name/);
    const unnamed = await h.request('/browser/goto', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"url":"about:blank"}',
    });
    const body = (await unnamed.json()) as { error: { message: string } };
    assert.match(body.error.message, /No session named/);
  });
});

describe('the URL policy and a session coming back after a restart', () => {
  test('a last URL the new policy blocks is not reopened; the browser stays blank and says why', async () => {
    const redis = await startRedis();
    try {
      const first = await startHarness({ redisUrl: redis.url });
      const last = `http://localhost:${first.server.port}/login.html`;
      assert.equal((await first.op('goto', { url: last }, 'back')).body.ok, true);
      await first.close();
      const second = await startHarness({ redisUrl: redis.url, blockedUrls: 'localhost' });
      try {
        const r = await second.op('snapshot', {}, 'back');
        assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
        const note = r.body.notes?.find((n) => n.startsWith('restore_refused'));
        assert.ok(note, JSON.stringify(r.body.notes));
        assert.match(note, /BLOCKED_URLS has localhost/);
        assert.equal(r.body.page?.url, 'about:blank');
      } finally {
        await second.close();
      }
    } finally {
      await redis.stop();
    }
  });
});
