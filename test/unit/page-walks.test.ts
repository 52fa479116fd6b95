import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findBrowser } from '../../src/drivers/find-browser.js';

// The whole in-page script, as drivers run it: `__pw.api` is what callPage calls.
const bundle = buildSync({
  entryPoints: [join(process.cwd(), 'src/page/index.ts')],
  bundle: true,
  format: 'iife',
  globalName: '__pw',
  write: false,
}).outputFiles[0].text;

const routes = new Map<string, string>();
let server: Server;
let browser: Browser;
let page: Page;
let prefix = '';

before(async () => {
  server = createServer((req, res) => {
    const body = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  prefix = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: findBrowser(), args: CHROMIUM_ARGS });
  page = await browser.newPage();
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** Opens `html` (its body) with the page script in it; `run` evaluates with `api` in scope. */
async function load(html: string, files: Record<string, string> = {}) {
  routes.clear();
  routes.set('/', `<!doctype html><html><head><title>t</title></head><body>${html}</body></html>`);
  for (const [path, body] of Object.entries(files)) routes.set(path, body);
  // A fresh page each time: one a test crashed must not fail the tests after it.
  await page.close();
  page = await browser.newPage();
  await page.goto(`${prefix}/`);
  await page.addScriptTag({ content: bundle });
  return <T>(expression: string) =>
    page.evaluate<T>(`(async () => { const api = __pw.api; return ${expression}; })()`);
}

/**
 * A chain of `depth` nested divs built by script (the HTML parser caps nesting at 512). Chromium
 * itself cannot lay out a few thousand levels, so the 50,000-deep chain is inside a hidden box:
 * every walk that reads hidden elements too (locate, find, outline) still goes all the way down.
 */
const DEEP = (depth: number, inner: string, hidden: boolean) =>
  `<p>Before</p><div id=top ${hidden ? 'hidden' : ''}></div><p>After</p><script>
    let n = document.getElementById('top');
    for (let i = 0; i < ${depth}; i++) { const d = document.createElement('div'); n.append(d); n = d; }
    n.innerHTML = ${JSON.stringify(inner)};
  </script>`;

interface Track {
  lines: { address: string; mark?: string; text: string }[];
  truncated: boolean;
  cut?: { elements: number };
}

describe('walks over a page nested 50,000 deep', () => {
  test('locate, find, outline and the track go through it instead of overflowing the stack', async () => {
    const run = await load(
      DEEP(
        50_000,
        '<label>Deep field <input id=f></label><button><span><b>Deep</b></span></button>',
        true,
      ),
    );
    for (const target of [
      { strategy: 'text', value: '', match: { exact: 'Deep' } },
      { strategy: 'role', value: 'button', name: { exact: 'Deep' } },
      { strategy: 'css', value: 'button' },
      { strategy: 'xpath', value: '//button' },
      { strategy: 'css', value: 'button', near: { exact: 'Deep field' } },
    ]) {
      const r = await run<{ matches: { tag: string }[]; error?: string }>(
        `api.locate(${JSON.stringify(target)})`,
      );
      assert.equal(r.error, undefined, JSON.stringify(target));
      const want = target.strategy === 'text' ? 'b' : 'button';
      assert.deepEqual(
        r.matches.map((m) => m.tag),
        [want],
        JSON.stringify(target),
      );
    }
    const label = await run<{ matches: { tag: string }[] }>(
      `api.locate({ strategy: 'label', value: '', match: { exact: 'Deep field' } })`,
    );
    assert.deepEqual(
      label.matches.map((m) => m.tag),
      ['input'],
    );
    const found = await run<{ elements: { visible: boolean }[]; total: number }>(
      `api.find({ strategy: 'css', value: 'button, input' }, undefined, false, 10)`,
    );
    assert.equal(found.total, 2);
    assert.ok(found.elements.every((e) => !e.visible));
    const o = await run<{ items: { name: string; state?: string }[] }>('api.outline(10)');
    assert.deepEqual(
      o.items.map((i) => i.name),
      ['Deep field', 'Deep'],
    );
    assert.ok(o.items.every((i) => i.state?.startsWith('hidden')));
    const t = await run<Track>('api.track()');
    assert.deepEqual(
      t.lines.map((l) => l.text),
      ['Before', 'After'],
    );
  });

  test('the track and accessible names read a rendered chain as deep as Chromium draws', async () => {
    // Chromium's own layout crashes some hundreds of levels further down under load.
    const run = await load(
      DEEP(300, '<span>bottom line</span><button><i><b>Deep</b></i></button>', false),
    );
    const t = await run<Track>('api.track()');
    assert.ok(t.lines.some((l) => l.text === 'bottom line'));
    assert.ok(t.lines.some((l) => l.mark === '#btn' && l.text === 'Deep'));
    const r = await run<{ matches: { name?: string }[] }>(
      `api.locate({ strategy: 'role', value: 'button', name: { exact: 'Deep' } })`,
    );
    assert.equal(r.matches[0]?.name, 'Deep');
  });
});

describe('shadow roots and frames', () => {
  test('css, text and the track read through nested open shadow roots', async () => {
    const run = await load(
      `<div id=host></div><script>
        const outer = document.getElementById('host').attachShadow({ mode: 'open' });
        outer.innerHTML = '<p>Outer</p><div id=inner></div>';
        const inner = outer.getElementById('inner').attachShadow({ mode: 'open' });
        inner.innerHTML = '<button class=go>Inside</button>';
      </script>`,
    );
    const css = await run<{ matches: { tag: string }[] }>(
      `api.locate({ strategy: 'css', value: 'button.go' })`,
    );
    assert.equal(css.matches.length, 1);
    const text = await run<{ matches: { tag: string }[] }>(
      `api.locate({ strategy: 'text', value: '', match: { exact: 'Inside' } })`,
    );
    assert.deepEqual(
      text.matches.map((m) => m.tag),
      ['button'],
    );
    const t = await run<Track>('api.track()');
    assert.deepEqual(
      t.lines.map((l) => l.text),
      ['Outer', 'Inside'],
    );
  });

  test('a same-origin frame is read as before, its lines under the frame address', async () => {
    const run = await load(`<p>Top</p><iframe src="/inner" width=300 height=100></iframe>`, {
      '/inner': '<!doctype html><body><p>In the frame</p><button>Frame button</button></body>',
    });
    await page.waitForFunction(
      () => document.querySelector('iframe')?.contentDocument?.readyState === 'complete',
    );
    const t = await run<Track>('api.track()');
    const line = t.lines.find((l) => l.text === 'In the frame');
    assert.ok(line, JSON.stringify(t.lines));
    assert.match(line.address, /^B\|/);
  });
});

describe('budgets', () => {
  test('a walk with no time left stops at once and says it was cut', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => `<p>row ${i}</p>`).join('');
    const run = await load(rows);
    const t = await run<Track>('api.track({ budgetMs: 0 })');
    assert.equal(t.truncated, true);
    assert.ok(t.cut && t.cut.elements >= 3000, JSON.stringify(t.cut));
    assert.ok(t.lines.length < 3000);
    const whole = await run<Track>('api.track()');
    assert.equal(whole.lines.length, 3000);
    assert.equal(whole.cut, undefined);
    const o = await run<{ cut?: unknown }>('api.outline(10, 0)');
    assert.ok(o.cut);
  });
});

