// Server surface: the HTTP routes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig, type ConfigInput } from '../../src/config.js';
import type { ActionResult } from '../../src/core/result.js';
import type { BrowserRecord } from '../../src/sessions/browser-record.js';
import { BACKEND } from '../helpers/backend.js';
import { EXPECTED_OPS } from '../helpers/expected-ops.js';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

/** Starts a harness with `settings`, runs `body`, always closes it. */
async function withHarness(
  settings: ConfigInput,
  body: (x: Harness) => Promise<void>,
): Promise<void> {
  const x = await startHarness(settings);
  try {
    await body(x);
  } finally {
    await x.close();
  }
}

async function json(response: Response): Promise<ActionResult> {
  return (await response.json()) as ActionResult;
}

/** GET /browser (the status op) with the given extra headers and query. */
function status(x: Harness, headers: Record<string, string>, query = ''): Promise<Response> {
  return x.request(`/browser${query}`, { headers });
}

function tabUrls(result: ActionResult): string[] {
  const tabs = (result.data?.tabs ?? []) as { url: string }[];
  return tabs.map((t) => t.url);
}

/** Polls `script` in the page until it returns something other than `pending`. */
async function pageValue(
  x: Harness,
  session: string,
  script: string,
  pending: string,
): Promise<unknown> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = await x.op('evaluate', { script }, session);
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    const value = r.body.data?.result;
    if (value !== pending || Date.now() > deadline) return value;
    await new Promise((res) => setTimeout(res, 100));
  }
}

