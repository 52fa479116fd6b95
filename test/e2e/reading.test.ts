// Browser behaviour: the text track, snapshot, find, outline and extract.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pageValue } from '../helpers/page.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());
// Every test has sessions of its own: give their browsers back so the Grid's slots never run out.
afterEach(() => h.closeBrowsers());

interface Changes {
  added?: string;
  removed_count?: number;
  removed?: string[];
  no_change?: boolean;
  withheld?: string;
  status_hint?: string[];
  note?: string;
  truncated?: boolean;
  rest?: { op: string; args: { after: string } };
}

const changesOf = (body: { data?: Record<string, unknown> }) =>
  (body.data?.changes ?? {}) as Changes;
const trackOf = (body: { data?: Record<string, unknown> }) => String(body.data?.track ?? '');
/** The ref of the first track line containing `text`. */
const refOf = (track: string, text: string) => {
  const line = track.split('\n').find((l) => l.includes(text));
  assert.ok(line, `no line with ${text} in:\n${track}`);
  return line.trim().split(/[#\s]/)[0];
};

describe('snapshot and refs', () => {
  test('a snapshot lists text and controls with addresses; a ref from it acts on the element', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 's1');
    const snap = await h.op('snapshot', {}, 's1');
    const track = trackOf(snap.body);
    assert.match(track, /#inp-email/);
    assert.match(track, /#btn\s+Sign in/);
    const email = refOf(track, '#inp-email');
    const filled = await h.op('fill', { target: { ref: email }, value: 'ada@example.com' }, 's1');
    assert.equal(filled.body.ok, true, JSON.stringify(filled.body.error));
    assert.equal(filled.body.target?.element.ref, email);
    assert.equal(filled.body.target?.strategy, 'ref');
  });

  test('a re-render that swaps two same-tag buttons makes the old ref stale instead of clicking the other', async () => {
    h.server.setContent(
      '/swap.html',
      `<div id=box><button onclick="document.body.dataset.hit='save'">Save</button><button onclick="document.body.dataset.hit='delete'">Delete</button></div>
       <button id=swap onclick="const b=document.getElementById('box'); b.append(b.firstElementChild)">Swap</button>`,
    );
    await h.op('goto', { url: `${h.server.PREFIX}/swap.html` }, 's2');
    const save = refOf(trackOf((await h.op('snapshot', {}, 's2')).body), 'Save');
    await h.op('click', { target: { css: '#swap' } }, 's2');
    const r = await h.op('click', { target: { ref: save } }, 's2');
    assert.equal(r.status, 409);
    assert.equal(r.body.error?.kind, 'stale_element');
    assert.match(r.body.error!.message, /snapshot/);
    assert.equal(
      await pageValue(h, 'document.body.dataset.hit ?? null', 's2'),
      null,
      'nothing was clicked',
    );
  });

  test('a ref to an element removed from the page is stale_element, not recoverable', async () => {
    h.server.setContent(
      '/gone.html',
      `<button onclick="document.body.dataset.hit='1'">Archive</button>
       <button id=drop onclick="document.querySelector('button').remove()">Drop</button>`,
    );
    await h.op('goto', { url: `${h.server.PREFIX}/gone.html` }, 's5');
    const archive = refOf(trackOf((await h.op('snapshot', {}, 's5')).body), 'Archive');
    await h.op('click', { target: { css: '#drop' } }, 's5');
    const r = await h.op('click', { target: { ref: archive } }, 's5');
    assert.equal(r.status, 409);
    assert.deepEqual(
      { kind: r.body.error?.kind, recoverable: r.body.error?.recoverable },
      { kind: 'stale_element', recoverable: false },
    );
    assert.match(r.body.error!.message, new RegExp(`Ref ${archive} .*[Tt]ake a (new )?snapshot`));
    // Not retried: a dead ref answers at once, not at the op's timeout.
    assert.ok(r.body.timing!.duration_ms < 5000, JSON.stringify(r.body.timing));
  });

  test('a ref that was never read on this page is refused, not guessed', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 's3');
    const r = await h.op('click', { target: { ref: 'ZZ' } }, 's3');
    assert.equal(r.body.error?.kind, 'stale_element');
    assert.equal(r.body.error?.recoverable, false);
    assert.match(r.body.error!.message, /Take a snapshot/);
  });

  test('content inside iframes and open shadow roots is read and acted on by ref', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/iframe.html` }, 's4');
    const track = trackOf((await h.op('snapshot', {}, 's4')).body);
    const city = refOf(track, '#inp-');
    assert.match(city, /\|/, 'an address inside a frame crosses it with |');
    assert.equal(
      (await h.op('fill', { target: { ref: city }, value: 'Oslo' }, 's4')).body.ok,
      true,
    );
    const send = await h.op('click', { target: { ref: refOf(track, 'Send') } }, 's4');
    assert.equal(send.body.ok, true, JSON.stringify(send.body.error));
    assert.match(changesOf(send.body).added ?? '', /Sent: Oslo/);

    await h.op('goto', { url: `${h.server.PREFIX}/shadow.html` }, 's4');
    const shadow = trackOf((await h.op('snapshot', {}, 's4')).body);
    const r = await h.op('click', { target: { ref: refOf(shadow, 'Shadow button') } }, 's4');
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.match(changesOf(r.body).added ?? '', /Shadow clicked/);
  });

  test('snapshot of a part of the page, and a max_chars budget that says it cut', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/controls.html` }, 's5');
    const part = await h.op('snapshot', { target: { css: 'fieldset' } }, 's5');
    assert.match(trackOf(part.body), /Free/);
    assert.doesNotMatch(trackOf(part.body), /Country/);
    const cut = await h.op('snapshot', { max_chars: 120 }, 's5');
    assert.equal(cut.body.data?.truncated, true);
    assert.ok(trackOf(cut.body).length <= 120);
    const rest = cut.body.data?.rest as { op: string; args: Record<string, unknown> };
    assert.equal(rest.args.max_chars, 120, 'the rest comes in pieces of the same size');
    const next = await h.op(rest.op, rest.args, 's5');
    assert.equal(next.body.ok, true, JSON.stringify(next.body.error));
    assert.ok(trackOf(next.body).length > 0 && trackOf(next.body).length <= 120);
    assert.notEqual(trackOf(next.body), trackOf(cut.body));
  });

  test('a read cut short names its rest, and snapshot after returns what follows, not what was shown', async () => {
    const paragraphs = Array.from(
      { length: 300 },
      (_, i) => `<p>Paragraph ${i} of the long page.</p>`,
    );
    h.server.setContent('/long.html', `<main>${paragraphs.join('')}</main>`);
    const goto = await h.op('goto', { url: `${h.server.PREFIX}/long.html` }, 's6');
    const changes = changesOf(goto.body);
    assert.equal(changes.truncated, true);
    assert.equal(changes.rest?.op, 'snapshot');
    assert.match(changes.added ?? '', /Paragraph 0 of/);
    const lastShown = Number(/Paragraph (\d+) of[^\n]*$/.exec(changes.added ?? '')?.[1]);
    const rest = await h.op('snapshot', changes.rest!.args, 's6');
    assert.equal(rest.body.ok, true, JSON.stringify(rest.body.error));
    const track = trackOf(rest.body);
    assert.doesNotMatch(
      track,
      new RegExp(`Paragraph ${lastShown} of`),
      'the last line shown is not repeated',
    );
    assert.match(track, new RegExp(`Paragraph ${lastShown + 1} of`));
    assert.match(track, /Paragraph 299 of/);
    const bad = await h.op('snapshot', { after: 'not an address!' }, 's6');
    assert.equal(bad.body.error?.kind, 'invalid_argument');
  });
});

