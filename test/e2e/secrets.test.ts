// Browser behaviour: secrets typed into pages and scrubbed from what comes back.
import assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { BACKEND } from '../helpers/backend.js';
import { startHarness, type Harness } from '../helpers/harness.js';

const VALUE = 'p@ss w0rd&"<x>é';
const MARKER = '[secret:admin/password]';

/** Every way the value could be written down: none of these may appear anywhere. */
const FORMS = [
  VALUE,
  encodeURIComponent(VALUE),
  new URLSearchParams({ v: VALUE }).toString().slice(2),
  VALUE.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
  VALUE.replace(/&/g, '&amp;').replace(/"/g, '&#34;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
  JSON.stringify(VALUE).slice(1, -1),
].map((f) => Buffer.from(f, 'utf8'));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

let h: Harness;
let dataDir: string;
let secretsDir: string;
let logPath: string;
/** The raw text of every response SwiftBrowse sent in this file. */
const emitted: string[] = [];

/** The fields these tests read; data is what each op returns. */
interface Body {
  ok: boolean;
  error: { kind: string; message: string };
  page: { url: string };
  data: {
    secrets: {
      name: string;
      keys: string[];
      description?: string;
      allowed_origins: string[];
      unrestricted: boolean;
      source: string;
    }[];
    value?: null;
    secret?: unknown;
    result?: unknown;
    track: string;
    image: { base64: string };
    last_url?: string;
    changes?: unknown;
  };
}

async function op(name: string, args: unknown = {}) {
  const response = await h.request(`/browser/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-session-key': 'sec' },
    body: JSON.stringify(args),
  });
  const text = await response.text();
  emitted.push(text);
  return { status: response.status, body: JSON.parse(text) as Body };
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-secrets-e2e-'));
  secretsDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-secret-src-'));
  logPath = join(dataDir, 'server.log');
  mkdirSync(join(secretsDir, 'admin'));
  writeFileSync(join(secretsDir, 'admin', 'password'), `${VALUE}\n`);
  writeFileSync(join(secretsDir, 'admin', 'username'), 'alice');
  writeFileSync(join(secretsDir, 'admin', '_description'), 'Fixture admin login');
  mkdirSync(join(secretsDir, 'other'));
  writeFileSync(join(secretsDir, 'other', 'password'), 'other-value-never-typed');
  writeFileSync(join(secretsDir, 'other', '_allowed_urls'), 'https://allowed.example.com\n');
  h = await startHarness(
    { dataDir, secretsDirs: [secretsDir], logFrames: true },
    pino({ level: 'info' }, pino.destination({ dest: logPath, sync: true })),
  );
  // The fixture origin is only known now: restrict admin to it.
  writeFileSync(join(secretsDir, 'admin', '_allowed_urls'), `${h.server.PREFIX}\n`);
  // PIN and Blank sit on whole pixels: their captures are compared byte for byte.
  h.server.setContent(
    '/secret-login.html',
    `<!doctype html><title>Sign in</title>
     <form action="/welcome" method="get">
       <label for="user">User</label><input id="user" name="user">
       <label for="pw">Password</label><input id="pw" name="pw" type="password">
       <label for="pin">PIN</label><input id="pin" name="pin" style="position:absolute;left:300px;top:200px;width:200px">
       <label for="blank">Blank</label><input id="blank" name="blank" style="position:absolute;left:300px;top:240px;width:200px">
       <button>Sign in</button>
     </form>`,
  );
  h.server.setRoute('/welcome', (req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Welcome</title><p>Welcome ${escapeHtml(q.get('user') ?? '')}</p><p id="echo">${escapeHtml(q.get('pin') ?? '')}</p>`,
    );
  });
});
after(async () => {
  await h.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(secretsDir, { recursive: true, force: true });
});