describe('naming the session', () => {
  test('the X-Session-Key header names the session', async () => {
    const r = await status(h, { 'x-session-key': 'by-header' });
    assert.equal(r.status, 200);
    assert.equal((await json(r)).session_id, 'by-header');
  });

  test('?session= names the session', async () => {
    const r = await status(h, {}, '?session=by-query');
    assert.equal(r.status, 200);
    assert.equal((await json(r)).session_id, 'by-query');
  });

  test('naming the session both ways is invalid_argument', async () => {
    const r = await status(h, { 'x-session-key': 'one' }, '?session=two');
    const body = await json(r);
    assert.equal(r.status, 400);
    assert.equal(body.error?.kind, 'invalid_argument');
  });

  test('a call with no session is refused with a message saying how to name one', async () => {
    const r = await h.request('/browser/goto', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${h.server.PREFIX}/login.html` }),
    });
    const body = await json(r);
    assert.equal(r.status, 400);
    assert.equal(body.error?.kind, 'invalid_argument');
    assert.match(body.error!.message, /X-Session-Key/);
  });

  test('a session name that could escape a directory is invalid_argument', async () => {
    for (const r of [
      await status(h, { 'x-session-key': '../x' }),
      await status(h, {}, '?session=..%2Fx'),
    ]) {
      const body = await json(r);
      assert.equal(r.status, 400);
      assert.equal(body.error?.kind, 'invalid_argument');
      assert.match(body.error!.message, /session name/);
    }
  });

  test('two sessions each keep their own page', async () => {
    const a = await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 'iso-a');
    const b = await h.op('goto', { url: `${h.server.PREFIX}/delete.html` }, 'iso-b');
    assert.equal(a.status, 200, JSON.stringify(a.body.error));
    assert.equal(b.status, 200, JSON.stringify(b.body.error));
    const sa = await json(await status(h, { 'x-session-key': 'iso-a' }));
    const sb = await json(await status(h, { 'x-session-key': 'iso-b' }));
    assert.deepEqual(tabUrls(sa), [`${h.server.PREFIX}/login.html`]);
    assert.deepEqual(tabUrls(sb), [`${h.server.PREFIX}/delete.html`]);
  });
});

describe("the caller's browser (X-Browser, ?browser=)", () => {
  /** The browser the session's launch report names, and who chose it. */
  const launched = async (session: string) => {
    const r = await h.request(`/admin/sessions/${session}`);
    const { browser_record } = (await r.json()) as { browser_record?: BrowserRecord };
    const sent = browser_record?.sent?.capabilities ?? [];
    return sent.find((c) => c.key === 'browser' || c.key === 'browserName');
  };
  const goto = (session: string, headers: Record<string, string>, query = '') =>
    h.request(`/browser/goto${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-key': session, ...headers },
      body: JSON.stringify({ url: `${h.server.PREFIX}/index.html` }),
    });

  test('X-Browser opens that browser, with the client as its source', async () => {
    // Locally the header switches to Firefox; the test Grid has Chrome nodes only.
    const asked = BACKEND === 'grid' ? 'chrome' : 'firefox';
    const r = await json(await goto('client-browser', { 'x-browser': asked }));
    assert.equal(r.ok, true, JSON.stringify(r.error));
    const entry = await launched('client-browser');
    assert.equal(entry?.value, asked);
    assert.deepEqual(entry?.sources, ['client']);
    await h.op('close', {}, 'client-browser');
  });

  test("a browser open names beats ?browser=; one left out is the server's", async () => {
    const named = await h.request('/browser/open?browser=firefox', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-key': 'open-browser' },
      body: JSON.stringify({ browser: 'chromium' }),
    });
    assert.equal((await json(named)).ok, true);
    assert.deepEqual((await launched('open-browser'))?.sources, ['option']);
    assert.doesNotMatch(String((await launched('open-browser'))?.value), /firefox/);
    await h.op('close', {}, 'open-browser');
    await h.op('goto', { url: `${h.server.PREFIX}/index.html` }, 'server-browser');
    assert.deepEqual((await launched('server-browser'))?.sources, ['server']);
    await h.op('close', {}, 'server-browser');
  });

  test('an X-Browser SwiftBrowse does not know is refused, naming the browsers it opens', async () => {
    const r = await goto('bad-browser', { 'x-browser': 'netscape' });
    const body = await json(r);
    assert.equal(r.status, 400);
    assert.equal(body.error?.kind, 'invalid_argument');
    assert.match(body.error!.message, /"netscape".*chromium, chrome, edge, firefox/);
  });
});

describe("the caller's browser version (X-Version, ?version=)", () => {
  const goto = (session: string, headers: Record<string, string>, query = '') =>
    h.request(`/browser/goto${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-key': session, ...headers },
      body: JSON.stringify({ url: `${h.server.PREFIX}/index.html` }),
    });
  const local = { skip: BACKEND === 'grid' && 'the Grid matches versions on its nodes' };

  test(
    'a version the local browser is not is refused as open {version} is, never ignored',
    local,
    async () => {
      const opened = await h.op('open', { version: '1' }, 'version-open');
      assert.equal(opened.status, 501);
      assert.equal(opened.body.error?.kind, 'unsupported');
      assert.match(opened.body.error!.message, /version 1 \(asked by version\)/);
      for (const r of [
        await goto('version-header', { 'x-version': '1' }),
        await goto('version-query', {}, '?version=1'),
      ]) {
        const body = await json(r);
        assert.equal(r.status, 501);
        assert.equal(body.error?.kind, 'unsupported');
        assert.match(body.error!.message, /version 1 \(asked by X-Version \(or \?version=\)\)/);
        assert.match(body.error!.message, /Leave X-Version \(or \?version=\) out/);
      }
      // Refused before anything ran: no page was loaded for either caller.
      for (const session of ['version-header', 'version-query'])
        assert.equal(
          (await json(await status(h, { 'x-session-key': session }))).data?.browser,
          'closed',
        );
    },
  );

  test('the installed version, or latest, is taken and the call runs', local, async () => {
    assert.equal(
      (await h.op('goto', { url: `${h.server.PREFIX}/index.html` }, 'version-ok')).body.ok,
      true,
    );
    const running = (await json(await status(h, { 'x-session-key': 'version-ok' }))).data
      ?.running as { version: string };
    const major = running.version.split('.')[0];
    for (const version of [major, running.version, 'latest']) {
      const r = await goto('version-ok', { 'x-version': version });
      assert.equal(r.status, 200, `${version}: ${JSON.stringify((await json(r)).error)}`);
    }
    // A browser already open is no reason to ignore a version it is not.
    const refused = await goto('version-ok', { 'x-version': '1' });
    assert.equal(refused.status, 501);
    await h.op('close', {}, 'version-ok');
  });

  test('a flow run takes the same version check as an op', local, async () => {
    const r = await h.request('/flows/anything/runs', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-session-key': 'version-run',
        'x-version': '1',
      },
      body: '{}',
    });
    assert.equal(r.status, 501);
    assert.match((await json(r)).error!.message, /asked by X-Version/);
  });
});

describe('discovery and health', () => {
  test('GET /ops lists every op with a JSON schema of its arguments', async () => {
    const r = await h.request('/ops');
    assert.equal(r.status, 200);
    const { ops } = (await r.json()) as { ops: { name: string; args: Record<string, unknown> }[] };
    const expected = [...EXPECTED_OPS];
    assert.deepEqual(ops.map((o) => o.name).sort(), [...expected].sort());
    for (const op of ops) {
      assert.equal(op.args.type, 'object', `${op.name} args: ${JSON.stringify(op.args)}`);
      assert.equal(typeof op.args.properties, 'object', `${op.name} has no properties`);
    }
    const goto = ops.find((o) => o.name === 'goto')!;
    assert.ok('url' in (goto.args.properties as Record<string, unknown>));
    assert.deepEqual(goto.args.required, ['url']);
  });

  test('/health answers without opening a browser, and /ready reports the browser it found', async () => {
    await withHarness({}, async (x) => {
      const health = await x.request('/health');
      assert.equal(health.status, 200);
      assert.equal(((await health.json()) as { ok: boolean }).ok, true);
      const ready = await x.request('/ready');
      const info = (await ready.json()) as {
        ready: boolean;
        browser: string | null;
        sessions: number;
      };
      assert.equal(ready.status, 200);
      assert.equal(info.ready, true);
      assert.equal(typeof info.browser, 'string');
      assert.equal(info.sessions, 0);
      const s = await json(await status(x, { 'x-session-key': 'fresh' }));
      assert.equal(s.data?.browser, 'closed');
    });
  });
});

describe('malformed requests', () => {
  test('a form-encoded POST is refused and the message asks for application/json', async () => {
    const r = await h.request('/browser/goto', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-session-key': 't' },
      body: `url=${encodeURIComponent(`${h.server.PREFIX}/login.html`)}`,
    });
    const body = await json(r);
    assert.equal(r.status, 400);
    assert.equal(body.error?.kind, 'invalid_argument');
    assert.match(body.error!.message, /application\/json/);
  });

  test('a body that is not JSON is invalid_argument', async () => {
    const r = await h.request('/browser/goto', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-key': 't' },
      body: '{"url": ',
    });
    const body = await json(r);
    assert.equal(r.status, 400);
    assert.equal(body.error?.kind, 'invalid_argument');
    assert.match(body.error!.message, /JSON/);
  });

  test('an unknown op is refused with the list of ops', async () => {
    const r = await h.op('fly', {});
    assert.equal(r.status, 400);
    assert.equal(r.body.error?.kind, 'invalid_argument');
    assert.match(r.body.error!.message, /fly/);
    for (const name of ['goto', 'click', 'wait_for', 'batch'])
      assert.ok(r.body.error!.message.includes(name), name);
  });

  test('a misspelt argument is refused, naming it and the keys goto takes', async () => {
    const r = await h.op('goto', { url: `${h.server.PREFIX}/login.html`, expct: {} });
    assert.equal(r.status, 400);
    assert.equal(r.body.error?.kind, 'invalid_argument');
    const message = r.body.error!.message;
    assert.match(message, /"expct"/);
    for (const key of ['url', 'timeout', 'expect'])
      assert.match(message, new RegExp(`\\b${key}\\b`), key);
  });

  test('a body over BODY_LIMIT is refused with a message naming the setting', async () => {
    await withHarness({ bodyLimit: 2048 }, async (x) => {
      const r = await x.op('goto', {
        url: `${x.server.PREFIX}/login.html?pad=${'a'.repeat(10 * 1024)}`,
      });
      assert.equal(r.status, 400);
      assert.equal(r.body.error?.kind, 'invalid_argument');
      assert.match(r.body.error!.message, /BODY_LIMIT/);
    });
  });
});

describe('who may call', () => {
  test('a request from a browser origin that is not allowed is permission_denied', async () => {
    const r = await status(h, { 'x-session-key': 't', origin: 'http://evil.test' });
    const body = await json(r);
    assert.equal(r.status, 403);
    assert.equal(body.error?.kind, 'permission_denied');
    assert.match(body.error!.message, /ALLOWED_ORIGINS/);
  });

  test('a page the browser visits cannot read the API', async () => {
    const target = `${h.url}/browser?session=victim`;
    const r = await h.op(
      'goto',
      { url: `${h.server.PREFIX}/fetch-api.html?url=${encodeURIComponent(target)}` },
      'origin-page',
    );
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    const result = await pageValue(
      h,
      'origin-page',
      "document.querySelector('#result').textContent",
      'pending',
    );
    assert.equal(typeof result, 'string');
    assert.notEqual(result, 'status:200');
    assert.match(result as string, /^(error:|status:40[13]$)/);
  });

  test('a page the browser visits cannot drive the API with a simple cross-origin POST', async () => {
    // A no-cors text/plain POST needs no preflight, so only the server's own checks stop it.
    h.server.setContent(
      '/attack.html',
      `<p id=result>pending</p><script>
        fetch(${JSON.stringify(`${h.url}/browser/goto?session=victim`)}, {
          method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' },
          body: JSON.stringify({ url: ${JSON.stringify(`${h.server.PREFIX}/marker.html`)} }),
        }).then(() => { result.textContent = 'sent'; }, (e) => { result.textContent = 'error:' + e.message; });
      </script>`,
    );
    const r = await h.op('goto', { url: `${h.server.PREFIX}/attack.html` }, 'origin-page');
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.notEqual(
      await pageValue(h, 'origin-page', "document.querySelector('#result').textContent", 'pending'),
      'pending',
    );
    const victim = await json(await status(h, { 'x-session-key': 'victim' }));
    assert.equal(victim.data?.browser, 'closed');
    assert.ok(
      !h.server.requests.some((p) => p.startsWith('/marker.html')),
      h.server.requests.join(', '),
    );
  });

  test('an origin on the allow list is let through, others still refused', async () => {
    await withHarness({ allowedOrigins: 'http://ok.test' }, async (x) => {
      const ok = await status(x, { 'x-session-key': 't', origin: 'http://ok.test' });
      assert.equal(ok.status, 200);
      assert.equal((await json(ok)).ok, true);
      const evil = await status(x, { 'x-session-key': 't', origin: 'http://evil.test' });
      assert.equal(evil.status, 403);
    });
  });

  test('with a token set, calls need the bearer token but /health stays open', async () => {
    await withHarness({ token: 'secret-token-123' }, async (x) => {
      const none = await status(x, { 'x-session-key': 't' });
      assert.equal(none.status, 401);
      const wrong = await status(x, {
        'x-session-key': 't',
        authorization: 'Bearer secret-token-12',
      });
      assert.equal(wrong.status, 401);
      const right = await status(x, {
        'x-session-key': 't',
        authorization: 'Bearer secret-token-123',
      });
      assert.equal(right.status, 200);
      assert.equal((await json(right)).ok, true);
      assert.equal((await x.request('/health')).status, 200);
    });
  });

  test('binding to a non-loopback address without a token fails at start-up, naming SWIFTBROWSE_TOKEN', () => {
    assert.throws(
      () => loadConfig({ HOST: '0.0.0.0' }),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError, String(e));
        assert.match(e.message, /SWIFTBROWSE_TOKEN/);
        return true;
      },
    );
    assert.equal(
      loadConfig({ HOST: '0.0.0.0', SWIFTBROWSE_TOKEN: 'secret-token-123' }).host,
      '0.0.0.0',
    );
  });
});

describe('what errors reveal', () => {
  test('a password in a URL never comes back in the response', async () => {
    const r = await h.request('/browser/goto', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-key': 't' },
      body: JSON.stringify({ url: 'http://user:hunter2@swiftbrowse-test.invalid/' }),
    });
    const text = await r.text();
    assert.equal(r.status, 502);
    assert.ok(!text.includes('hunter2'), text);
    assert.match(text, /swiftbrowse-test\.invalid/);
  });

  test('a password that itself contains @ is stripped whole', async () => {
    const r = await h.op('goto', { url: 'http://user:hunter@2@swiftbrowse-test.invalid/' });
    assert.equal(r.status, 502);
    const text = JSON.stringify(r.body);
    assert.ok(!text.includes('hunter'), text);
    assert.ok(!text.includes('2@'), text);
  });

  test('credentials in a URL without a scheme never come back in the response', async () => {
    const r = await h.op('goto', { url: 'user:hunter2@swiftbrowse-test.invalid/' });
    assert.equal(r.body.ok, false);
    assert.ok(!JSON.stringify(r.body).includes('hunter2'), JSON.stringify(r.body));
  });

  test('an XPath that matches nothing is quoted verbatim in the not_found message', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/login.html` });
    const r = await h.op('click', { target: { xpath: "//input[@name='q']" }, timeout: 300 });
    assert.equal(r.status, 404);
    assert.equal(r.body.error?.kind, 'not_found');
    assert.ok(r.body.error!.message.includes("//input[@name='q']"), r.body.error!.message);
  });
});

