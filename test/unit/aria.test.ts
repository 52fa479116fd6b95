import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findBrowser } from '../../src/drivers/find-browser.js';

const FIXTURE = `
  <button id="save">Save</button>
  <button id="close" aria-label="Close"><svg aria-hidden="true" width="8" height="8"></svg></button>
  <a id="docs" href="/docs">Read the <b>docs</b></a>
  <a id="anchor">no href</a>

  <label for="email">Email address</label><input id="email" type="email">
  <label>Full name <input id="fullname" value="Ada Lovelace"></label>
  <label>Country <select id="country"><option>France</option><option>Norway</option></select></label>
  <label for="both">Phone</label><input id="both" aria-label="Mobile phone">
  <span id="billing">Billing</span><span id="address">address</span>
  <input id="street" aria-labelledby="billing address">
  <input id="query" placeholder="Search products">
  <input id="zip" title="Zip code">
  <input id="send" type="submit"><input id="clear" type="reset"><input id="go" type="submit" value="Go">
  <input type="checkbox" id="terms"><label for="terms">I accept the terms</label>
  <input id="find" type="search"><input id="qty" type="number"><input id="vol" type="range">
  <input id="city" list="cities"><datalist id="cities"></datalist>
  <textarea id="notes"></textarea><div id="editor" contenteditable></div>

  <select id="single"><option>One</option></select>
  <select id="multi" multiple><option>One</option></select>
  <select id="tall" size="3"><option>One</option></select>

  <img id="logo" src="data:," alt="Company logo"><img id="spacer" src="data:," alt="">
  <h2 id="settings">Account <small>settings</small></h2>

  <header id="page-header">Site</header>
  <article><header id="article-header">Post</header></article>
  <nav id="nav"></nav><main id="main"></main><aside id="aside"></aside>
  <section id="named-section" aria-label="Pricing"></section><section id="bare-section"></section>
  <form id="named-form" aria-label="Sign in"></form>
  <fieldset id="shipping"><legend>Shipping</legend></fieldset>

  <table><thead><tr><th id="col">Name</th></tr></thead>
    <tbody><tr><th id="rowh">Ada</th><td id="cell">1815</td></tr></tbody></table>
  <table role="grid"><tr><td id="gridcell">x</td></tr></table>

  <div id="fallback-role" role="unknown tab">Tab</div>
  <button id="focusable-none" role="none">Go</button>
  <div id="plain-none" role="none">x</div>

  <button id="trash">Delete<span style="display:none"> forever</span><span aria-hidden="true">🗑</span></button>
  <span id="secret" hidden>Secret name</span><button id="hidden-ref" aria-labelledby="secret">x</button>
  <div id="loop-a" role="button" aria-labelledby="loop-b">One</div>
  <div id="loop-b" role="button" aria-labelledby="loop-a">Two</div>
  <div id="repeat" role="checkbox">Flash the screen <input value="3"> times</div>

  <div aria-hidden="true"><button id="in-aria-hidden">Hidden</button></div>
  <div style="display:none"><button id="in-display-none">Gone</button></div>
  <button id="invisible" style="visibility:hidden">Ghost</button>

  <fancy-button id="fancy">Buy now</fancy-button>
  <script>
    const root = document.getElementById('fancy').attachShadow({ mode: 'open' });
    root.innerHTML = '<button part="b"><slot></slot></button>';
  </script>
`;

interface Probe {
  role: string | null;
  name: string;
  hidden: boolean;
}

let browser: Browser;
let page: Page;
let bundle: string;

/** Role, name and hidden state of the element `selector` finds; `>>>` enters a shadow root. */
async function probe(selector: string): Promise<Probe> {
  // Each evaluate runs in its own scope, so the bundle travels with every probe.
  const script = `${bundle};
  (() => {
    let scope = document, el = null;
    for (const part of ${JSON.stringify(selector)}.split('>>>')) {
      el = scope.querySelector(part.trim());
      if (!el) throw new Error('no element for ' + part);
      scope = el.shadowRoot ?? el;
    }
    return { role: __aria.roleOf(el), name: __aria.accessibleName(el), hidden: __aria.isAriaHidden(el) };
  })()`;
  return page.evaluate(script) as Promise<Probe>;
}

async function expectRole(selector: string, role: string | null, name?: string): Promise<void> {
  const found = await probe(selector);
  assert.equal(found.role, role, `role of ${selector}`);
  if (name !== undefined) assert.equal(found.name, name, `name of ${selector}`);
}

