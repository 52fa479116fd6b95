// Server surface: Host, Origin, body, slow-client and MCP-session guards; GETs that change nothing.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadConfig, type ConfigInput } from '../../src/config.js';
import { hostRule } from '../../src/surfaces/http/guards.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { mcpInitialize } from '../helpers/mcp-initialize.js';

// Nothing here opens a browser: these guards answer before any op runs, on both arms alike.

interface Answer {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A request with a chosen Host header, which fetch refuses to set, or from a chosen loopback
 * source address (`from`: another client address on this machine).
 */
function raw(
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; from?: string } = {},
): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: init.method ?? 'GET',
        headers: init.headers,
        localAddress: init.from,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

const INITIALIZE = mcpInitialize('guard-test');
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

async function withHarness(settings: ConfigInput, body: (x: Harness) => Promise<void>) {
  const x = await startHarness(settings);
  try {
    await body(x);
  } finally {
    await x.close();
  }
}

let h: Harness;
let port: string;
before(async () => {
  h = await startHarness();
  port = new URL(h.url).port;
});
after(() => h.close());

describe('the Host header (DNS rebinding)', () => {
  const routes: [string, string, Record<string, string>?, string?][] = [
    ['GET', '/admin/sessions'],
    ['GET', '/logs'],
    ['GET', '/browser?session=rebound', { 'x-session-key': 'rebound' }],
    ['GET', '/files', { 'x-session-key': 'rebound' }],
    ['GET', '/secrets'],
    ['GET', '/flows'],
    ['GET', '/viewer'],
    ['GET', '/demo/index.html'],
    ['POST', '/mcp', MCP_HEADERS, INITIALIZE],
  ];
  for (const [method, path, headers, body] of routes) {
    test(`a foreign Host is refused on ${method} ${path}, naming the Host and ALLOWED_HOSTS`, async () => {
      const r = await raw(h.url, path, {
        method,
        headers: { ...headers, host: `evil.test:${port}` },
        body,
      });
      assert.equal(r.status, 403, r.text);
      assert.match(r.text, new RegExp(`evil\\.test:${port}`));
      assert.match(r.text, /ALLOWED_HOSTS/);
    });
  }

  test('loopback names are the server’s own, on any port (a tunnel changes it)', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, '[::1]:9', 'localhost:9000']) {
      const r = await raw(h.url, '/flows', { headers: { host } });
      assert.equal(r.status, 200, `${host}: ${r.text}`);
    }
  });

  test('/health answers any Host: it tells only that the server is up', async () => {
    const r = await raw(h.url, '/health', { headers: { host: 'evil.test' } });
    assert.equal(r.status, 200);
  });

  test('PUBLIC_URL’s host and ALLOWED_HOSTS are let through, a listed port is kept to', async () => {
    await withHarness(
      { publicUrl: 'https://browse.corp.test', allowedHosts: 'tools.corp.test:8443, other.test' },
      async (x) => {
        const status = async (host: string) =>
          (await raw(x.url, '/flows', { headers: { host } })).status;
        assert.equal(await status('browse.corp.test'), 200);
        assert.equal(await status('Tools.Corp.Test:8443'), 200);
        assert.equal(await status('tools.corp.test:9000'), 403);
        assert.equal(await status('other.test:1234'), 200);
        assert.equal(await status('evil.test'), 403);
      },
    );
  });

  test('on HOST=0.0.0.0 the token is the defence until ALLOWED_HOSTS names the hosts', () => {
    const token = 'rebinding-cannot-send-this';
    assert.equal(hostRule(loadConfig({ HOST: '0.0.0.0', SWIFTBROWSE_TOKEN: token })), undefined);
    const listed = hostRule(
      loadConfig({ HOST: '0.0.0.0', SWIFTBROWSE_TOKEN: token, ALLOWED_HOSTS: 'browse.corp.test' }),
    );
    assert.equal(listed?.('browse.corp.test:8765'), true);
    assert.equal(listed?.('evil.test:8765'), false);
  });
});

