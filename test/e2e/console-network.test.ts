// Browser behaviour: the page's console and network, as each backend reports them.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';

let h: Harness;
before(async () => {
  h = await startHarness();
  h.server.setContent(
    '/boom.html',
    `<p>Boom page</p><script>console.log('booting'); console.warn('low disk'); throw new Error('boom at load')</script>`,
  );
});
// A Grid browser holds a node slot until closed: this file opens more sessions than it has.
afterEach(() => h.closeBrowsers());
after(() => h.close());

interface ConsoleData {
  entries: { level: string; text: string; source?: string; url?: string; line?: number }[];
  total: number;
  dropped?: number;
}
interface NetworkData {
  requests: {
    method: string;
    url: string;
    status?: number;
    failure?: string;
    pending?: boolean;
    type: string;
    duration_ms?: number;
    size?: number;
  }[];
  total: number;
  dropped?: number;
}

const consoleOf = async (args: Record<string, unknown>, session: string) => {
  const r = await h.op('console', args, session);
  assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
  return r.body.data as unknown as ConsoleData;
};
const networkOf = async (args: Record<string, unknown>, session: string) => {
  const r = await h.op('network', args, session);
  assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
  return r.body.data as unknown as NetworkData;
};

describe('console', () => {
  test('after a reload, console holds the error the page threw while loading', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/boom.html` }, 'c1');
    const first = await consoleOf({ clear: true }, 'c1');
    assert.ok(first.entries.some((e) => e.text.includes('boom at load')));
    await h.op('reload', {}, 'c1');
    const { entries } = await consoleOf({}, 'c1');
    const boom = entries.find((e) => e.source === 'pageerror');
    assert.ok(boom, JSON.stringify(entries));
    assert.equal(boom.level, 'error');
    assert.equal(boom.text, 'Error: boom at load');
    assert.equal(boom.url, `${h.server.PREFIX}/boom.html`);
    assert.deepEqual(
      entries.map((e) => e.text),
      ['booting', 'low disk', 'Error: boom at load'],
      'what the reload logged, in order, and nothing from before the clear',
    );
  });

  test('levels and pattern filter; a list given as a string and "warn" are understood', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/boom.html` }, 'c2');
    const errors = await consoleOf({ levels: ['ERROR'] }, 'c2');
    assert.deepEqual(
      errors.entries.map((e) => e.text),
      ['Error: boom at load'],
    );
    const warnings = await consoleOf({ levels: 'warn,error' }, 'c2');
    assert.deepEqual(
      warnings.entries.map((e) => e.level),
      ['warning', 'error'],
    );
    const booting = await consoleOf({ pattern: 'BOOT' }, 'c2');
    assert.deepEqual(
      booting.entries.map((e) => e.text),
      ['booting'],
    );
    const regex = await consoleOf({ pattern: '/^low \\w+$/' }, 'c2');
    assert.deepEqual(
      regex.entries.map((e) => e.text),
      ['low disk'],
    );
    assert.equal(regex.total, 1);
  });

  test('a resource that failed to load is a console error, as Chromium words it', async () => {
    const port = await freePort();
    h.server.setContent(
      '/broken.html',
      `<img src="/nope.png"><script>console.error('own error');
       Promise.allSettled([fetch('/missing.json'), fetch('http://127.0.0.1:${port}/x')])
         .then(() => document.body.dataset.done = '1')</script>`,
    );
    await h.op('goto', { url: `${h.server.PREFIX}/broken.html` }, 'c5');
    const wait = await h.op('wait_for', { js: "return document.body.dataset.done === '1'" }, 'c5');
    // A 404 body nobody reads never completes: answered, it holds no settle (it held 5 s on BiDi).
    assert.ok(wait.body.timing!.duration_ms < 3000, JSON.stringify(wait.body.timing));
    const { entries } = await consoleOf({ levels: ['error'] }, 'c5');
    const failed = (status: number) =>
      `Failed to load resource: the server responded with a status of ${status} (Not Found)`;
    const byUrl = (a: { url?: string }, b: { url?: string }) =>
      (a.url ?? '').localeCompare(b.url ?? '');
    assert.deepEqual(
      entries
        .filter((e) => e.text.startsWith('Failed to load resource'))
        .map((e) => ({ ...e }))
        .sort(byUrl),
      [
        { level: 'error', text: failed(404), url: `${h.server.PREFIX}/missing.json` },
        { level: 'error', text: failed(404), url: `${h.server.PREFIX}/nope.png` },
        {
          level: 'error',
          text: 'Failed to load resource: net::ERR_CONNECTION_REFUSED',
          url: `http://127.0.0.1:${port}/x`,
        },
      ].sort(byUrl),
      JSON.stringify(entries),
    );
    assert.ok(
      entries.some((e) => e.text === 'own error'),
      JSON.stringify(entries),
    );
  });

  test('limit keeps the newest; clear empties the buffer', async () => {
    h.server.setContent(
      '/many.html',
      `<script>for (let i = 0; i < 60; i++) console.log('line ' + i)</script>`,
    );
    await h.op('goto', { url: `${h.server.PREFIX}/many.html` }, 'c3');
    const all = await consoleOf({}, 'c3');
    assert.equal(all.total, 60);
    assert.equal(all.entries.length, 50, 'default limit');
    assert.equal(all.entries.at(-1)?.text, 'line 59', 'newest last');
    const three = await consoleOf({ limit: 3, clear: true }, 'c3');
    assert.deepEqual(
      three.entries.map((e) => e.text),
      ['line 57', 'line 58', 'line 59'],
    );
    const after = await consoleOf({}, 'c3');
    assert.deepEqual(after, { entries: [], total: 0 });
  });

  test('a bad pattern or level is refused naming the argument', async () => {
    const bad = await h.op('console', { pattern: '/(/' }, 'c4');
    assert.equal(bad.body.error?.kind, 'invalid_argument');
    assert.match(bad.body.error!.message, /pattern/);
    const level = await h.op('console', { levels: ['loud'] }, 'c4');
    assert.equal(level.body.error?.kind, 'invalid_argument');
    assert.match(level.body.error!.message, /levels/);
  });
});