describe('page aria', () => {
  before(async () => {
    bundle = buildSync({
      entryPoints: [path.join(process.cwd(), 'src/page/aria.ts')],
      bundle: true,
      format: 'iife',
      globalName: '__aria',
      write: false,
    }).outputFiles[0].text;
    browser = await chromium.launch({ executablePath: findBrowser(), args: CHROMIUM_ARGS });
    page = await browser.newPage();
    await page.setContent(FIXTURE);
  });

  after(async () => {
    await browser?.close();
  });

  test('a button is named by its text, an icon button by aria-label', async () => {
    await expectRole('#save', 'button', 'Save');
    await expectRole('#close', 'button', 'Close');
  });

  test('a link needs an href and is named by its content', async () => {
    await expectRole('#docs', 'link', 'Read the docs');
    await expectRole('#anchor', null);
  });

  test('a field is named by label[for] or a wrapping label without its own value', async () => {
    await expectRole('#email', 'textbox', 'Email address');
    await expectRole('#fullname', 'textbox', 'Full name');
  });

  test('label texts leave out the control they label, its options and value included', async () => {
    const texts = (id: string) =>
      page.evaluate(
        `${bundle}; __aria.labelTexts(document.getElementById(${JSON.stringify(id)}))`,
      ) as Promise<string[]>;
    assert.deepEqual(await texts('country'), ['Country']);
    assert.deepEqual(await texts('fullname'), ['Full name']);
    // Each text that labels it counts, not only the one that wins the accessible name.
    assert.deepEqual(await texts('both'), ['Mobile phone', 'Phone']);
    assert.deepEqual(await texts('street'), ['Billing address']);
  });

  test('aria-labelledby joins every referenced id in order', async () => {
    await expectRole('#street', 'textbox', 'Billing address');
  });

  test('a field without a label falls back to title, then placeholder', async () => {
    await expectRole('#query', 'textbox', 'Search products');
    await expectRole('#zip', 'textbox', 'Zip code');
  });

  test('submit and reset inputs take a default name unless they carry a value', async () => {
    await expectRole('#send', 'button', 'Submit');
    await expectRole('#clear', 'button', 'Reset');
    await expectRole('#go', 'button', 'Go');
  });

  test('a checkbox is named by its label', async () => {
    await expectRole('#terms', 'checkbox', 'I accept the terms');
  });

  test('input types map to their widget roles', async () => {
    await expectRole('#find', 'searchbox');
    await expectRole('#qty', 'spinbutton');
    await expectRole('#vol', 'slider');
    await expectRole('#city', 'combobox');
    await expectRole('#notes', 'textbox');
    await expectRole('#editor', 'textbox');
  });

  test('a select is a combobox unless it is multiple or tall', async () => {
    await expectRole('#single', 'combobox');
    await expectRole('#multi', 'listbox');
    await expectRole('#tall', 'listbox');
  });

  test('an image is named by alt; an empty alt makes it presentational', async () => {
    await expectRole('#logo', 'img', 'Company logo');
    await expectRole('#spacer', null);
  });

  test('a heading is named by all of its text', async () => {
    await expectRole('#settings', 'heading', 'Account settings');
  });

  test('a header is a banner only outside sectioning content', async () => {
    await expectRole('#page-header', 'banner');
    await expectRole('#article-header', null);
  });

  test('landmarks, and sections and forms only when named', async () => {
    await expectRole('#nav', 'navigation');
    await expectRole('#main', 'main');
    await expectRole('#aside', 'complementary');
    await expectRole('#named-section', 'region', 'Pricing');
    await expectRole('#bare-section', null);
    await expectRole('#named-form', 'form', 'Sign in');
    await expectRole('#shipping', 'group', 'Shipping');
  });

  test('table cells are headers by position and gridcells inside a grid', async () => {
    await expectRole('#col', 'columnheader', 'Name');
    await expectRole('#rowh', 'rowheader', 'Ada');
    await expectRole('#cell', 'cell', '1815');
    await expectRole('#gridcell', 'gridcell', 'x');
  });

  test('an explicit role takes its first known token; none is ignored on focusable elements', async () => {
    await expectRole('#fallback-role', 'tab', 'Tab');
    await expectRole('#focusable-none', 'button', 'Go');
    await expectRole('#plain-none', null);
  });

  test('hidden children are left out of a name from content', async () => {
    await expectRole('#trash', 'button', 'Delete');
  });

  test('a hidden node referenced by aria-labelledby still names', async () => {
    await expectRole('#hidden-ref', 'button', 'Secret name');
  });

  test('aria-labelledby is not chained, so a cycle ends', async () => {
    await expectRole('#loop-a', 'button', 'Two');
    await expectRole('#loop-b', 'button', 'One');
  });

  test('an embedded control contributes its value to the name', async () => {
    await expectRole('#repeat', 'checkbox', 'Flash the screen 3 times');
  });

  test('a button in an open shadow root is named by its slotted text', async () => {
    await expectRole('#fancy >>> button', 'button', 'Buy now');
  });

  test('aria-hidden, display:none and visibility:hidden are hidden; a plain button is not', async () => {
    assert.equal((await probe('#in-aria-hidden')).hidden, true);
    assert.equal((await probe('#in-display-none')).hidden, true);
    assert.equal((await probe('#invisible')).hidden, true);
    assert.equal((await probe('#save')).hidden, false);
    assert.equal((await probe('#fancy >>> button')).hidden, false);
  });

  test('a hidden element is still named from its content', async () => {
    await expectRole('#in-display-none', 'button', 'Gone');
  });
});