describe('request bodies', () => {
  const deepRoutes: [string, string, string, Record<string, string>?][] = [
    ['POST', '/browser/goto', `{"url": ${nested(10_000)}}`],
    ['POST', '/browser/batch', `{"steps": ${nested(10_000)}}`],
    ['PUT', '/flows/deep', `{"name": "deep", "steps": ${nested(10_000)}}`],
    ['POST', '/flows/deep/runs', `{"params": ${nested(10_000)}}`],
    ['POST', '/mcp', INITIALIZE.replace('"capabilities":{}', `"capabilities":${nested(10_000)}`)],
  ];
  for (const [method, path, body] of deepRoutes) {
    test(`JSON nested 10,000 deep is invalid_argument on ${method} ${path}, naming the limit`, async () => {
      const r = await h.request(path, {
        method,
        headers: path === '/mcp' ? MCP_HEADERS : { 'content-type': 'application/json' },
        body,
      });
      assert.equal(r.status, 400);
      const text = await r.text();
      assert.match(text, /deeper than 64 levels/);
      if (path !== '/mcp') assert.match(text, /"kind":"invalid_argument"/);
    });
  }

  test('a target nested 40 scopes deep is still read', async () => {
    let target: Record<string, unknown> = { role: 'button', name: 'Go' };
    for (let i = 0; i < 40; i++) target = { role: 'region', within: target };
    const r = await h.request('/flows/scoped', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-session-key': 'scoped' },
      body: JSON.stringify({ steps: [{ op: 'click', args: { target } }] }),
    });
    assert.equal(r.status, 201, await r.text());
  });

  test('YAML nested 1.75 MB deep is refused at once, and /health answers meanwhile', async () => {
    const levels = 350_000;
    const body = `name: deep\nsteps: [{op: goto, args: ${'{a: '.repeat(levels)}1${'}'.repeat(levels)}}]\n`;
    assert.ok(body.length > 1_700_000 && body.length < 2 * 1024 * 1024, String(body.length));
    const order: string[] = [];
    const put = h
      .request('/flows/deep-yaml', {
        method: 'PUT',
        headers: { 'content-type': 'application/yaml', 'x-session-key': 'deep' },
        body,
      })
      .then(async (r) => {
        order.push('put');
        return { status: r.status, text: await r.text() };
      });
    const sent = performance.now();
    const health = h.request('/health').then((r) => {
      order.push('health');
      return { status: r.status, ms: performance.now() - sent };
    });
    const [refused, alive] = await Promise.all([put, health]);
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.text, /"kind":"invalid_argument"/);
    assert.match(refused.text, /deeper than 64 levels \(MAX_NESTING_DEPTH\)/);
    assert.equal(alive.status, 200);
    // The old parser held the event loop 9-10 s: /health waited behind the PUT's answer.
    assert.ok(order[0] === 'health' || alive.ms < 2000, `${order.join(', ')}; ${alive.ms} ms`);
  });

  test('YAML nested deep by indentation alone is invalid_argument naming the limit', async () => {
    const r = await h.request('/flows/deep-block', {
      method: 'PUT',
      headers: { 'content-type': 'application/yaml', 'x-session-key': 'deep' },
      body: `name: deep-block\nsteps:\n${'- '.repeat(100_000)}x\n`,
    });
    const text = await r.text();
    assert.equal(r.status, 400, text);
    assert.match(text, /"kind":"invalid_argument"/);
    assert.match(text, /deeper than 64 levels \(MAX_NESTING_DEPTH\)/);
  });

  test('a YAML flow whose target nests 40 scopes deep is still read', async () => {
    let target = '{role: button, name: Go}';
    for (let i = 0; i < 40; i++) target = `{role: region, within: ${target}}`;
    const r = await h.request('/flows/scoped-yaml', {
      method: 'PUT',
      headers: { 'content-type': 'application/yaml', 'x-session-key': 'scoped' },
      body: `# a comment [[[[\nsteps:\n  - op: click\n    args:\n      target: ${target}\n`,
    });
    assert.equal(r.status, 201, await r.text());
  });

  test('a YAML alias bomb sent as a flow is invalid_argument naming the alias limit', async () => {
    const rows = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [i, name] of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].entries()) {
      const prev = 'abcdefgh'[i];
      rows.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const r = await h.request('/flows/laughs', {
      method: 'PUT',
      headers: { 'content-type': 'application/yaml', 'x-session-key': 'laughs' },
      body: `name: laughs\n${rows.join('\n')}\nsteps: [{op: goto, args: {url: *i}}]\n`,
    });
    assert.equal(r.status, 400);
    const body = (await r.json()) as { error: { kind: string; message: string } };
    assert.equal(body.error.kind, 'invalid_argument');
    assert.match(body.error.message, /more than 100 copies/);
  });

  const plainRoutes: [string, string, string, RegExp][] = [
    ['POST', '/flows/any/runs', 'text/plain', /application\/json/],
    ['POST', '/flows/any/runs', 'application/x-www-form-urlencoded', /application\/json/],
    ['PUT', '/flows/any', 'text/plain', /application\/yaml/],
    ['POST', '/admin/flows/global/any/move', 'text/plain', /application\/json/],
  ];
  for (const [method, path, type, expected] of plainRoutes) {
    test(`${method} ${path} refuses a ${type} body, naming the type it takes`, async () => {
      const r = await h.request(path, {
        method,
        headers: { 'content-type': type, 'x-session-key': 'plain' },
        body: type === 'text/plain' ? '{"params": {}}' : 'params=1',
      });
      assert.equal(r.status, 400);
      const body = (await r.json()) as { error: { kind: string; message: string } };
      assert.equal(body.error.kind, 'invalid_argument');
      assert.match(body.error.message, expected);
      assert.match(body.error.message, new RegExp(type.replace(/[/.+]/g, '\\$&')));
    });
  }
});

