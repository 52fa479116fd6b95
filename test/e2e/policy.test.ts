// Browser behaviour: the URL policy on every navigation a page can start.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { BACKEND, skipOn } from '../helpers/backend.js';
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
    // Refused at initialize: a connection never lists tools for a session it cannot use.
    await assert.rejects(client.connect(transport), /Invalid session name/);
    await client.close();
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

/** What the session's log holds, as text ('' when it wrote nothing). */
function sessionLog(h: Harness, session = 't'): string {
  const path = join(h.dataDir, 'logs', session, 'events.jsonl');
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

const PASSWD = /root:.*:0:0:/;
const SECRET = 'hunter2-policy-secret';

describe('non-web schemes are refused by default', () => {
  let h: Harness;
  let secrets: string;
  before(async () => {
    secrets = mkdtempSync(join(tmpdir(), 'swiftbrowse-secrets-'));
    mkdirSync(join(secrets, 'app'));
    writeFileSync(join(secrets, 'app', 'password'), SECRET);
    h = await startHarness({ secretsDirs: [secrets] });
    // Chromium's own refusals: a web page cannot reach file: or data: by redirect, script or popup.
    h.server.setContent(
      '/reach.html',
      `<p>start page</p>
       <a href="/status/302?to=${encodeURIComponent('file:///etc/passwd')}">redirect</a>
       <button onclick="location.href='file:///etc/passwd'">by script</button>
       <button onclick="window.open('data:text/html,<p>data popup</p>')">data popup</button>`,
    );
  });
  after(async () => {
    await h.close();
    rmSync(secrets, { recursive: true, force: true });
  });

  test('goto file: of /etc/passwd, a secret and the signing key is permission_denied; nothing shows it', async () => {
    const key = join(h.dataDir, 'signing.key');
    for (const url of [
      'file:///etc/passwd',
      pathToFileURL(join(secrets, 'app', 'password')).href,
      pathToFileURL(key).href,
      'file:///tmp/',
    ]) {
      const r = await h.op('goto', { url });
      assert.equal(r.status, 403, JSON.stringify(r.body));
      assert.equal(r.body.error?.kind, 'permission_denied');
      assert.match(r.body.error!.message, /file: URLs are not navigable.*FILE_URL_DIRS/);
    }
    const page = await h.op('snapshot', {});
    assert.doesNotMatch(JSON.stringify(page.body), PASSWD);
    assert.ok(!JSON.stringify(page.body).includes(SECRET));
    assert.doesNotMatch(page.body.page?.url ?? '', /^file:/);
    const log = sessionLog(h);
    assert.ok(!log.includes(SECRET), 'the secret is in the session log');
    assert.doesNotMatch(log, PASSWD);
    if (existsSync(key)) assert.ok(!log.includes(readFileSync(key, 'utf8').trim()));
  });

  test('chrome:, view-source:, data:, blob:, ftp: are refused naming the scheme', async () => {
    for (const [url, scheme] of [
      ['chrome://version', 'chrome'],
      [`view-source:${h.server.PREFIX}/login.html`, 'view-source'],
      ['data:text/html,<p>hi</p>', 'data'],
      [`blob:${h.server.PREFIX}/0b5d3c6e-8c3a-4a4f-9d0e-1f2a3b4c5d6e`, 'blob'],
      ['ftp://127.0.0.1/x', 'ftp'],
      ['devtools://devtools/bundled/inspector.html', 'devtools'],
    ]) {
      const r = await h.op('goto', { url });
      assert.equal(r.body.error?.kind, 'permission_denied', `${url}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error!.message, new RegExp(`${scheme}: URLs are not navigable`));
    }
  });

  test('javascript: and a non-URL are invalid_argument on goto, open and tab_new', async () => {
    for (const op of ['goto', 'open', 'tab_new']) {
      for (const url of ['javascript:alert(1)', 'http://', 'x']) {
        // javascript: and http:// are refused with the arguments, so that session never opens a browser.
        const r = await h.op(op, { url }, url === 'x' ? 't' : 'fresh');
        assert.equal(r.status, 400, `${op} ${url}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error?.kind, 'invalid_argument');
        assert.match(r.body.error!.message, /give an absolute URL such as http:\/\/host\/path/);
      }
    }
    const status = await h.op('status', {}, 'fresh');
    assert.notEqual(status.body.data?.browser, 'open', 'a browser opened for a bad URL');
  });

  test('a scheme-less loopback host still loads, on goto, open and tab_new', async () => {
    const bare = `localhost:${h.server.port}/login.html`;
    for (const op of ['goto', 'open', 'tab_new']) {
      const r = await h.op(op, { url: bare }, 'bare');
      assert.equal(r.body.ok, true, `${op}: ${JSON.stringify(r.body.error)}`);
      assert.equal(r.body.page?.url, `http://${bare}`);
    }
    const ip = await h.op('goto', { url: `127.0.0.1:${h.server.port}/login.html` }, 'bare');
    assert.equal(ip.body.ok, true, JSON.stringify(ip.body.error));
  });

  test('a web page cannot reach file: or data: by redirect, location= or window.open', async () => {
    const start = `${h.server.PREFIX}/reach.html`;
    assert.equal((await h.op('goto', { url: start })).body.ok, true);
    const redirect = await h.op('goto', {
      url: `${h.server.PREFIX}/status/302?to=${encodeURIComponent('file:///etc/passwd')}`,
    });
    assert.equal(redirect.body.ok, false, JSON.stringify(redirect.body));
    const back = await h.op('goto', { url: start });
    assert.equal(back.body.ok, true, JSON.stringify(back.body));
    await h.op('click', { target: { role: 'button', name: 'by script' } });
    await h.op('click', { target: { role: 'button', name: 'data popup' } });
    for (const tab of (await h.op('tab_list', {})).body.data?.tabs as { url: string }[]) {
      assert.doesNotMatch(tab.url, /^(file|data):/);
    }
    const page = await h.op('snapshot', {});
    assert.equal(page.body.page?.url, start);
    assert.doesNotMatch(JSON.stringify(page.body), PASSWD);
    assert.doesNotMatch(sessionLog(h), PASSWD);
  });

  test('cloud metadata addresses are refused, in every spelling, before any request', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://2852039166/latest/meta-data/',
      'http://0xA9FEA9FE/latest/meta-data/',
      'http://0251.0376.0251.0376/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/latest/meta-data/',
      'http://metadata.google.internal./computeMetadata/v1/',
      'http://100.100.100.200/latest/meta-data/',
    ]) {
      const r = await h.op('goto', { url });
      assert.equal(r.body.error?.kind, 'permission_denied', `${url}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error!.message, /cloud metadata address.*BLOCK_METADATA=off/);
    }
  });

  test("a page's own fetch of the metadata address fails", async () => {
    assert.equal((await h.op('goto', { url: `${h.server.PREFIX}/login.html` })).body.ok, true);
    const r = await h.op('evaluate', {
      script: `fetch('http://169.254.169.254/latest/meta-data/').then(() => 'answered', () => 'refused')`,
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(r.body.data?.result, 'refused');
  });
});

describe('FILE_URL_DIRS', () => {
  let h: Harness;
  let root: string;
  let files: string;
  let secrets: string;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'swiftbrowse-fileurl-'));
    files = join(root, 'files');
    secrets = join(root, 'secrets');
    mkdirSync(files);
    mkdirSync(join(root, 'outside'));
    mkdirSync(join(secrets, 'app'), { recursive: true });
    writeFileSync(join(secrets, 'app', 'password'), SECRET);
    writeFileSync(join(root, 'outside', 'x.html'), '<p>outside page</p>');
    writeFileSync(
      join(files, 'ok.html'),
      `<p>file page</p>
       <button onclick="location.href='file:///etc/passwd'">escape</button>
       <iframe src="file:///etc/passwd"></iframe>`,
    );
    symlinkSync('/etc/passwd', join(files, 'passwd-link'));
    symlinkSync(join(secrets, 'app'), join(files, 'secret-link'));
    h = await startHarness({ fileUrlDirs: files, secretsDirs: [secrets] });
  });
  after(async () => {
    await h.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('a file under a named directory loads (on Firefox: unsupported, saying why)', async () => {
    const r = await h.op('goto', { url: pathToFileURL(join(files, 'ok.html')).href });
    if (BACKEND === 'firefox') {
      assert.equal(r.body.error?.kind, 'unsupported', JSON.stringify(r.body));
      assert.match(r.body.error!.message, /no file: load.*FILE_URL_DIRS/);
      return;
    }
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    const text = await h.op('snapshot', {});
    assert.match(JSON.stringify(text.body), /file page/);
  });

  test('../ escapes and symlinks out of it are refused', async () => {
    const base = pathToFileURL(files).href;
    for (const [url, why] of [
      [`${base}/../outside/x.html`, /outside\/x\.html is not under FILE_URL_DIRS/],
      [`${base}/%2e%2e/outside/x.html`, /outside\/x\.html is not under FILE_URL_DIRS/],
      [`${base}/passwd-link`, /\/etc\/passwd is not under FILE_URL_DIRS/],
      [`${base}/secret-link/password`, /inside DATA_DIR or SECRETS_DIRS/],
      ['file://127.0.0.1/etc/passwd', /not on host 127\.0\.0\.1/],
    ] as const) {
      const r = await h.op('goto', { url });
      assert.equal(r.body.error?.kind, 'permission_denied', `${url}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error!.message, why);
    }
    const text = JSON.stringify((await h.op('snapshot', {})).body);
    assert.doesNotMatch(text, PASSWD);
    assert.ok(!text.includes(SECRET));
    assert.ok(!sessionLog(h).includes(SECRET));
  });

  test(
    'a file page cannot reach another file by script or frame',
    { skip: skipOn('firefox', 'firefox-file-loads') },
    async () => {
      const ok = pathToFileURL(join(files, 'ok.html')).href;
      const opened = await h.op('goto', { url: ok });
      assert.equal(opened.body.ok, true, JSON.stringify(opened.body));
      const escape = await h.op('click', { target: { role: 'button', name: 'escape' } });
      assert.equal(escape.body.error?.kind, 'permission_denied', JSON.stringify(escape.body));
      const page = await h.op('snapshot', {});
      assert.equal(page.body.page?.url, ok);
      assert.doesNotMatch(JSON.stringify(page.body), PASSWD);
      assert.doesNotMatch(sessionLog(h), PASSWD);
    },
  );
});