describe('batch', () => {
  const steps = () => [
    { op: 'goto', args: { url: `${h.server.PREFIX}/login.html` } },
    { op: 'click', args: { target: { role: 'button', name: 'Nope' }, timeout: 300 } },
    { op: 'goto', args: { url: `${h.server.PREFIX}/delete.html` } },
  ];

  test('a batch stops at the first failure and answers with its status', async () => {
    const r = await h.op('batch', steps());
    assert.equal(r.status, 404);
    assert.equal(r.body.ok, false);
    assert.equal(r.body.error?.kind, 'not_found');
    const results = r.body.data?.results as ActionResult[];
    assert.deepEqual(
      results.map((x) => [x.op, x.ok]),
      [
        ['goto', true],
        ['click', false],
      ],
    );
    assert.equal(r.body.page?.url, `${h.server.PREFIX}/login.html`);
  });

  test('with continue_on_error every step runs and the status is still the first failure', async () => {
    const r = await h.op('batch', { steps: steps(), continue_on_error: true });
    assert.equal(r.status, 404);
    const results = r.body.data?.results as ActionResult[];
    assert.deepEqual(
      results.map((x) => [x.op, x.ok]),
      [
        ['goto', true],
        ['click', false],
        ['goto', true],
      ],
    );
    assert.equal(r.body.page?.url, `${h.server.PREFIX}/delete.html`);
  });

  test('a batch whose steps all pass answers 200', async () => {
    const r = await h.op('batch', [steps()[0], steps()[2]]);
    assert.equal(r.status, 200, JSON.stringify(r.body.error));
    assert.equal((r.body.data?.results as ActionResult[]).length, 2);
  });
});