/**
 * Sends `head` on a raw socket, then one byte of `trickle` a second, and resolves with what the
 * server answered and how long after the first byte it closed the socket.
 */
function trickle(base: string, head: string, drip: string): Promise<{ text: string; ms: number }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const started = performance.now();
    let text = '';
    let sent = 0;
    const timer = setInterval(() => socket.write(drip[sent++ % drip.length]), 1000);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ text, ms: performance.now() - started });
    });
    socket.on('connect', () => socket.write(head));
    // Old servers held such a socket for 300 s: give up well before the test's own timeout.
    setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`the socket was still open after 20 s; answered ${JSON.stringify(text)}`));
    }, 20_000).unref();
  });
}

describe('slow clients (HEADERS_TIMEOUT, REQUEST_TIMEOUT)', () => {
  let x: Harness;
  before(async () => {
    x = await startHarness({ headersTimeout: '1s', requestTimeout: '2s' });
  });
  after(() => x.close());

  test('a body trickled at a byte a second is cut with 408 once REQUEST_TIMEOUT passes', async () => {
    const host = new URL(x.url).host;
    const head = `PUT /flows/slow HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nX-Session-Key: slow\r\nContent-Length: 1000\r\n\r\n{`;
    const r = await trickle(x.url, head, ' ');
    assert.match(r.text, /^HTTP\/1\.1 408/);
    // 2 s, checked every second, with room for a loaded machine; the default would be 30 s.
    assert.ok(r.ms < 15_000, `${r.ms} ms`);
  });

  test('headers trickled at a byte a second are cut with 408 once HEADERS_TIMEOUT passes', async () => {
    const r = await trickle(x.url, 'GET /health HTTP/1.1\r\nX-Slow: ', 'a');
    assert.match(r.text, /^HTTP\/1\.1 408/);
    assert.ok(r.ms < 15_000, `${r.ms} ms`);
  });

  test('a keep-alive socket idle past both bounds still takes its next request', async () => {
    const url = new URL(x.url);
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    const answers = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const seen = () => (text.match(/HTTP\/1\.1 200/g) ?? []).length >= n && text.endsWith('}');
        const check = () => (seen() ? resolve() : undefined);
        socket.on('data', check);
        socket.on('close', () => (seen() ? resolve() : reject(new Error(`closed: ${text}`))));
        check();
      });
    const ask = `GET /health HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`;
    socket.write(ask);
    await answers(1);
    // Idle for longer than REQUEST_TIMEOUT: the bounds count from a request's first byte.
    await new Promise((r) => setTimeout(r, 3000));
    socket.write(ask);
    await answers(2);
    socket.destroy();
  });
});