describe('patterns see hostless URLs', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'swiftbrowse-fileurl-'));
    writeFileSync(join(root, 'ok.html'), '<p>file page</p>');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('BLOCKED_URLS=file://* blocks file: URLs FILE_URL_DIRS allows', async () => {
    const h = await startHarness({ fileUrlDirs: root, blockedUrls: 'file://*' });
    try {
      const r = await h.op('goto', { url: pathToFileURL(join(root, 'ok.html')).href });
      assert.equal(r.body.error?.kind, 'permission_denied', JSON.stringify(r.body));
      assert.match(r.body.error!.message, /BLOCKED_URLS has file:\/\/\*/);
      assert.equal((await h.op('goto', { url: `${h.server.PREFIX}/login.html` })).body.ok, true);
    } finally {
      await h.close();
    }
  });

  test('ALLOWED_URLS=127.0.0.1 admits neither file://127.0.0.1/etc/passwd nor a file: URL', async () => {
    const h = await startHarness({ fileUrlDirs: root, allowedUrls: '127.0.0.1' });
    try {
      for (const url of [
        'file://127.0.0.1/etc/passwd',
        pathToFileURL(join(root, 'ok.html')).href,
      ]) {
        const r = await h.op('goto', { url });
        assert.equal(r.body.error?.kind, 'permission_denied', `${url}: ${JSON.stringify(r.body)}`);
      }
      assert.equal((await h.op('goto', { url: `${h.server.PREFIX}/login.html` })).body.ok, true);
    } finally {
      await h.close();
    }
  });

  test('start-up refuses FILE_URL_DIRS at or inside DATA_DIR or SECRETS_DIRS', () => {
    const dataDir = join(root, 'data');
    mkdirSync(join(dataDir, 'files'), { recursive: true });
    for (const overrides of [
      { dataDir, fileUrlDirs: join(dataDir, 'files') },
      { dataDir, fileUrlDirs: dataDir },
      { dataDir: join(root, 'other'), secretsDirs: [dataDir], fileUrlDirs: join(dataDir, 'files') },
    ]) {
      assert.throws(
        () => loadConfig({}, overrides),
        (e: Error) => e instanceof ConfigError && /FILE_URL_DIRS/.test(e.message),
      );
    }
    assert.throws(
      () => loadConfig({}, { fileUrlDirs: join(root, 'missing') }),
      (e: Error) => e instanceof ConfigError && /FILE_URL_DIRS names .*missing/.test(e.message),
    );
  });
});