describe('changes after every action', () => {
  test('a hover that reveals a menu lists the items as added', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/hover-menu.html` }, 'c1');
    const r = await h.op('hover', { target: { text: 'HelpDesk' } }, 'c1');
    assert.match(changesOf(r.body).added ?? '', /#lnk\s+Tickets/);
  });

  test('an action that changes nothing says no_change', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 'c2');
    const r = await h.op('hover', { target: { role: 'heading' } }, 'c2');
    assert.equal(changesOf(r.body).no_change, true);
  });

  test('removed lines are counted, and listed with include_removed; status words are flagged', async () => {
    h.server.setContent(
      '/status.html',
      `<p id=s>Order placed</p><button onclick="document.getElementById('s').textContent='Order Cancelled'">Cancel order</button>`,
    );
    await h.op('goto', { url: `${h.server.PREFIX}/status.html` }, 'c3');
    const r = await h.op(
      'click',
      { target: { text: 'Cancel order' }, include_removed: true },
      'c3',
    );
    const changes = changesOf(r.body);
    assert.equal(changes.removed_count, 1);
    assert.deepEqual(changes.removed, ['Order placed']);
    assert.deepEqual(changes.status_hint, ['Cancelled']);
  });

  test('A → B → A → C: text already shown is withheld, and the summary on C names the page it was read on', async () => {
    const list = Array.from({ length: 30 }, (_, i) => `<li>Catalogue item number ${i}</li>`).join(
      '',
    );
    h.server.setContent('/a.html', `<h1>Page A</h1><ul>${list}</ul><a href="/b.html">to B</a>`);
    h.server.setContent('/b.html', `<h1>Page B</h1><a href="/a.html">to A</a>`);
    h.server.setContent('/c.html', `<h1>Page C</h1><ul>${list}</ul><p>Only on C</p>`);
    const a = await h.op('goto', { url: `${h.server.PREFIX}/a.html` }, 'c4');
    assert.match(changesOf(a.body).added ?? '', /Catalogue item number 29/);
    await h.op('goto', { url: `${h.server.PREFIX}/b.html` }, 'c4');
    const again = await h.op('goto', { url: `${h.server.PREFIX}/a.html` }, 'c4');
    assert.doesNotMatch(changesOf(again.body).added ?? '', /Catalogue item/);
    assert.match(changesOf(again.body).note ?? '', /controls/);
    assert.match(
      changesOf(again.body).added ?? '',
      /#lnk\s+to B/,
      'a page whose text was all seen returns its controls',
    );
    const c = await h.op('goto', { url: `${h.server.PREFIX}/c.html` }, 'c4');
    const changes = changesOf(c.body);
    assert.match(changes.added ?? '', /Only on C/);
    assert.doesNotMatch(changes.added ?? '', /Catalogue item/);
    assert.match(changes.withheld ?? '', new RegExp(`30 read on ${h.server.PREFIX}/a\\.html`));
    const reload = await h.op('reload', {}, 'c4');
    assert.match(
      changesOf(reload.body).added ?? '',
      /Catalogue item number 0/,
      'a reload withholds nothing',
    );
  });

  test('the diff op reports a late async change; diff: false leaves changes out', async () => {
    h.server.setContent(
      '/late.html',
      `<p>Start</p><button onclick="setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p>Arrived late</p>'), 1500)">Load more</button>`,
    );
    await h.op('goto', { url: `${h.server.PREFIX}/late.html` }, 'c5');
    const r = await h.op('click', { target: { text: 'Load more' }, diff: false }, 'c5');
    assert.equal(r.body.data?.changes, undefined);
    await h.op('diff', { reset: true }, 'c5');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const d = await h.op('diff', {}, 'c5');
    assert.match(changesOf(d.body).added ?? '', /Arrived late/);
  });
});

interface OutlineItem {
  ref?: string;
  role?: string;
  name?: string;
  region: string;
  target?: Record<string, string>;
  state?: string;
  revealed_by?: { target: Record<string, string> | null; gesture: string };
}

describe('find, extract and outline', () => {
  test("outline lists the usable elements, main content first, and each one's target matches exactly that element", async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/dashboard.html` }, 'o1');
    h.server.setContent(
      '/regions.html',
      `<header><a href="/home">Home</a></header><nav><a href="/a">Docs</a><button aria-expanded="false">Menu</button></nav>
       <main><h1>Orders</h1><label>Search <input name=q></label><button>Go</button><a>bare link</a>
       <button>Edit</button><button>Edit</button></main><footer><a href="/legal">Legal</a></footer>`,
    );
    await h.op('goto', { url: `${h.server.PREFIX}/regions.html` }, 'o1');
    const r = await h.op('outline', {}, 'o1');
    const items = r.body.data?.elements as OutlineItem[];
    assert.deepEqual(
      items.slice(0, 3).map((i) => i.region),
      ['main', 'main', 'main'],
    );
    assert.equal(items.at(-1)?.name, 'Legal');
    assert.ok(
      items.some((i) => i.name === 'Menu'),
      '[aria-expanded] counts as interactive',
    );
    assert.ok(
      items.some((i) => i.name === 'bare link'),
      'a bare <a> counts as interactive',
    );
    for (const item of items.filter((i) => i.target)) {
      const count = await h.op('assert', { count: item.target, equals: 1, timeout: 0 }, 'o1');
      assert.equal(
        count.body.ok,
        true,
        `${JSON.stringify(item.target)} must match exactly one element`,
      );
    }
    const edits = items.filter((i) => i.name === 'Edit');
    assert.equal(edits.length, 2);
    const viaRef = await h.op('click', { target: { ref: edits[1].ref } }, 'o1');
    assert.equal(viaRef.body.ok, true, 'a ref from outline acts');
  });

  test('outline says why a hidden item cannot be used and what reveals it', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/hover-menu.html` }, 'o2');
    const items = (await h.op('outline', {}, 'o2')).body.data?.elements as OutlineItem[];
    const tickets = items.find((i) => i.name === 'Tickets');
    assert.match(tickets?.state ?? '', /^hidden: .*ul\.menu-content.*display:none/);
    assert.equal(tickets?.revealed_by?.gesture, 'hover');
  });

  test('find lists every match with its shell, text, value, ref and visibility', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/ambiguous.html` }, 'o3');
    const r = await h.op('find', { target: { role: 'button', name: 'Edit' } }, 'o3');
    const elements = r.body.data?.elements as { shell: string; visible: boolean; ref: string }[];
    assert.equal(r.body.data?.total, 3);
    assert.deepEqual(
      elements.map((e) => e.visible),
      [true, true, false],
    );
    assert.match(elements[0].shell, /^<button/);
    await h.op('goto', { url: `${h.server.PREFIX}/controls.html` }, 'o3');
    await h.op('fill', { target: { label: 'Name' }, value: 'Ada' }, 'o3');
    const input = await h.op('find', { target: { css: '#name' } }, 'o3');
    assert.equal((input.body.data?.elements as { value: string }[])[0].value, 'Ada');
  });

  test('extract reads text, a value, an attribute and a table as rows', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/links.html` }, 'o4');
    const href = await h.op(
      'extract',
      { target: { role: 'link', name: 'Dashboard' }, what: 'attribute', attribute: 'href' },
      'o4',
    );
    assert.equal(href.body.data?.result, '/dashboard.html');
    h.server.setContent(
      '/table.html',
      '<table><tr><th>Order</th><th>Status</th></tr><tr><td>1</td><td>Shipped</td></tr></table>',
    );
    await h.op('goto', { url: `${h.server.PREFIX}/table.html` }, 'o4');
    const table = await h.op('extract', { target: { css: 'table' }, what: 'table' }, 'o4');
    assert.deepEqual(table.body.data?.rows, [
      ['Order', 'Status'],
      ['1', 'Shipped'],
    ]);
    const missing = await h.op('extract', { target: { css: 'table' }, what: 'attribute' }, 'o4');
    assert.equal(missing.body.error?.kind, 'invalid_argument');
  });
});

describe('element_diff', () => {
  test('element_diff reports an attribute that changed when no text did', async () => {
    h.server.setContent(
      '/toggle.html',
      `<button id=t onclick="document.getElementById('x').toggleAttribute('disabled')">Toggle</button><button id=x>Target</button>`,
    );
    await h.op('goto', { url: `${h.server.PREFIX}/toggle.html` }, 'e1');
    const plain = await h.op('click', { target: { css: '#t' } }, 'e1');
    assert.equal(changesOf(plain.body).no_change, true, 'no text changed');
    const r = await h.op('click', { target: { css: '#t' }, element_diff: true }, 'e1');
    const diff = (r.body.data?.changes as { element_diff?: string }).element_diff ?? '';
    assert.match(diff, /^\+ \S+ <button id="x">$/m);
    assert.match(diff, /^- \S+ <button id="x" disabled>$/m);
  });
});