describe('GET /browser, /files, /secrets (a cross-site <img> can send one)', () => {
  const get = (session: string, route = '/browser') => h.request(`${route}?session=${session}`);
  const statusOp = async (session: string) =>
    (await (
      await h.request('/browser/status', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-key': session },
        body: '{}',
      })
    ).json()) as { action_id: string };
  const listed = async (session: string) => {
    const all = (await (await h.request('/admin/sessions')).json()) as {
      sessions: { name: string }[];
    };
    return all.sessions.some((s) => s.name === session);
  };

  test('a session never used is answered, not created, and spends no action id', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await get('img-new');
      const body = (await r.json()) as {
        ok: boolean;
        action_id?: string;
        data: { known?: boolean; browser: string };
      };
      assert.equal(r.status, 200);
      assert.equal(body.ok, true);
      assert.equal(body.action_id, undefined);
      assert.equal(body.data.known, false);
      assert.equal(body.data.browser, 'closed');
    }
    assert.equal(await listed('img-new'), false);
    assert.equal((await statusOp('img-new')).action_id, 'img-new-1');
  });

  test('a session in use keeps its action count across GETs', async () => {
    assert.equal((await statusOp('img-old')).action_id, 'img-old-1');
    for (let i = 0; i < 2; i++) {
      const body = (await (await get('img-old')).json()) as { data: { known?: boolean } };
      assert.equal(body.data.known, undefined);
    }
    assert.equal((await statusOp('img-old')).action_id, 'img-old-2');
  });

  test('GET /files and GET /secrets read without an op: no session made, no action id', async () => {
    for (const route of ['/files', '/secrets']) {
      const r = await get('img-read', route);
      const body = (await r.json()) as {
        ok: boolean;
        op: string;
        action_id?: string;
        data: object;
      };
      assert.equal(r.status, 200, JSON.stringify(body));
      assert.equal(body.ok, true);
      assert.equal(body.op, route.slice(1));
      assert.equal(body.action_id, undefined);
      assert.ok(
        route === '/files' ? 'files' in body.data : 'secrets' in body.data,
        JSON.stringify(body),
      );
    }
    assert.equal(await listed('img-read'), false);
    assert.equal((await statusOp('img-read')).action_id, 'img-read-1');
  });
});

describe('MCP sessions over HTTP', () => {
  const initialize = (x: Harness) =>
    x.request('/mcp?session=guard', { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE });

  // A DELETE /mcp closing one session, as a client does when it is done.
  const close = (x: Harness, sid: string) =>
    x.request('/mcp', {
      method: 'DELETE',
      headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
    });
  // An initialize from another client address on this machine (127.0.0.2 is loopback too).
  const initializeFrom = (x: Harness, from: string, headers: Record<string, string> = {}) =>
    raw(x.url, '/mcp?session=guard', {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...headers },
      body: INITIALIZE,
      from,
    });
  // Seconds, at least 1 and at most MCP_SESSION_IDLE (30 min by default).
  const assertRetryAfter = (value: string | string[] | null | undefined) => {
    const seconds = Number(value);
    assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 1800, String(value));
  };

  test('an initialize past MCP_MAX_SESSIONS is refused with 429, naming the setting', async () => {
    await withHarness({ mcpMaxSessions: 2, mcpSessionsPerCaller: 5 }, async (x) => {
      const first = await initialize(x);
      assert.equal(first.status, 200);
      assert.equal((await initialize(x)).status, 200);
      const refused = await initialize(x);
      assert.equal(refused.status, 429);
      assertRetryAfter(refused.headers.get('retry-after'));
      const body = (await refused.json()) as { error: { message: string } };
      assert.match(body.error.message, /MCP_MAX_SESSIONS/);
      assert.match(body.error.message, /frees in \d+ s/);
      // Closing one makes room.
      assert.equal((await close(x, first.headers.get('mcp-session-id')!)).status, 200);
      assert.equal((await initialize(x)).status, 200);
    });
  });

  test('one caller past MCP_SESSIONS_PER_CALLER is refused while another still initializes', async () => {
    await withHarness({ mcpMaxSessions: 10, mcpSessionsPerCaller: 2 }, async (x) => {
      const first = await initialize(x);
      assert.equal(first.status, 200);
      assert.equal((await initialize(x)).status, 200);
      const refused = await initialize(x);
      assert.equal(refused.status, 429);
      assertRetryAfter(refused.headers.get('retry-after'));
      const { message } = ((await refused.json()) as { error: { message: string } }).error;
      assert.match(message, /client address 127\.0\.0\.1 already holds 2 MCP sessions/);
      assert.match(message, /MCP_SESSIONS_PER_CALLER/);
      assert.match(message, /frees in \d+ s/);
      assert.match(message, /DELETE \/mcp/);
      // The server has room: another client address is not held to the first one's share.
      assert.equal((await initializeFrom(x, '127.0.0.2')).status, 200);
      // Closing one of its own sessions gives the first caller a slot back.
      assert.equal((await close(x, first.headers.get('mcp-session-id')!)).status, 200);
      assert.equal((await initialize(x)).status, 200);
    });
  });

  test('with SWIFTBROWSE_TOKEN the share refusal says "your token" and never prints it', async () => {
    const token = 'caller-token-1';
    await withHarness({ token, mcpSessionsPerCaller: 1 }, async (x) => {
      const auth = { authorization: `Bearer ${token}` };
      const init = () =>
        x.request('/mcp?session=guard', {
          method: 'POST',
          headers: { ...MCP_HEADERS, ...auth },
          body: INITIALIZE,
        });
      assert.equal((await init()).status, 200);
      const refused = await init();
      assert.equal(refused.status, 429);
      const text = await refused.text();
      assert.match(text, /Your token from 127\.0\.0\.1 already holds 1 MCP session\b/);
      assert.ok(!text.includes(token), text);
      // One token shared by two clients gives each its own share.
      assert.equal((await initializeFrom(x, '127.0.0.2', auth)).status, 200);
    });
  });

  test('a session idle past MCP_SESSION_IDLE is closed by the sweep, without a new initialize', async () => {
    await withHarness({ mcpSessionIdle: '300ms' }, async (x) => {
      const sid = (await initialize(x)).headers.get('mcp-session-id')!;
      await new Promise((r) => setTimeout(r, 1200));
      const r = await x.request('/mcp', {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
      assert.equal(r.status, 404);
      assert.match(await r.text(), /expired MCP session/);
    });
  });
});

