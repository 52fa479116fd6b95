import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pageValue } from '../helpers/page.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

interface Changes {
  added?: string;
  removed_count?: number;
  removed?: string[];
  no_change?: boolean;
  withheld?: string;
  status_hint?: string[];
  note?: string;
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

  test('a ref that was never read on this page is refused, not guessed', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 's3');
    const r = await h.op('click', { target: { ref: 'ZZ' } }, 's3');
    assert.equal(r.body.error?.kind, 'stale_element');
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
      `<p>Start</p><script>setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p>Arrived late</p>'), 700)</script>`,
    );
    const r = await h.op('goto', { url: `${h.server.PREFIX}/late.html`, diff: false }, 'c5');
    assert.equal(r.body.data?.changes, undefined);
    await h.op('diff', { reset: true }, 'c5');
    await new Promise((resolve) => setTimeout(resolve, 900));
    const d = await h.op('diff', {}, 'c5');
    assert.match(changesOf(d.body).added ?? '', /Arrived late/);
  });
});
