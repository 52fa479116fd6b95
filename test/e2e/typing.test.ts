// Browser behaviour: typing into every kind of control.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { BACKEND } from '../helpers/backend.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pageValue } from '../helpers/page.js';

let h: Harness;
before(async () => {
  // Approval on, as over MCP: typing and Enter in fields must not trip it.
  h = await startHarness({ approval: true });
});
after(() => h.close());
// Each test's browsers close after it: a local Firefox is then handed to the next test's session.
afterEach(() => h.closeBrowsers());

const open = (page: string) => h.op('goto', { url: `${h.server.PREFIX}/${page}` });

const FRUITS = `['Apple', 'Apricot', 'Banana', 'Blueberry', 'Cherry']`;

describe('fill types as a person does', () => {
  test('a list that filters on keyup opens and shows the filtered options after fill', async () => {
    h.server.setContent(
      '/keyup-filter.html',
      `<label>Fruit <input id=q autocomplete=off></label><ul id=list hidden></ul>
       <script>
         const fruits = ${FRUITS};
         const q = document.querySelector('#q'), list = document.querySelector('#list');
         window.keys = [];
         for (const type of ['keydown', 'keypress', 'keyup']) q.addEventListener(type, (e) => keys.push(type + ':' + e.key));
         q.addEventListener('keyup', () => {
           const hits = fruits.filter((f) => f.toLowerCase().startsWith(q.value.toLowerCase()));
           list.innerHTML = hits.map((f) => '<li>' + f + '</li>').join('');
           list.hidden = !q.value;
         });
       </script>`,
    );
    await open('keyup-filter.html');
    const r = await h.op('fill', { target: { label: 'Fruit' }, value: 'Ap' });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(await pageValue(h, "document.querySelector('#list').hidden"), false);
    assert.equal(await pageValue(h, "document.querySelector('#list').innerText"), 'Apple\nApricot');
    const keys = (await pageValue(h, 'window.keys')) as string[];
    assert.deepEqual(
      keys.filter((k) => k.endsWith(':p')),
      ['keydown:p', 'keypress:p', 'keyup:p'],
    );
  });
});

/** An editable combobox (APG list autocomplete) that filters on keyup; `data-picked` is the choice. */
const EDITABLE = `<label for=c>Fruit</label>
  <input id=c role=combobox aria-controls=lb aria-expanded=false aria-autocomplete=list autocomplete=off>
  <ul id=lb role=listbox hidden></ul>
  <script>
    const fruits = ${FRUITS};
    const c = document.querySelector('#c'), lb = document.querySelector('#lb');
    c.addEventListener('keyup', () => {
      const hits = fruits.filter((f) => f.toLowerCase().startsWith(c.value.toLowerCase()));
      lb.innerHTML = hits.map((f) => '<li role=option>' + f + '</li>').join('');
      lb.hidden = !c.value || !hits.length;
      c.setAttribute('aria-expanded', String(!lb.hidden));
    });
    lb.addEventListener('click', (e) => {
      const o = e.target.closest('[role=option]');
      c.value = o.textContent; lb.hidden = true; document.body.dataset.picked = o.textContent;
    });
  </script>`;

/** A select-only combobox (APG): a click opens its listbox, a click on an option chooses it. */
const SELECT_ONLY = `<span id=lbl>Colour</span>
  <div id=c role=combobox tabindex=0 aria-labelledby=lbl aria-controls=lb aria-expanded=false>Choose…</div>
  <div id=lb role=listbox hidden>
    <div role=option>Red</div><div role=option>Green</div><div role=option>Blue</div>
  </div>
  <script>
    const c = document.querySelector('#c'), lb = document.querySelector('#lb');
    c.addEventListener('click', () => { lb.hidden = false; c.setAttribute('aria-expanded', 'true'); });
    lb.addEventListener('click', (e) => {
      const o = e.target.closest('[role=option]');
      c.textContent = o.textContent; lb.hidden = true; document.body.dataset.picked = o.textContent;
    });
  </script>`;

describe('fill on a custom combobox', () => {
  test('types the value and clicks the option of that name, case aside', async () => {
    h.server.setContent('/combo.html', EDITABLE);
    await open('combo.html');
    const r = await h.op('fill', { target: { label: 'Fruit' }, value: 'apricot' });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    const data = r.body.data as { value: string; option: string };
    assert.deepEqual([data.value, data.option], ['Apricot', 'Apricot']);
    assert.equal(await pageValue(h, 'document.body.dataset.picked'), 'Apricot');
  });

  test('an editable combobox with no option of that name keeps the text and says which it showed', async () => {
    h.server.setContent('/combo.html', EDITABLE);
    await open('combo.html');
    const r = await h.op('fill', { target: { label: 'Fruit' }, value: 'Ap' });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal((r.body.data as { value: string }).value, 'Ap');
    const note = r.body.notes?.find((n) => n.startsWith('no_option'));
    assert.ok(note, JSON.stringify(r.body.notes));
    assert.match(note, /"Apple", "Apricot"/);
    assert.equal(await pageValue(h, 'document.body.dataset.picked ?? null'), null);
  });

  test('a select-only combobox opens, picks the option, and refuses one it lacks listing its options', async () => {
    h.server.setContent('/select-only.html', SELECT_ONLY);
    await open('select-only.html');
    const r = await h.op('fill', { target: { role: 'combobox', name: 'Colour' }, value: 'Green' });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(await pageValue(h, 'document.body.dataset.picked'), 'Green');

    const missing = await h.op('fill', {
      target: { role: 'combobox', name: 'Colour' },
      value: 'Purple',
    });
    assert.equal(missing.body.error?.kind, 'not_found');
    assert.match(missing.body.error!.message, /"Red", "Green", "Blue"/);
    assert.equal(await pageValue(h, 'document.body.dataset.picked'), 'Green');
  });
});