const APP_JS = `window.appLoaded = true; // ${'padding '.repeat(100)}`;

describe('network', () => {
  before(() => {
    h.server.setContent('/app.js', APP_JS);
    h.server.setContent(
      '/fetches.html',
      `<p>Fetches</p><script src="/app.js"></script>
       <script>fetch('/missing.json').then((r) => r.text())</script>`,
    );
  });

  test('failures_only lists the 404 and nothing that succeeded', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/fetches.html` }, 'n1');
    const all = await networkOf({}, 'n1');
    const page = all.requests.find((r) => r.url.endsWith('/fetches.html'));
    assert.equal(page?.status, 200);
    assert.equal(page?.type, 'document');
    assert.equal(typeof page?.duration_ms, 'number');
    const script = all.requests.find((r) => r.url.endsWith('/app.js'));
    assert.equal(script?.status, 200);
    // The body's bytes, headers not counted (they are 180 and more): a chunked body may count
    // its chunk framing.
    const body = Buffer.byteLength(APP_JS);
    assert.ok(
      script?.size !== undefined && script.size >= body && script.size < body + 64,
      `${body} bytes sent: ${JSON.stringify(script)}`,
    );
    const failures = await networkOf({ failures_only: true }, 'n1');
    assert.deepEqual(
      failures.requests.map((r) => [r.method, r.url, r.status, r.type]),
      [['GET', `${h.server.PREFIX}/missing.json`, 404, 'fetch']],
    );
    assert.equal(failures.total, 1);
  });

  test('size is the body a Content-Length announced, on every backend', async () => {
    const body = 'x'.repeat(5000);
    h.server.setRoute('/sized.txt', (_req, res) => {
      res.writeHead(200, {
        'content-type': 'text/plain',
        'content-length': String(body.length),
        'cache-control': 'no-store',
      });
      res.end(body);
    });
    h.server.setContent(
      '/sized.html',
      `<script>fetch('/sized.txt').then((r) => r.text())</script>`,
    );
    await h.op('goto', { url: `${h.server.PREFIX}/sized.html` }, 'n4');
    await h.op(
      'wait_for',
      { js: 'return performance.getEntriesByType("resource").length > 0' },
      'n4',
    );
    const { requests } = await networkOf({ pattern: '/sized.txt' }, 'n4');
    assert.deepEqual(
      requests.map((r) => [r.status, r.size]),
      [[200, 5000]],
    );
  });

  test('a request to a closed port is listed with its failure text', async () => {
    // A port nothing listens on (not a "well-known" one such as 9, which Firefox refuses unsent).
    const port = await freePort();
    h.server.setContent(
      '/refused.html',
      `<script>fetch('http://127.0.0.1:${port}/x').catch(() => document.body.dataset.failed = '1')</script>`,
    );
    await h.op('goto', { url: `${h.server.PREFIX}/refused.html` }, 'n2');
    await h.op('wait_for', { js: "return document.body.dataset.failed === '1'" }, 'n2');
    const { requests } = await networkOf({ failures_only: true, pattern: `:${port}/` }, 'n2');
    assert.equal(requests.length, 1, JSON.stringify(requests));
    assert.equal(requests[0].url, `http://127.0.0.1:${port}/x`);
    assert.equal(requests[0].status, undefined);
    assert.match(requests[0].failure ?? '', /ERR_/);
  });

  test('pattern and resource_types filter; clear empties', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/fetches.html` }, 'n3');
    const scripts = await networkOf({ resource_types: ['Script'] }, 'n3');
    assert.deepEqual(
      scripts.requests.map((r) => r.url),
      [`${h.server.PREFIX}/app.js`],
    );
    const json = await networkOf({ pattern: '/\\.json$/' }, 'n3');
    assert.deepEqual(
      json.requests.map((r) => r.status),
      [404],
    );
    await networkOf({ clear: true }, 'n3');
    assert.deepEqual(await networkOf({}, 'n3'), { requests: [], total: 0 });
  });
});

test('report lists a page’s failed sub-requests in network_failures as in console_errors', async () => {
  const port = await freePort();
  const refused = `http://127.0.0.1:${port}`;
  h.server.setContent('/frame.html', `<img src="/frame-gone.png">`);
  h.server.setContent(
    '/sub-failures.html',
    `<link rel=stylesheet href="/gone.css"><img src="/gone.png"><img src="${refused}/img.png">
     <script src="/gone.js"></script><iframe src="/frame.html"></iframe>
     <script>
       const xhr = new XMLHttpRequest(); xhr.open('GET', '/gone.xhr'); xhr.send();
       Promise.allSettled([fetch('${refused}/x'), fetch('/gone.json'),
         new Promise((r) => addEventListener('load', r))])
         .then(() => setTimeout(() => document.body.dataset.done = '1', 200))
     </script>`,
  );
  await h.op('goto', { url: `${h.server.PREFIX}/sub-failures.html` }, 'r1');
  await h.op('wait_for', { js: "return document.body.dataset.done === '1'" }, 'r1');
  // Failures of a page left behind still count: the report is the session's.
  await h.op('goto', { url: `${h.server.PREFIX}/app.js` }, 'r1');
  const r = await h.op('report', {}, 'r1');
  assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
  const data = r.body.data as {
    console_errors: { text: string; url?: string }[];
    network_failures: { method: string; url: string; status?: number; failure?: string }[];
  };
  const loads = data.console_errors.filter((e) => e.text.startsWith('Failed to load resource'));
  const failedUrls = new Set(data.network_failures.map((f) => f.url));
  const dump = JSON.stringify(data, null, 1);
  assert.deepEqual(
    loads.map((e) => e.url).filter((u) => !failedUrls.has(u!)),
    [],
    `every failed load in console_errors is in network_failures: ${dump}`,
  );
  const byUrl = new Map(data.network_failures.map((f) => [f.url, f]));
  const p = h.server.PREFIX;
  assert.deepEqual(
    [
      `${p}/gone.css`,
      `${p}/gone.png`,
      `${p}/gone.js`,
      `${p}/frame-gone.png`,
      `${p}/gone.xhr`,
      `${p}/gone.json`,
    ].map((u) => byUrl.get(u)?.status),
    [404, 404, 404, 404, 404, 404],
    dump,
  );
  for (const u of [`${refused}/img.png`, `${refused}/x`])
    assert.match(byUrl.get(u)?.failure ?? '', /ERR_CONNECTION_REFUSED/, dump);
});