describe('error kinds map to HTTP statuses', () => {
  const cases: {
    kind: string;
    http: number;
    recoverable: boolean;
    page?: string;
    op: string;
    args: Record<string, unknown>;
  }[] = [
    {
      kind: 'not_found',
      http: 404,
      recoverable: true,
      page: 'login.html',
      op: 'click',
      args: { target: { role: 'button', name: 'Nope' }, timeout: 300 },
    },
    {
      kind: 'not_actionable',
      http: 409,
      recoverable: true,
      page: 'disabled.html',
      op: 'click',
      args: { target: { role: 'button', name: 'Submit' }, timeout: 500 },
    },
    { kind: 'invalid_argument', http: 400, recoverable: false, op: 'goto', args: {} },
    {
      kind: 'navigation_failed',
      http: 502,
      recoverable: false,
      op: 'goto',
      args: { url: '/status/500' },
    },
    {
      kind: 'verification_failed',
      http: 422,
      recoverable: false,
      page: 'login.html',
      op: 'assert',
      args: { text_visible: 'Welcome back', timeout: 0, message: 'Not signed in' },
    },
    {
      kind: 'timeout',
      http: 504,
      recoverable: true,
      page: 'login.html',
      op: 'wait_for',
      args: { text_visible: 'never', timeout: 300 },
    },
  ];
  for (const c of cases) {
    test(`${c.kind} answers ${c.http} and says whether it is recoverable`, async () => {
      if (c.page) await h.op('goto', { url: `${h.server.PREFIX}/${c.page}` });
      const args =
        typeof c.args.url === 'string'
          ? { ...c.args, url: `${h.server.PREFIX}${c.args.url}` }
          : c.args;
      const r = await h.op(c.op, args);
      assert.equal(r.body.error?.kind, c.kind, JSON.stringify(r.body));
      assert.equal(r.status, c.http);
      assert.equal(r.body.error?.recoverable, c.recoverable);
      assert.equal(r.body.ok, false);
    });
  }

  test('ambiguous answers 409, not recoverable, and lists the candidates', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/ambiguous.html` });
    const r = await h.op('click', { target: { role: 'button', name: 'Edit' } });
    assert.equal(r.status, 409);
    assert.equal(r.body.error?.kind, 'ambiguous');
    assert.equal(r.body.error?.recoverable, false);
    const candidates = r.body.error?.details?.candidates;
    assert.ok(Array.isArray(candidates), JSON.stringify(r.body.error));
    assert.equal(candidates.length, 2, JSON.stringify(candidates));
    const nobody = await h.op('evaluate', {
      script: "document.querySelector('#result').textContent",
    });
    assert.equal(nobody.body.data?.result, '');
  });

  test('evaluate on a server with EVALUATE off is permission_denied (403)', async () => {
    await withHarness({ evaluate: false }, async (x) => {
      const r = await x.op('evaluate', { script: '1 + 1' });
      assert.equal(r.status, 403);
      assert.equal(r.body.error?.kind, 'permission_denied');
      assert.equal(r.body.error?.recoverable, false);
      assert.equal(r.body.data, undefined);
    });
  });

  test('with approval on, a destructive click needs approved: true and an ordinary one does not', async () => {
    await withHarness({ approval: true }, async (x) => {
      await x.op('goto', { url: `${x.server.PREFIX}/delete.html` });
      const result = () =>
        x.op('evaluate', { script: "document.querySelector('#result').textContent" });

      const refused = await x.op('click', { target: { role: 'button', name: 'Delete account' } });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error?.kind, 'approval_required');
      assert.equal(refused.body.error?.recoverable, false);
      assert.match(refused.body.error!.message, /approved: true/);
      assert.equal((await result()).body.data?.result, '');

      const approved = await x.op('click', {
        target: { role: 'button', name: 'Delete account' },
        approved: true,
      });
      assert.equal(approved.status, 200, JSON.stringify(approved.body.error));
      assert.equal((await result()).body.data?.result, 'Account deleted');

      const signIn = await x.op('click', { target: { role: 'button', name: 'Sign in' } });
      assert.equal(signIn.status, 200, JSON.stringify(signIn.body.error));
      assert.equal((await result()).body.data?.result, 'Signed in');
    });
  });

  test('CONSEQUENTIAL_WORDS replaces the list of words that need approval', async () => {
    await withHarness({ approval: true, consequentialWords: 'sign in' }, async (x) => {
      await x.op('goto', { url: `${x.server.PREFIX}/delete.html` });
      const signIn = await x.op('click', { target: { role: 'button', name: 'Sign in' } });
      assert.equal(signIn.body.error?.kind, 'approval_required');
      const remove = await x.op('click', { target: { role: 'button', name: 'Delete account' } });
      assert.equal(remove.body.ok, true, 'delete is no longer on the list');
    });
  });
});

describe('routes and auth, as HTTP clients expect them', () => {
  test('an unknown route is 404 route_not_found, naming the route and where routes are listed', async () => {
    const r = await h.request('/nowhere', { headers: { 'x-session-key': 't' } });
    const body = await json(r);
    assert.equal(r.status, 404);
    assert.deepEqual(
      { kind: body.error?.kind, recoverable: body.error?.recoverable },
      { kind: 'route_not_found', recoverable: false },
    );
    assert.match(body.error!.message, /No route GET \/nowhere\b/);
    assert.match(body.error!.message, /GET \/ops .*GET \/openapi\.json/);
  });

  test('a known route with the wrong method is 405 with the Allow its routes take', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/browser/goto', 'POST'],
      ['PUT', '/browser', 'GET, HEAD, DELETE'],
      ['POST', '/ops', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const r = await h.request(path, {
        method,
        headers: { 'x-session-key': 't', 'content-type': 'application/json' },
      });
      const body = await json(r);
      assert.equal(r.status, 405, `${method} ${path}`);
      assert.equal(r.headers.get('allow'), allow, `${method} ${path}`);
      assert.equal(body.error?.kind, 'method_not_allowed');
      assert.equal(body.error?.recoverable, false);
      assert.match(
        body.error!.message,
        new RegExp(`^${method} ${path} is not allowed: .* takes ${allow}`),
      );
    }
  });

  test('under ROUTE_PREFIX the 404 and 405 name the prefixed route and Allow is the same', async () => {
    await withHarness({ routePrefix: '/sb' }, async (x) => {
      const wrong = await x.request('/browser/goto', { headers: { 'x-session-key': 't' } });
      assert.equal(wrong.status, 405);
      assert.equal(wrong.headers.get('allow'), 'POST');
      assert.match((await json(wrong)).error!.message, /^GET \/sb\/browser\/goto is not allowed/);
      const missing = await x.request('/nowhere');
      assert.equal(missing.status, 404);
      assert.match(
        (await json(missing)).error!.message,
        /No route GET \/sb\/nowhere\b.*GET \/sb\/ops/,
      );
      const outside = await fetch(`${x.origin}/browser/goto`);
      assert.equal(outside.status, 404);
      assert.equal((await json(outside)).error?.kind, 'route_not_found');
    });
  });

  test('a bad JSON body names this server’s own address in its example curl', async () => {
    await withHarness({ routePrefix: '/sb' }, async (x) => {
      const r = await x.request('/browser/goto', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-key': 't' },
        body: '{"url": ',
      });
      const message = (await json(r)).error!.message;
      assert.equal(r.status, 400);
      assert.ok(message.includes(`curl -s ${x.url}/browser/goto `), message);
      assert.ok(message.includes(`"url": "${x.url}/demo/"`), message);
      assert.doesNotMatch(message, /8765/);
    });
  });

  test('the bearer scheme is case-insensitive, and every 401 carries the Bearer challenge', async () => {
    await withHarness({ token: 'secret-token-123' }, async (x) => {
      for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
        const r = await status(x, {
          'x-session-key': 't',
          authorization: `${scheme} secret-token-123`,
        });
        assert.equal(r.status, 200, scheme);
      }
      const none = await status(x, { 'x-session-key': 't' });
      assert.equal(none.status, 401);
      assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="swiftbrowse"');
      const wrong = await status(x, { 'x-session-key': 't', authorization: 'bearer nope-nope-1' });
      assert.equal(wrong.status, 401);
      assert.equal(
        wrong.headers.get('www-authenticate'),
        'Bearer realm="swiftbrowse", error="invalid_token"',
      );
      assert.equal((await json(wrong)).error?.recoverable, false);
    });
  });

  test('the operator token takes the same scheme rules and challenge', async () => {
    await withHarness({ adminToken: 'operator-token-1' }, async (x) => {
      const right = await x.request('/admin/settings', {
        headers: { authorization: 'bearer operator-token-1' },
      });
      assert.equal(right.status, 200);
      const none = await x.request('/admin/settings');
      assert.equal(none.status, 401);
      assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="swiftbrowse"');
      const wrong = await x.request('/admin/settings', {
        headers: { authorization: 'Bearer operator-token-2' },
      });
      assert.equal(wrong.status, 401);
      assert.match(wrong.headers.get('www-authenticate')!, /error="invalid_token"/);
    });
  });
});