describe('operator routes', () => {
  test('with only SWIFTBROWSE_TOKEN set, the callers’ token does not open them', async () => {
    await withHarness({ token: 'caller-token-1' }, async (x) => {
      for (const path of ['/admin/sessions', '/logs', '/viewer']) {
        for (const headers of [{ authorization: 'Bearer caller-token-1' }, {}] as Record<
          string,
          string
        >[]) {
          const r = await x.request(path, { headers });
          assert.equal(r.status, 403, path);
          const body = (await r.json()) as { error: { message: string } };
          assert.match(body.error.message, /SWIFTBROWSE_ADMIN_TOKEN/);
        }
      }
      // The callers' routes still answer to it.
      const flows = await x.request('/flows', {
        headers: { authorization: 'Bearer caller-token-1' },
      });
      assert.equal(flows.status, 200);
    });
  });

  test('with no token at all, a loopback server opens them to its machine', async () => {
    assert.equal((await h.request('/admin/sessions')).status, 200);
  });

  test('the console’s own origin is let in under every loopback name on the server’s port', async () => {
    for (const name of ['127.0.0.1', 'localhost', '[::1]']) {
      const r = await h.request('/admin/sessions', {
        headers: { origin: `http://${name}:${port}` },
      });
      assert.equal(r.status, 200, `${name}: ${await r.text()}`);
    }
    // A page the browser visits on another local port is not the console.
    const other = await h.request('/admin/sessions', {
      headers: { origin: `http://localhost:${Number(port) === 9 ? 10 : 9}` },
    });
    assert.equal(other.status, 403);
    // Nor are caller routes opened to it: they keep to ALLOWED_ORIGINS.
    const caller = await h.request('/flows', { headers: { origin: `http://localhost:${port}` } });
    assert.equal(caller.status, 403);
  });

  test('PUBLIC_URL’s origin and ALLOWED_HOSTS names are the console’s own too', async () => {
    await withHarness(
      { publicUrl: 'https://browse.corp.test', allowedHosts: 'tools.corp.test:8443' },
      async (x) => {
        const status = async (origin: string) =>
          (await x.request('/admin/sessions', { headers: { origin } })).status;
        assert.equal(await status('https://browse.corp.test'), 200);
        assert.equal(await status('http://tools.corp.test:8443'), 200);
        assert.equal(await status('http://tools.corp.test:9000'), 403);
        assert.equal(await status('http://evil.test'), 403);
      },
    );
  });

  for (const path of ['/admin/', '/viewer']) {
    test(`${path} may not be framed by another page (CSP frame-ancestors, X-Frame-Options)`, async () => {
      const r = await h.request(path);
      assert.equal(r.status, 200, await r.text());
      assert.match(r.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.equal(r.headers.get('x-frame-options'), 'DENY');
    });
  }
});