test('a failed request stays in network_failures after hundreds of requests that did not fail', async () => {
  h.server.setContent(
    '/busy.html',
    `<img src="/early-gone.png" onerror="go()"><script>
       async function go() {
         for (let i = 0; i < 12; i++)
           await Promise.all(Array.from({ length: 50 }, (_, j) => fetch('/app.js?' + (i * 50 + j))));
         document.body.dataset.done = '1';
       }</script>`,
  );
  await h.op('goto', { url: `${h.server.PREFIX}/busy.html` }, 'r2');
  await h.op(
    'wait_for',
    { js: "return document.body.dataset.done === '1'", timeout: 60_000 },
    'r2',
  );
  const r = await h.op('report', {}, 'r2');
  const data = r.body.data as {
    console_errors: { url?: string }[];
    network_failures: { url: string; status?: number }[];
  };
  const gone = `${h.server.PREFIX}/early-gone.png`;
  assert.ok(
    data.console_errors.some((e) => e.url === gone),
    JSON.stringify(data.console_errors),
  );
  assert.deepEqual(
    data.network_failures.map((f) => [f.url, f.status]),
    [[gone, 404]],
  );
  // The network op still answers its newest requests, and says how many it dropped.
  const { requests, dropped } = await networkOf({ limit: 1 }, 'r2');
  assert.match(requests[0].url, /\/app\.js\?\d+$/);
  assert.ok((dropped ?? 0) > 0, String(dropped));
});

test('buffers are per tab: a new tab shows none of the first tab’s entries', async () => {
  await h.op('goto', { url: `${h.server.PREFIX}/boom.html` }, 'p1');
  assert.ok((await consoleOf({}, 'p1')).total > 0);
  assert.ok((await networkOf({}, 'p1')).total > 0);
  const opened = await h.op('tab_new', {}, 'p1');
  assert.equal(opened.body.ok, true, JSON.stringify(opened.body.error));
  assert.deepEqual(await consoleOf({}, 'p1'), { entries: [], total: 0 });
  assert.deepEqual(await networkOf({}, 'p1'), { requests: [], total: 0 });
  await h.op('tab_select', { tab: 't1' }, 'p1');
  assert.ok((await consoleOf({ pattern: 'boom' }, 'p1')).total > 0, 'the first tab kept its own');
});