describe('a second read of a still page', () => {
  const FORM = `<input id=q value=one><button id=b>Go</button><p id=out>nothing yet</p>`;

  test('is skipped when nothing changed, and made after a mutation or a value set by script', async () => {
    const run = await load(FORM);
    await run('api.mark()');
    const still = await run<unknown>('api.track().still');
    assert.ok(still, 'a plain page carries its counters');
    const again = (s: unknown) =>
      run<{ unchanged?: true; lines?: unknown[] }>(
        `api.trackUnlessStill({}, ${JSON.stringify(s)})`,
      );
    assert.deepEqual(await again(still), { unchanged: true });
    await run(`(document.getElementById('q').value = 'two', true)`);
    assert.ok((await again(still)).lines, 'a value set with no event is seen');
    await run('api.mark()');
    const now = await run<unknown>('api.track().still');
    await run(`(document.getElementById('out').textContent = 'done', true)`);
    assert.ok((await again(now)).lines, 'a mutation is seen');
  });

  test('a page with a shadow root is never taken as still', async () => {
    const run = await load(
      `<div id=h></div><script>document.getElementById('h').attachShadow({mode:'open'}).innerHTML='<p>x</p>'</script>`,
    );
    assert.equal(await run('api.track().still ?? null'), null);
  });
});