describe('press', () => {
  test('a chord with a typo presses nothing and holds nothing: the next b is a plain b', async () => {
    h.server.setContent(
      '/keys.html',
      `<input id=k aria-label=Keys>
       <script>window.seen = []; document.addEventListener('keydown', (e) =>
         seen.push((e.ctrlKey ? 'Control+' : '') + e.key));</script>`,
    );
    await open('keys.html');
    const bad = await h.op('press', { key: 'Control+Entr', target: { label: 'Keys' } });
    assert.equal(bad.body.error?.kind, 'invalid_argument');
    assert.match(bad.body.error!.message, /did you mean "Enter"/);
    const b = await h.op('press', { key: 'b', target: { label: 'Keys' } });
    assert.equal(b.body.ok, true, JSON.stringify(b.body.error));
    assert.deepEqual(await pageValue(h, 'window.seen'), ['b']);
    assert.equal(await pageValue(h, "document.querySelector('#k').value"), 'b');
  });
});

describe('approval judges the control an action activates', () => {
  test('Enter in a todo field holding "Buy milk" adds it; a "Buy now" click still needs approval', async () => {
    h.server.setContent(
      '/todos.html',
      `<input id=new placeholder="What needs to be done?">
       <form id=f><input id=inform aria-label="Todo in a form"><button>Add</button></form>
       <ul id=todos></ul><button id=buy onclick="document.body.dataset.bought = 1">Buy now</button>
       <script>
         const add = (text) => { const li = document.createElement('li'); li.textContent = text; todos.append(li); };
         document.querySelector('#new').addEventListener('keydown', (e) => {
           if (e.key === 'Enter') { add(e.target.value); e.target.value = ''; }
         });
         document.querySelector('#f').addEventListener('submit', (e) => {
           e.preventDefault(); add(inform.value); inform.value = '';
         });
       </script>`,
    );
    await open('todos.html');
    await h.op('fill', { target: { placeholder: 'What needs to be done?' }, value: 'Buy milk' });
    const enter = await h.op('press', { key: 'Enter' });
    assert.equal(enter.body.ok, true, JSON.stringify(enter.body.error));
    await h.op('fill', { target: { label: 'Todo in a form' }, value: 'Pay rent' });
    const submit = await h.op('press', { key: 'Enter', target: { label: 'Todo in a form' } });
    assert.equal(submit.body.ok, true, JSON.stringify(submit.body.error));
    assert.equal(await pageValue(h, 'todos.innerText'), 'Buy milk\nPay rent');

    const buy = await h.op('click', { target: { role: 'button', name: 'Buy now' } });
    assert.equal(buy.body.error?.kind, 'approval_required');
    assert.equal(await pageValue(h, 'document.body.dataset.bought ?? null'), null);
  });

  test("Enter in a form field is judged on the form's submit button", async () => {
    h.server.setContent(
      '/checkout.html',
      `<form onsubmit="event.preventDefault(); document.body.dataset.ordered = 1">
         <label>Card <input id=card></label><button>Place order</button></form>`,
    );
    await open('checkout.html');
    await h.op('fill', { target: { label: 'Card' }, value: '4242' });
    const r = await h.op('press', { key: 'Enter', target: { label: 'Card' } });
    assert.equal(r.body.error?.kind, 'approval_required');
    assert.match(r.body.error!.message, /"place order"/);
    assert.equal(await pageValue(h, 'document.body.dataset.ordered ?? null'), null);
  });
});

describe('a refused open costs nothing', () => {
  // What each backend cannot do: the Grid holds no local profile, the local Chromium is one version.
  const refusals: [string, Record<string, unknown>, string][] = [
    BACKEND === 'grid'
      ? ['a profile on the Grid', { profile: 'kept' }, 'unsupported']
      : ['another Chromium version', { version: '150' }, 'unsupported'],
    ['a malformed locale', { locale: 'de_DE' }, 'invalid_argument'],
  ];
  for (const [what, args, kind] of refusals) {
    test(`open with ${what} is refused, the live browser and its page stay, and the next op works`, async () => {
      h.server.setContent('/live.html', `<h1>Live</h1><input aria-label=Note>`);
      await open('live.html');
      await h.op('fill', { target: { label: 'Note' }, value: 'typed before' });
      await pageValue(h, 'window.marker = 42');
      const refused = await h.op('open', args);
      assert.equal(refused.body.error?.kind, kind, JSON.stringify(refused.body));
      assert.equal(await pageValue(h, 'window.marker'), 42);
      const status = await h.op('status');
      const settings = (status.body.data as { settings: Record<string, unknown> }).settings;
      for (const key of Object.keys(args)) assert.equal(settings[key], undefined, key);
      const next = await h.op('fill', { target: { label: 'Note' }, value: 'typed after' });
      assert.equal(next.body.ok, true, JSON.stringify(next.body.error));
      assert.ok(!next.body.notes?.some((n) => n.startsWith('browser_opened')));
    });
  }
});