describe('secrets a model never sees', () => {
  test('the catalogue lists names, keys and rules, never a value', async () => {
    const { body } = await op('secrets');
    assert.equal(body.ok, true, JSON.stringify(body.error));
    const admin = body.data.secrets.find((s) => s.name === 'admin')!;
    assert.deepEqual(admin.keys, ['password', 'username']);
    assert.equal(admin.description, 'Fixture admin login');
    assert.deepEqual(admin.allowed_origins, [h.server.PREFIX]);
    assert.equal(admin.unrestricted, false);
    assert.equal(admin.source, `filesystem:${secretsDir}`);
    const rest = await h.request('/secrets', { headers: { 'x-session-key': 'sec' } });
    const text = await rest.text();
    emitted.push(text);
    assert.equal(rest.status, 200);
    assert.match(text, /"name":"other"/);
  });

  test('a bound password reaches the field on an allowed origin and is never returned', async () => {
    await op('goto', { url: `${h.server.PREFIX}/secret-login.html` });
    assert.equal((await op('fill', { target: { label: 'User' }, value: 'alice' })).body.ok, true);
    const r = await op('fill', {
      target: { label: 'Password' },
      secret: { name: 'admin', key: 'password' },
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.deepEqual(r.body.data.value, null);
    assert.deepEqual(r.body.data.secret, { name: 'admin', key: 'password' });
    const typed = await h.op(
      'evaluate',
      { script: "document.querySelector('#pw').value.length" },
      'sec',
    );
    assert.equal(typed.body.data?.result, [...VALUE].length, 'the whole value reached the field');
  });

  test('a secret typed into a plain field is masked in the text track and blanked in screenshots', async () => {
    const r = await op('fill', {
      target: { label: 'PIN' },
      secret: { name: 'admin', key: 'password' },
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    const snap = await op('snapshot');
    assert.match(snap.body.data.track, /#inp-pin\s+••••/);
    const read = await op('extract', { target: { label: 'PIN' }, what: 'value' });
    assert.equal(read.body.data.result, MARKER, 'a read of the value is scrubbed');
    const script = await op('evaluate', { script: "document.querySelector('#pin').value" });
    assert.equal(script.body.data.result, MARKER, 'evaluate reads it, and the result is scrubbed');
    await op('evaluate', { script: 'document.activeElement.blur()' });
    const shot = (css: string) => op('screenshot', { target: { css }, save: false });
    const masked = (await shot('#pin')).body.data.image.base64;
    const empty = (await shot('#blank')).body.data.image.base64;
    assert.equal(masked, empty, 'the field with the secret looks empty in a capture');
  });

  test('a capture right after an acting op still shoots the element it names, blanked', async () => {
    const shot = (css: string) => op('screenshot', { target: { css }, save: false });
    const empty = (await shot('#blank')).body.data.image.base64;
    // Each acting op is followed by the session log's own capture; the screenshot meets it.
    for (let i = 0; i < 8; i++) {
      await op('evaluate', { script: 'document.activeElement.blur()' });
      const masked = (await shot('#pin')).body.data.image.base64;
      assert.equal(masked, empty, `capture ${i + 1} of the secret field is not blank`);
    }
  });

  test('a secret is refused on another origin and in evaluate, goto and expect', async () => {
    const elsewhere = await op('fill', {
      target: { label: 'User' },
      secret: { name: 'other', key: 'password' },
    });
    assert.equal(elsewhere.status, 403);
    assert.match(
      elsewhere.body.error.message,
      /may only be typed on https:\/\/allowed\.example\.com/,
    );
    const refused = [
      await op('evaluate', { script: '1', secret: { name: 'admin', key: 'password' } }),
      await op('goto', { url: h.server.PREFIX, secret: { name: 'admin', key: 'password' } }),
      await op('click', {
        target: { label: 'User' },
        expect: { value: { label: 'PIN' }, secret: { name: 'admin', key: 'password' } },
      }),
    ];
    for (const r of refused)
      assert.equal(r.body.error?.kind, 'permission_denied', JSON.stringify(r.body));
    const both = await op('fill', {
      target: { label: 'User' },
      value: 'x',
      secret: { name: 'admin', key: 'password' },
    });
    assert.match(both.body.error.message, /exactly one of value or secret/);
  });

  test('a GET form carrying the value is not remembered as the last URL, and its echo is scrubbed', async () => {
    const before = (await op('status')).body.data.last_url;
    const r = await op('click', { target: { role: 'button', name: 'Sign in' } });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.match(r.body.page.url, /\/welcome\?/);
    assert.ok(r.body.page.url.includes(MARKER), r.body.page.url);
    assert.ok(JSON.stringify(r.body.data.changes).includes(MARKER));
    const status = (await op('status')).body.data;
    assert.equal(status.last_url, before);
  });

  test('nothing emitted, logged or written under DATA_DIR carries the value, in any form', async () => {
    await op('screenshot');
    await op('close');
    const texts = emitted.map((t) => Buffer.from(t, 'utf8'));
    const files = filesUnder(dataDir).filter((f) => statSync(f).isFile());
    const log = readFileSync(logPath, 'utf8');
    for (const form of FORMS) {
      texts.forEach((t, i) =>
        assert.equal(t.indexOf(form), -1, `response ${i}: ${emitted[i].slice(0, 200)}`),
      );
      for (const file of files) assert.equal(readFileSync(file).indexOf(form), -1, file);
    }
    assert.ok(!log.includes('other-value-never-typed'));
    const audit = log
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.event === 'secret_bind');
    const allowed = audit.filter((l) => l.allowed === true);
    assert.equal(allowed.length, 2);
    assert.deepEqual(
      {
        secret: allowed[0].secret,
        key: allowed[0].key,
        session: allowed[0].session,
        level: allowed[0].level,
      },
      { secret: 'admin', key: 'password', session: 'sec', level: 30 },
    );
    assert.ok(audit.some((l) => l.allowed === false && l.level === 40 && l.secret === 'other'));
  });
});

/** A frame script that takes focus every millisecond and beacons whatever reaches it. */
const THIEF_FRAME = `<!doctype html><input id="steal"><script>
  const steal = document.getElementById('steal');
  const beacon = (kind, v) => fetch('/beacon?kind=' + kind + '&v=' + encodeURIComponent(v));
  setInterval(() => steal.focus(), 1);
  steal.addEventListener('input', () => beacon('input', steal.value));
  addEventListener('keydown', (e) => beacon('keydown', e.key), true);
</script>`;

describe('a secret goes only into the field that was checked', () => {
  const beacons = () => h.server.requests.filter((r) => r.startsWith('/beacon'));
  let other: string;
  before(() => {
    // localhost is another origin of the same fixture server: a cross-origin frame.
    other = `http://localhost:${h.server.port}`;
    h.server.setContent('/thief-frame.html', THIEF_FRAME);
    const page = (onFocus: string, extra = '') =>
      `<!doctype html><title>Sign in</title>
       <label for="pw">Password</label><input id="pw" type="password">${extra}
       <iframe id="thief" src="${other}/thief-frame.html"></iframe>
       <script>
         const pw = document.getElementById('pw');
         pw.addEventListener('focus', () => { ${onFocus} });
       </script>`;
    h.server.setContent('/thief-loop.html', page(''));
    h.server.setContent(
      '/thief-onfocus.html',
      page("document.getElementById('thief').contentWindow.focus();"),
    );
    h.server.setContent(
      '/thief-same-origin.html',
      page(
        "document.getElementById('decoy').focus();",
        `<input id="decoy"><script>
           const decoy = document.getElementById('decoy');
           decoy.addEventListener('input', () => fetch('/beacon?kind=input&v=' + encodeURIComponent(decoy.value)));
           decoy.addEventListener('keydown', (e) => fetch('/beacon?kind=keydown&v=' + e.key));
         </script>`,
      ),
    );
  });
  after(() => h.closeBrowsers());

  /** Fills the password and answers what a user would check: the result, the field, the beacons. */
  async function fillOn(path: string, session: string) {
    h.server.requests.length = 0;
    await h.op('goto', { url: `${h.server.PREFIX}${path}` }, session);
    // The frame's script is running (its focus loop) before the fill starts.
    await h.op('wait_for', { ms: 300 }, session);
    const r = await h.op(
      'fill',
      { target: { label: 'Password' }, secret: { name: 'admin', key: 'password' } },
      session,
    );
    await h.op('wait_for', { ms: 300 }, session);
    const held = await h.op(
      'evaluate',
      { script: "document.querySelector('#pw').value.length" },
      session,
    );
    return { r: r.body, fieldLength: held.body.data?.result, beacons: beacons() };
  }

  test('a secret goes into an input that is a combobox (a sign-in name with suggestions)', async () => {
    h.server.setContent(
      '/secret-combo.html',
      `<label>Account <input id=acct role=combobox aria-autocomplete=list aria-controls=sugg></label><ul id=sugg role=listbox></ul>`,
    );
    await op('goto', { url: `${h.server.PREFIX}/secret-combo.html` });
    const r = await op('fill', {
      target: { label: 'Account' },
      secret: { name: 'admin', key: 'password' },
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    const typed = await h.op(
      'evaluate',
      { script: "document.querySelector('#acct').value.length" },
      'sec',
    );
    assert.equal(typed.body.data?.result, [...VALUE].length);
  });

  test('a cross-origin frame that grabs focus every millisecond receives nothing; the field gets the value', async () => {
    const { r, fieldLength, beacons } = await fillOn('/thief-loop.html', 'focus-loop');
    assert.deepEqual(beacons, [], 'the frame heard a key or an input');
    assert.equal(r.ok, true, JSON.stringify(r.error));
    assert.equal(fieldLength, [...VALUE].length, 'the whole value is in the page’s own field');
  });

  test('a page that moves focus into a cross-origin frame when the field is focused is refused, naming the frame', async () => {
    const { r, fieldLength, beacons } = await fillOn('/thief-onfocus.html', 'focus-frame');
    assert.deepEqual(beacons, [], 'the frame heard a key or an input');
    assert.equal(r.ok, false);
    assert.equal(r.error?.kind, 'not_actionable');
    assert.match(r.error!.message, /focus was taken/);
    assert.match(r.error!.message, /iframe#thief \(a frame from http:\/\/localhost:\d+\)/);
    assert.match(r.error!.message, /Nothing was typed/);
    assert.equal(fieldLength, 0);
  });

  test('a same-origin field that steals focus gets nothing, and the refusal is audited', async () => {
    const { r, fieldLength, beacons } = await fillOn('/thief-same-origin.html', 'focus-decoy');
    assert.deepEqual(beacons, []);
    assert.equal(r.ok, false);
    assert.match(r.error!.message, /focus was taken from .* input#decoy holds it/);
    assert.equal(fieldLength, 0);
    const audit = readFileSync(logPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.event === 'secret_bind' && l.session === 'focus-decoy');
    assert.deepEqual(
      audit.map((l) => [l.allowed, l.level, l.reason]),
      [[false, 40, 'focus was taken from the field, nothing was typed']],
    );
  });
});

describe('nothing the server writes carries a secret the page spread around', () => {
  const session = 'carry';
  const bytes = Buffer.from(VALUE, 'utf8');
  const utf16 = Buffer.from(VALUE, 'utf16le').swap16().toString('hex');
  /** The value plain, URL-encoded (both ways), base64 (both alphabets), hex and PDF's UTF-16. */
  const ENCODED = [
    VALUE,
    encodeURIComponent(VALUE),
    new URLSearchParams({ v: VALUE }).toString().slice(2),
    bytes.toString('base64').replace(/=+$/, ''),
    bytes.toString('base64url'),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    utf16,
    utf16.toUpperCase(),
  ];
  const carries = (text: string) => ENCODED.filter((f) => text.includes(f));

  before(() => {
    // On input the page spreads the value: title, URL, a link, a cookie, local storage (base64).
    h.server.setContent(
      '/carry.html',
      `<!doctype html><title>Carry</title>
       <label for="pw">Password</label><input id="pw" type="password"><a id="here" href="#">here</a>
       <script>
         const pw = document.getElementById('pw');
         pw.addEventListener('input', () => {
           document.title = pw.value;
           history.replaceState(null, '', '?p=' + encodeURIComponent(pw.value));
           document.getElementById('here').href = location.href;
           document.cookie = 'pw=' + encodeURIComponent(pw.value) + '; path=/';
           document.cookie = 'theme=dark; path=/';
           localStorage.setItem('pw64', btoa(unescape(encodeURIComponent(pw.value))));
           localStorage.setItem('lang', 'en');
         });
       </script>`,
    );
  });
  after(() => h.closeBrowsers());

  test('admin API, store record, session log, state file, PDF and file names hold no form of it', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/carry.html` }, session);
    const r = await h.op(
      'fill',
      { target: { label: 'Password' }, secret: { name: 'admin', key: 'password' } },
      session,
    );
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    const title = await h.op('evaluate', { script: 'document.title' }, session);
    assert.equal(title.body.data?.result, MARKER, 'the page did put the value in its title');

    const state = await h.op('state_save', { name: 'carry-state.json' }, session);
    assert.equal(state.body.ok, true, JSON.stringify(state.body.error));
    const saved = state.body.data as { left_out: string[]; cookies: number };
    assert.deepEqual(saved.left_out, [
      'cookie on 127.0.0.1 "pw"',
      `local storage of ${h.server.PREFIX} "pw64"`,
    ]);
    assert.match(state.body.notes!.join('\n'), /secret_left_out: .* not saved/);
    const stateFile = readFileSync(join(dataDir, 'files', session, 'carry-state.json'), 'utf8');
    assert.match(stateFile, /"theme"/, 'the rest of the state is kept');
    assert.match(stateFile, /"lang"/);

    const printed = await h.op('pdf', {}, session);
    assert.equal(printed.body.ok, true, JSON.stringify(printed.body.error));
    const unsaved = await h.op('pdf', { save: false }, session);
    const unsavedPdf = Buffer.from(
      (unsaved.body.data as { pdf: { base64: string } }).pdf.base64,
      'base64',
    ).toString('latin1');
    await h.op('screenshot', {}, session);

    const detail = await (await h.request(`/admin/sessions/${session}`)).text();
    const list = await (await h.request('/admin/sessions')).text();
    assert.match(
      detail,
      /"tabs":\[\{"id":"[^"]+","url":"http:\/\/127\.0\.0\.1:\d+\/carry\.html\?p=\[secret:admin\/password\]"/,
    );
    const record = JSON.stringify(await h.app.runtime.sessions.store.load(session));
    assert.match(record, /"lastUrl":"http:\/\/127\.0\.0\.1:\d+\/carry\.html"/);

    // Every file under DATA_DIR: session log and frames, saved files, kept files, server log.
    const written = filesUnder(dataDir);
    const texts: Record<string, string> = {
      detail,
      list,
      record,
      unsavedPdf,
      names: written.join('\n'),
    };
    for (const file of written) texts[file] = readFileSync(file).toString('latin1');
    const pdfs = written.filter((f) => f.endsWith('.pdf'));
    assert.equal(pdfs.length, 1, 'one PDF was saved');
    const pdfTitle = /\/Title (<FEFF(?:002A)+>|\(\[secret:admin\/password\] *\))/.exec(
      texts[pdfs[0]],
    );
    // Firefox's print writes no /Title at all; Chromium's carries the page title, replaced.
    if (BACKEND === 'firefox') assert.doesNotMatch(texts[pdfs[0]], /\/Title/);
    else assert.ok(pdfTitle, 'the PDF keeps a /Title, with the value replaced');
    // Which forms were found, never the text: a PDF is large and a failure must not print it.
    for (const [where, text] of Object.entries(texts))
      assert.deepEqual(
        carries(text).map((f) => ENCODED.indexOf(f)),
        [],
        `${where} carries the value`,
      );
  });

  test('a URL with credentials is stored and shown without them', async () => {
    const url = `http://alice:pw-in-url@127.0.0.1:${h.server.port}/carry.html`;
    const r = await h.op('goto', { url }, 'cred');
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    const detail = await (await h.request('/admin/sessions/cred')).text();
    const list = await (await h.request('/admin/sessions')).text();
    const record = JSON.stringify(await h.app.runtime.sessions.store.load('cred'));
    for (const [where, text] of Object.entries({ detail, list, record }))
      assert.ok(!text.includes('pw-in-url'), `${where}: ${text.slice(0, 300)}`);
    assert.match(detail, /"url":"http:\/\/127\.0\.0\.1:\d+\/carry\.html"/);
  });
});
