import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import {
  parseTrackText,
  renderTrack,
  type TextTrack,
  type TrackLine,
} from '../../src/page/track-format.js';
import { CHROMIUM_ARGS, findBrowser } from '../../src/drivers/find-browser.js';

const bundle = buildSync({
  entryPoints: [join(process.cwd(), 'src/page/text-track.ts')],
  bundle: true,
  format: 'iife',
  globalName: '__tt',
  write: false,
}).outputFiles[0].text;

const routes = new Map<string, string>();
let server: Server;
let browser: Browser;
// One page for the file: each test navigates it to a fresh document (a new page costs ~0.5 s).
let page: Page;
let prefix = '';

before(async () => {
  server = createServer((req, res) => {
    const body = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(body === undefined ? 404 : 200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
    });
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

interface Loaded {
  /** Evaluates an expression in the page, where the bundle is `__tt`. */
  run<T>(expression: string): Promise<T>;
  track(expression?: string): Promise<TextTrack>;
}

/** Serves `html` at `/` (and `files` at their paths), opens it in the page and injects the bundle. */
async function load(html: string, files: Record<string, string> = {}): Promise<Loaded> {
  routes.clear();
  routes.set('/', `<!doctype html><html><head><title>t</title></head><body>${html}</body></html>`);
  for (const [path, body] of Object.entries(files)) routes.set(path, body);
  await page.goto(`${prefix}/`);
  await page.addScriptTag({ content: bundle });
  const run = <T>(expression: string) => page.evaluate<T>(expression);
  return { run, track: (expression = 'textTrack()') => run<TextTrack>(`__tt.${expression}`) };
}

function find(track: TextTrack, text: string): TrackLine | undefined {
  return track.lines.find((l) => l.text.includes(text));
}

describe('addresses', () => {
  test('past 52 siblings a level is a number, and a dot separates two numbers', async () => {
    const italics = '<i></i>'.repeat(52);
    const bolds = '<b></b>'.repeat(60);
    const { run, track } = await load(
      `<div id=outer>${italics}<div id=deep>${bolds}<span id=target>deep text</span></div></div>`,
    );
    assert.equal(await run('__tt.addressOf(document.querySelectorAll("#outer > i")[27])'), 'Ab');
    assert.equal(await run('__tt.addressOf(document.querySelectorAll("#outer > i")[51])'), 'Az');
    assert.equal(await run('__tt.addressOf(document.getElementById("deep"))'), 'A52');
    assert.equal(await run('__tt.addressOf(document.getElementById("target"))'), 'A52.60');
    assert.equal(
      await run('__tt.resolveAddress("A52.60") === document.getElementById("target")'),
      true,
    );
    assert.deepEqual(find(await track(), 'deep text'), { address: 'A52.60', text: 'deep text' });
    assert.equal(await run('__tt.resolveAddress("A52.61")'), null);
    assert.equal(await run('__tt.resolveAddress("A5260")'), null);
  });

  test('an address counts elements only, so text, comments and later siblings do not move it', async () => {
    const { run } = await load('<div><p>one</p><p id=two>two</p></div>');
    assert.equal(await run('__tt.addressOf(document.getElementById("two"))'), 'AB');
    await run(`(() => {
      const two = document.getElementById('two');
      two.before(document.createTextNode('loose text'), document.createComment('c'));
      two.after(document.createElement('p'));
    })()`);
    assert.equal(await run('__tt.addressOf(document.getElementById("two"))'), 'AB');
    assert.equal(await run('__tt.addressOf(document.body)'), '^');
    assert.equal(await run('__tt.resolveAddress("^") === document.body'), true);
  });

  test('addresses round-trip through open shadow roots, light children first', async () => {
    const { run, track } = await load(`<div id=host><span id=light>Light</span></div>
      <script>
        document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML =
          '<p>Shadow para</p><slot></slot><button id=inner>Inside</button>';
      </script>`);
    const inner = 'document.getElementById("host").shadowRoot.getElementById("inner")';
    assert.equal(await run(`__tt.addressOf(${inner})`), 'AD');
    assert.equal(await run(`__tt.resolveAddress("AD") === ${inner}`), true);
    assert.equal(await run('__tt.addressOf(document.getElementById("light"))'), 'AA');
    assert.equal(await run('__tt.resolveAddress("AA") === document.getElementById("light")'), true);
    const t = await track();
    assert.deepEqual(
      t.lines.map((l) => [l.address, l.mark, l.text]),
      [
        ['AB', undefined, 'Shadow para'],
        ['AA', undefined, 'Light'],
        ['AD', '#btn', 'Inside'],
      ],
    );
    assert.equal(t.closedShadowRoots, 0);
  });

  test('addresses round-trip into same-origin frames, the frame written before a bar', async () => {
    const { run, track } = await load(
      '<p>Top</p><iframe src="/inner.html" width=300 height=200></iframe>',
      { '/inner.html': '<body><div><a href="/x">Inner link</a></div></body>' },
    );
    const link = 'document.querySelector("iframe").contentDocument.querySelector("a")';
    assert.equal(await run(`__tt.addressOf(${link})`), 'B|AA');
    assert.equal(await run(`__tt.resolveAddress("B|AA") === ${link}`), true);
    assert.equal(
      await run(
        '__tt.resolveAddress("B|^") === document.querySelector("iframe").contentDocument.body',
      ),
      true,
    );
    const t = await track();
    assert.deepEqual(find(t, 'Inner link'), {
      address: 'B|AA',
      mark: '#lnk',
      text: 'Inner link → /x',
    });
    assert.equal(t.frames, 1);
  });

  test('fingerprintOf tells a different element at the same address', async () => {
    const { run } = await load('<div><a href="/a" name=n>First</a></div>');
    const before = await run<string>('__tt.fingerprintOf(__tt.resolveAddress("AA"))');
    assert.equal(before, 'a|First|name=n|href=/a');
    await run('document.querySelector("a").outerHTML = \'<a href="/b">Second</a>\'');
    assert.notEqual(await run<string>('__tt.fingerprintOf(__tt.resolveAddress("AA"))'), before);
  });
});

describe('what the track reads', () => {
  test('hidden subtrees, scripts and styles are left out; a visible child of a hidden parent is not', async () => {
    const { track } = await load(`
      <div style="display:none"><p>gone-none</p><button>gone-button</button></div>
      <div hidden>gone-hidden-attr</div>
      <div style="visibility:hidden">gone-invisible<span style="visibility:visible">shown-override</span></div>
      <details><summary>Toggle</summary><p>gone-closed-details</p></details>
      <div style="display:contents">shown-contents</div>
      <template><p>gone-template</p></template>
      <style>.x { color: red }</style><script>var goneScript = 1;</script>
      <p>shown-plain</p>`);
    const text = (await track()).text;
    for (const gone of [
      'gone-none',
      'gone-button',
      'gone-hidden-attr',
      'gone-invisible',
      'gone-closed-details',
      'gone-template',
      'color',
      'goneScript',
    ]) {
      assert.ok(!text.includes(gone), `${gone} should be left out of:\n${text}`);
    }
    for (const shown of ['shown-override', 'shown-contents', 'shown-plain', 'Toggle']) {
      assert.ok(text.includes(shown), `${shown} should be in:\n${text}`);
    }
  });

  test('a password value is never captured', async () => {
    const { track } = await load(
      '<input type=password name=pw><input type=password id=empty placeholder=Password>',
    );
    await page.fill('input[name=pw]', 'hunter2-secret');
    const t = await track();
    assert.ok(!t.text.includes('hunter2'));
    assert.deepEqual(t.lines, [
      { address: 'A', mark: '#inp-pw', text: '••••' },
      { address: 'B', mark: '#inp-empty', text: '(Password)' },
    ]);
  });

  test('a select shows the chosen option text, and fields their live value', async () => {
    const { track } = await load(`<select name=country>
      <option value=us>United States</option><option value=uk>United Kingdom</option></select>
      <input name=q placeholder="Search…"><textarea id=note></textarea>`);
    assert.deepEqual(find(await track(), 'Search'), {
      address: 'B',
      mark: '#inp-q',
      text: '(Search…)',
    });
    await page.selectOption('select', 'uk');
    await page.fill('input[name=q]', 'laptop');
    await page.fill('textarea', 'two\nlines');
    const t = await track();
    assert.deepEqual(t.lines, [
      { address: 'A', mark: '#sel-country', text: 'United Kingdom' },
      { address: 'B', mark: '#inp-q', text: 'laptop' },
      { address: 'C', mark: '#inp-note', text: 'two lines' },
    ]);
  });

  test('a checkbox shows its state with its label, and the label is not read twice', async () => {
    const { track } = await load(`<label><input type=checkbox name=r> Remember me</label>
      <input type=radio id=a name=plan><label for=a>Monthly</label>
      <input type=checkbox id=styled style="display:none"><label for=styled>Styled box</label>`);
    let t = await track();
    assert.deepEqual(t.lines, [
      { address: 'AA', mark: '#chk', text: '[ ] Remember me' },
      { address: 'B', mark: '#rad', text: '[ ] Monthly' },
      { address: 'E', mark: '#chk', text: '[ ] Styled box' },
    ]);
    await page.check('input[name=r]');
    await page.check('#a');
    await page.click('label[for=styled]');
    t = await track();
    assert.deepEqual(
      t.lines.map((l) => l.text),
      ['[x] Remember me', '[x] Monthly', '[x] Styled box'],
    );
  });

  test('icon-only links and buttons are named by aria-label, alt, title or their href', async () => {
    const { track } = await load(`<a href="/notifications"><svg width=10 height=10></svg></a>
      <button aria-label="Close"><svg width=10 height=10></svg></button>
      <button><img alt="Search" width=10 height=10></button>
      <a href="https://example.com/docs" title="Docs"></a>
      <a href="javascript:void(0)">Menu</a>`);
    assert.deepEqual(
      (await track()).lines.map((l) => `${l.address}${l.mark} ${l.text}`),
      [
        'A#lnk → /notifications',
        'B#btn Close',
        'C#btn Search',
        'D#lnk Docs → https://example.com/docs',
        'E#lnk Menu',
      ],
    );
  });

  test('closed shadow roots are counted, not read', async () => {
    const { track } = await load(`<x-closed></x-closed><x-open></x-open><x-empty></x-empty>
      <script>
        customElements.define('x-closed', class extends HTMLElement {
          constructor() { super(); this.attachShadow({ mode: 'closed' }).innerHTML = '<p>closed inside</p>'; }
        });
        customElements.define('x-open', class extends HTMLElement {
          constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<p>open inside</p>'; }
        });
      </script>`);
    const t = await track();
    assert.equal(t.closedShadowRoots, 1);
    assert.ok(!t.text.includes('closed inside'));
    assert.ok(t.text.includes('open inside'));
  });

  test('tiny frames are skipped, cross-origin frames are reported, frames are read to two deep', async () => {
    const port = new URL(prefix).port;
    const { track } = await load(
      `<iframe src="/a.html" width=300 height=200></iframe>
       <iframe src="/tiny.html" width=1 height=1></iframe>
       <iframe src="http://localhost:${port}/tiny.html" width=100 height=100></iframe>`,
      {
        '/a.html': '<p>depth one</p><iframe src="/b.html" width=200 height=100></iframe>',
        '/b.html': '<p>depth two</p><iframe src="/c.html" width=100 height=50></iframe>',
        '/c.html': '<p>depth three</p>',
        '/tiny.html': '<p>tiny frame</p>',
      },
    );
    const t = await track();
    assert.deepEqual(find(t, 'depth one'), { address: 'A|A', text: 'depth one' });
    assert.deepEqual(find(t, 'depth two'), { address: 'A|B|A', text: 'depth two' });
    assert.ok(!t.text.includes('depth three'));
    assert.ok(!t.text.includes('tiny frame'));
    assert.equal(t.frames, 2);
    assert.deepEqual(t.skippedFrames, [
      { address: 'A|B|B', reason: 'depth' },
      { address: 'C', reason: 'cross-origin' },
    ]);
  });
});

describe('format', () => {
  test('text is grouped under its parent and controls align', async () => {
    const { track } = await load(`<div><p>000000192</p><p>Sep 3, 2022</p></div>
      <button>Save changes</button><a href="/dashboard/issues">Issues</a>
      <input name=q value=laptop><select name=country><option>United Kingdom</option></select>
      <p>Total <b>$42</b></p><div><h1>Title</h1></div>`);
    const t = await track();
    assert.equal(
      t.text,
      [
        'A',
        '  A 000000192',
        '  B Sep 3, 2022',
        'B#btn         Save changes',
        'C#lnk         Issues → /dashboard/issues',
        'D#inp-q       laptop',
        'E#sel-country United Kingdom',
        'F Total $42',
        'GA Title',
      ].join('\n'),
    );
    assert.deepEqual(parseTrackText(t.text), t.lines);
  });

  test('parseTrackText reads back what renderTrack wrote', () => {
    const lines: TrackLine[] = [
      { address: '^', text: 'Loose body text' },
      { address: 'A', text: 'Header' },
      { address: 'AA', text: 'child one' },
      { address: 'AB', text: 'child two' },
      { address: 'A52', text: 'row' },
      { address: 'A52.60', text: 'numbered child' },
      { address: 'A52.61', text: 'next # not a mark' },
      { address: 'A52.61A', mark: '#btn', text: '' },
      { address: 'A52.61B', mark: '#inp-a_very_long_field_name_from_a_framework', text: 'v' },
      { address: 'A52.61C', mark: '#chk', text: '[x] Ok' },
      { address: 'B|^', text: 'frame body' },
      { address: 'B|A', text: 'frame child' },
      { address: 'B|B', text: 'frame sibling  with → arrow' },
      { address: 'Cz', text: 'alone' },
    ];
    const text = renderTrack(lines);
    assert.ok(text.includes('A52 row\n  60 numbered child\n  61 next # not a mark'), text);
    assert.deepEqual(parseTrackText(text), lines);
  });

  test('maxChars cuts the track at whole lines and says so', async () => {
    const paragraphs = Array.from(
      { length: 300 },
      (_, i) => `<section><p>paragraph number ${i}</p><a href="/p/${i}">open ${i}</a></section>`,
    );
    const { track } = await load(paragraphs.join(''));
    const full = await track();
    assert.equal(full.truncated, false);
    const cut = await track('textTrack(undefined, { maxChars: 300 })');
    assert.equal(cut.truncated, true);
    assert.ok(cut.text.length <= 300, `${cut.text.length} chars`);
    assert.ok(cut.lines.length > 0);
    assert.deepEqual(cut.lines, full.lines.slice(0, cut.lines.length));
    assert.deepEqual(parseTrackText(cut.text), cut.lines);
  });

  test('a subtree track keeps the page addresses', async () => {
    const { track } = await load('<main><p>skip</p><ul><li>one</li><li>two</li></ul></main>');
    const t = await track('textTrack(document.querySelector("ul"))');
    assert.equal(t.text, 'AB\n  A one\n  B two');
  });
});

describe('sentences', () => {
  const lines = (t: TextTrack) => t.lines.map((l) => `${l.address}${l.mark ?? ''} ${l.text}`);

  test('inline elements stay in the sentence they sit in', async () => {
    const { track } = await load(`<p>Enter an item that starts with "<b>x</b>".</p>
      <div id=query>Book the <span>one-way</span> flight from: <span>Lincoln</span> to:
        <strong>Denver</strong> on <time>10/15/2016</time>.</div>
      <footer><span class=count><strong>2</strong><span> items</span> left</span><ul><li>All</li></ul></footer>
      <p>Run <code>npm test</code>, then <em>read</em> H<sub>2</sub>O <small>(fine print)</small>.</p>`);
    assert.deepEqual(lines(await track()), [
      'A Enter an item that starts with "x".',
      'B Book the one-way flight from: Lincoln to: Denver on 10/15/2016.',
      'CA 2 items left',
      'CBA All',
      'D Run npm test, then read H2O (fine print).',
    ]);
  });

  test('a link keeps its line and mark right after the sentence it completes', async () => {
    const { track } = await load(`<p>Read the <a href="/docs">docs page</a> for details.</p>
      <nav><a href="/a">Home</a> | <a href="/b">About</a></nav>`);
    assert.deepEqual(lines(await track()), [
      'A Read the docs page for details.',
      'AA#lnk docs page → /docs',
      // Links and punctuation alone make no sentence: the links are not read twice.
      'B |',
      'BA#lnk Home → /a',
      'BB#lnk About → /b',
    ]);
  });

  test('a control ends a sentence, so each label stays beside its field', async () => {
    const { track } = await load(`<form><label for=e>Email</label> <input id=e>
      <label for=p>Password</label> <input id=p type=password><button>Sign in</button></form>
      <div style="display:flex"><span>Left</span><span>Right</span></div>
      <p>A<span style="margin-left:4px">B</span></p>`);
    assert.deepEqual(lines(await track()), [
      'AA Email',
      'AB#inp-e ',
      'AC Password',
      'AD#inp-p ',
      'AE#btn Sign in',
      // Flex items are blocks, and a spaced inline element is a word of its own.
      'BA Left',
      'BB Right',
      'C A B',
    ]);
  });
});

describe('marks follow the ARIA role', () => {
  test('menu items, tabs, switches, comboboxes, sliders and tree items carry their own marks', async () => {
    const { track } =
      await load(`<ul role=menu><li role=none><a role=menuitem href="/about">About</a></li>
        <li role=menuitemcheckbox aria-checked=true>Bold</li><li role=menuitemradio aria-checked=false>Left</li></ul>
      <div role=tablist><button role=tab aria-selected=true>Profile</button><button role=tab>Billing</button></div>
      <button role=switch aria-checked=true>Wi-Fi</button><input type=checkbox role=switch id=bt>
      <div role=combobox id=fruit>Apple</div><input role=combobox name=city value=Oslo>
      <div role=slider aria-valuenow=40 id=vol></div><input type=range name=zoom value=30>
      <ul role=tree><li role=treeitem>Fruits<ul role=group><li role=treeitem>Pear</li></ul></li></ul>`);
    const t = await track();
    assert.deepEqual(
      t.lines.map((l) => `${l.mark ?? ''} ${l.text}`),
      [
        '#menuitem About → /about',
        '#menuitemcheckbox [x] Bold',
        '#menuitemradio [ ] Left',
        '#tab [x] Profile',
        '#tab Billing',
        '#switch [x] Wi-Fi',
        '#switch [ ]',
        '#combo-fruit Apple',
        '#combo-city Oslo',
        '#slider-vol 40',
        '#slider-zoom 30',
        '#treeitem Fruits',
        '#treeitem Pear',
      ],
    );
  });

  test('each option of a listbox gets its own address', async () => {
    const { track } = await load(`<ul role=listbox aria-label=Colours>
      <li role=option aria-selected=true>Red</li><li role=option>Green</li><li role=option>Blue</li></ul>`);
    assert.deepEqual(
      (await track()).lines.map((l) => `${l.address}${l.mark} ${l.text}`),
      ['A#listbox Colours', 'AA#opt [x] Red', 'AB#opt Green', 'AC#opt Blue'],
    );
  });
});
