// Browser behaviour: patterns met on third-party pages (issue 18): ARIA widgets, labels that wrap
// their control, sentences broken by inline elements, and outline narrowed to a part of the page.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pageValue } from '../helpers/page.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());
afterEach(() => h.closeBrowsers());

const trackOf = (body: { data?: Record<string, unknown> }) => String(body.data?.track ?? '');
const addedOf = (body: { data?: Record<string, unknown> }) =>
  String((body.data?.changes as { added?: string } | undefined)?.added ?? '');
/** The track line holding `text`, whitespace collapsed. */
const lineWith = (track: string, text: string) => {
  const line = track.split('\n').find((l) => l.includes(text));
  assert.ok(line, `no line with ${text} in:\n${track}`);
  return line.replace(/\s+/g, ' ').trim();
};
const refOf = (track: string, text: string) => lineWith(track, text).split(/[#\s]/)[0];

async function open(path: string, html: string, session: string): Promise<string> {
  h.server.setContent(path, `<!doctype html><title>${path}</title><body>${html}</body>`);
  const r = await h.op('goto', { url: `${h.server.PREFIX}${path}` }, session);
  assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
  return trackOf((await h.op('snapshot', {}, session)).body);
}

describe('labels', () => {
  test('a select inside its label is found by the label, options left out of the match', async () => {
    await open(
      '/label-wraps-select.html',
      `<form><label>Country <select name=c><option>France</option><option>Norway</option></select></label>
       <label>Nickname <input name=n value="bob"></label></form>`,
      'lab',
    );
    const fill = await h.op('fill', { target: { label: 'Country' }, value: 'Norway' }, 'lab');
    assert.equal(fill.body.ok, true, JSON.stringify(fill.body.error));
    assert.equal(await pageValue(h, 'document.querySelector("select").value', 'lab'), 'Norway');
    const nick = await h.op('fill', { target: { label: 'Nickname' }, value: 'ada' }, 'lab');
    assert.equal(nick.body.ok, true, JSON.stringify(nick.body.error));
    const outline = await h.op('outline', {}, 'lab');
    const names = (outline.body.data?.elements as { name?: string }[]).map((e) => e.name);
    assert.ok(names.includes('Country'), JSON.stringify(names));
  });
});

describe('marks follow the ARIA role', () => {
  const MENU = `<nav><button aria-haspopup=menu aria-expanded=true>Help</button>
    <ul role=menu>
      <li role=none><a role=menuitem href="#about" onclick="document.title='about'">About</a></li>
      <li role=none><a role=menuitem href="#docs">Docs</a></li>
    </ul></nav>`;

  test('a menu item is marked #menuitem and found by role menuitem, never as a button', async () => {
    const track = await open('/aria-menu.html', MENU, 'menu');
    assert.match(lineWith(track, 'About'), /#menuitem About → #about$/);
    const asButton = await h.op(
      'click',
      { target: { role: 'button', name: 'About' }, timeout: 800 },
      'menu',
    );
    assert.equal(asButton.body.error?.kind, 'not_found');
    const click = await h.op('click', { target: { role: 'menuitem', name: 'About' } }, 'menu');
    assert.equal(click.body.ok, true, JSON.stringify(click.body.error));
    assert.equal(await pageValue(h, 'document.title', 'menu'), 'about');
  });

  test('tabs, a switch and a custom combobox say what they are and their state', async () => {
    const track = await open(
      '/aria-widgets.html',
      `<div role=tablist><button role=tab aria-selected=true>Profile</button>
         <button role=tab aria-selected=false>Billing</button></div>
       <button role=switch aria-checked=false id=dark
         onclick="this.setAttribute('aria-checked', this.getAttribute('aria-checked') !== 'true')">Dark mode</button>
       <div role=combobox id=fruit tabindex=0 aria-expanded=false>Apple</div>`,
      'wid',
    );
    assert.equal(lineWith(track, 'Profile'), `${refOf(track, 'Profile')}#tab [x] Profile`);
    assert.match(lineWith(track, 'Billing'), /#tab Billing$/);
    assert.match(lineWith(track, 'Dark mode'), /#switch \[ \] Dark mode$/);
    assert.match(lineWith(track, 'Apple'), /#combo-fruit Apple$/);
    const flip = await h.op('click', { target: { ref: refOf(track, 'Dark mode') } }, 'wid');
    assert.equal(flip.body.ok, true, JSON.stringify(flip.body.error));
    assert.match(addedOf(flip.body), /#switch \[x\] Dark mode/);
  });

  test("a listbox's options each get an address that acts on that option", async () => {
    const track = await open(
      '/aria-listbox.html',
      `<ul role=listbox aria-label=Colours onclick="for (const o of this.children)
           o.setAttribute('aria-selected', o === event.target)">
         <li role=option aria-selected=true>Red</li><li role=option>Green</li><li role=option>Blue</li>
       </ul>`,
      'lst',
    );
    const options = track.split('\n').filter((l) => l.includes('#opt'));
    assert.equal(options.length, 3, track);
    assert.match(lineWith(track, 'Colours'), /#listbox Colours$/);
    const pick = await h.op('click', { target: { ref: refOf(track, 'Green') } }, 'lst');
    assert.equal(pick.body.ok, true, JSON.stringify(pick.body.error));
    assert.match(addedOf(pick.body), /#opt \[x\] Green/);
  });
});

describe('sentences stay whole', () => {
  test('bold, code and spans stay in their sentence; a link keeps its mark and acts', async () => {
    const track = await open(
      '/sentences.html',
      `<p>Enter an item that starts with "<b>x</b>".</p>
       <div id=query>Book the <span>one-way</span> flight from: <span>Lincoln</span> to:
         <span>Denver</span> on <span>10/15/2016</span>.</div>
       <p>Run <code>npm test</code>, then read the <a href="#guide" onclick="document.title='guide'">testing guide</a> first.</p>`,
      'sen',
    );
    lineWith(track, 'Enter an item that starts with "x".');
    lineWith(track, 'Book the one-way flight from: Lincoln to: Denver on 10/15/2016.');
    lineWith(track, 'Run npm test, then read the testing guide first.');
    const link = lineWith(track, '#lnk');
    assert.match(link, /#lnk testing guide → #guide$/);
    const click = await h.op('click', { target: { ref: refOf(track, '#lnk') } }, 'sen');
    assert.equal(click.body.ok, true, JSON.stringify(click.body.error));
    assert.equal(await pageValue(h, 'document.title', 'sen'), 'guide');
  });

  test('a counter split by spans reads as one line, before and after it changes', async () => {
    const track = await open(
      '/counter.html',
      `<section><input placeholder="What needs to be done?">
       <footer><span class=todo-count><strong id=n>2</strong><span> items</span><span> left</span></span>
       <button onclick="document.getElementById('n').textContent = 3">Add</button></footer></section>`,
      'cnt',
    );
    lineWith(track, '2 items left');
    const add = await h.op('click', { target: { role: 'button', name: 'Add' } }, 'cnt');
    assert.equal(add.body.ok, true, JSON.stringify(add.body.error));
    assert.match(addedOf(add.body), /3 items left/);
  });
});

describe('outline narrowed', () => {
  const PAGE = `<nav aria-label=Main><button aria-expanded=false>Products</button><a href="#p">Pricing</a></nav>
    <main><details open><summary>Shipping</summary><p>3 days</p></details>
      <form id=post><input name=title aria-label=Title><button>Save draft</button><button>Publish</button></form>
    </main>`;

  test('outline lists one part of the page by target or css, filtered by text', async () => {
    await open('/outline-scope.html', PAGE, 'out');
    const names = async (args: Record<string, unknown>) => {
      const r = await h.op('outline', args, 'out');
      assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
      return (r.body.data?.elements as { name?: string }[]).map((e) => e.name);
    };
    assert.deepEqual(await names({ target: { role: 'navigation' } }), ['Products', 'Pricing']);
    assert.deepEqual(await names({ css: '#post' }), ['Title', 'Save draft', 'Publish']);
    assert.deepEqual(await names({ text: 'save' }), ['Save draft']);
    assert.deepEqual(await names({ css: 'form', text: '/^P/' }), ['Publish']);
    const bad = await h.op('outline', { css: 'form[' }, 'out');
    assert.equal(bad.body.error?.kind, 'invalid_argument');
  });

  test('outline entries say whether a menu button or a details is expanded', async () => {
    await open('/outline-expanded.html', PAGE, 'exp');
    const r = await h.op('outline', {}, 'exp');
    const items = r.body.data?.elements as { name?: string; expanded?: boolean }[];
    const byName = (name: string) => items.find((i) => i.name === name);
    assert.equal(byName('Products')?.expanded, false);
    assert.equal(byName('Shipping')?.expanded, true);
    assert.equal(byName('Publish')?.expanded, undefined);
  });
});
