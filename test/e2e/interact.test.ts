// Browser behaviour: click, fill, press, hover and scroll on real controls.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pageValue } from '../helpers/page.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const open = (page: string) => h.op('goto', { url: `${h.server.PREFIX}/${page}` });

describe('click', () => {
  test('a click on a covered button is not_actionable, names the cover and reaches neither', async () => {
    await open('overlay.html');
    const r = await h.op('click', { target: { role: 'button', name: 'Pay' }, timeout: 600 });
    assert.equal(r.status, 409);
    assert.equal(r.body.error?.kind, 'not_actionable');
    assert.equal(r.body.error?.recoverable, true);
    assert.match(r.body.error!.message, /div#ad/);
    assert.equal(await pageValue(h, 'document.body.dataset.clicked ?? null'), null);
    assert.ok(
      r.body.evidence?.some((e) => e.kind === 'screenshot'),
      'a failed interaction attaches a screenshot',
    );
  });

  test("force past an overlay fires the button's handler, not the overlay's", async () => {
    await open('overlay.html');
    const r = await h.op('click', { target: { role: 'button', name: 'Pay' }, force: true });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal((r.body.data as { forced?: boolean }).forced, true);
    assert.equal(await pageValue(h, 'document.body.dataset.clicked'), 'pay');
  });

  test('force never clicks a disabled element', async () => {
    await open('disabled.html');
    const r = await h.op('click', {
      target: { role: 'button', name: 'Submit' },
      force: true,
      timeout: 300,
    });
    assert.equal(r.body.error?.kind, 'not_actionable');
    assert.match(r.body.error!.message, /disabled/);
  });

  test('a disabled button is waited for until it enables, then clicked', async () => {
    h.server.setContent(
      '/enables.html',
      `<button id=b disabled onclick="window.clickedAt = performance.now(); this.textContent='Done'">Go</button>
       <script>setTimeout(() => { document.querySelector('#b').disabled = false; window.enabledAt = performance.now(); }, 800)</script>`,
    );
    await open('enables.html');
    const r = await h.op('click', { target: { css: '#b' }, expect: { text_visible: 'Done' } });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(await pageValue(h, 'window.clickedAt >= window.enabledAt'), true);
  });

  test('a button sliding in is clicked once it stops; one still drifting is refused as moving', async () => {
    h.server.setContent(
      '/moving.html',
      `<style>
         @keyframes slide { from { left: 0 } to { left: 300px } }
         @keyframes orbit {
           from { transform: rotate(0deg) translateX(60px) rotate(0deg) }
           to { transform: rotate(360deg) translateX(60px) rotate(-360deg) }
         }
       </style>
       <button id=slide style="position:relative; animation: slide 700ms linear forwards"
         onclick="window.clickedAt = this.getBoundingClientRect().x">Slide</button>
       <br><br><br><button id=drift style="margin: 60px; animation: orbit 1s linear infinite">Drift</button>`,
    );
    await open('moving.html');
    const r = await h.op('click', { target: { role: 'button', name: 'Slide' } });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    const clickedAt = (await pageValue(h, 'window.clickedAt')) as number;
    assert.ok(clickedAt > 290, `clicked where it came to rest, at x ${clickedAt}`);
    // Always on its way, fast (377 px/s) and in place: an alternating animation would rest for a
    // frame at each turn, and a slow drift moves less than a pixel between close frames. The
    // timeout leaves a starved page time to answer the probes (800 ms ran out at load 25).
    const moving = await h.op('click', {
      target: { role: 'button', name: 'Drift' },
      timeout: 2500,
    });
    assert.equal(moving.body.error?.kind, 'not_actionable', JSON.stringify(moving.body.error));
    assert.match(moving.body.error!.message, /still moving/);
  });

  test('a button that jumps away as the pointer arrives is clicked where it comes to rest', async () => {
    // Nothing was pressed when it left the pointer: the click looks for it again, as before any input.
    h.server.setContent(
      '/shy.html',
      `<button id=shy
         onmouseenter="if (!this.dataset.moved) { this.dataset.moved = 1; this.style.transform = 'translateX(160px)'; }"
         onclick="window.clicks = (window.clicks ?? 0) + 1; window.clickedAt = this.getBoundingClientRect().x">Shy</button>`,
    );
    await open('shy.html');
    const r = await h.op('click', { target: { role: 'button', name: 'Shy' } });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(await pageValue(h, 'window.clicks'), 1);
    assert.ok(((await pageValue(h, 'window.clickedAt')) as number) > 150, 'clicked at rest');
  });

  test('an element in a hover-only menu is not_actionable, naming the hidden ancestor and the hover trigger', async () => {
    await open('hover-menu.html');
    const r = await h.op('click', { target: { role: 'link', name: 'Tickets' }, timeout: 400 });
    assert.equal(r.body.error?.kind, 'not_actionable');
    assert.match(r.body.error!.message, /ul\.menu-content/);
    assert.match(r.body.error!.message, /hover on "HelpDesk"/);
  });

  test('hover keeps the menu open so the next click reaches the item', async () => {
    await open('hover-menu.html');
    assert.equal((await h.op('hover', { target: { text: 'HelpDesk' } })).body.ok, true);
    const r = await h.op('click', {
      target: { role: 'link', name: 'Tickets' },
      expect: { url_contains: '#tickets' },
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
  });

  test('several matches without nth is ambiguous and lists the candidates; nth and near pick one', async () => {
    await open('ambiguous.html');
    const r = await h.op('click', { target: { role: 'button', name: 'Edit' } });
    assert.equal(r.status, 409);
    assert.equal(r.body.error?.kind, 'ambiguous');
    assert.equal(r.body.error?.recoverable, false);
    const candidates = r.body.error?.details?.candidates as unknown[];
    assert.equal(candidates.length, 2, 'the hidden third Edit button is not a candidate');
    const near = await h.op('click', {
      target: { role: 'button', name: 'Edit', near: 'Bob' },
      expect: { text_visible: 'Editing Bob' },
    });
    assert.equal(near.body.ok, true, JSON.stringify(near.body.error));
    const nth = await h.op('click', {
      target: { role: 'button', name: 'Edit', nth: 0 },
      expect: { text_visible: 'Editing Alice' },
    });
    assert.equal(nth.body.ok, true, JSON.stringify(nth.body.error));
    assert.equal(nth.body.target?.candidates, 2);
  });

  test('a delivered click is never retried, even when its expect fails', async () => {
    h.server.setContent(
      '/counter.html',
      `<button onclick="window.clicks=(window.clicks||0)+1">Count</button>`,
    );
    await open('counter.html');
    const r = await h.op('click', {
      target: { text: 'Count' },
      expect: { text_visible: 'never shown' },
      timeout: 700,
    });
    assert.equal(r.body.error?.kind, 'verification_failed');
    assert.equal(await pageValue(h, 'window.clicks'), 1);
  });

  test('a misspelt argument is refused, naming it and the keys the op takes', async () => {
    await open('login.html');
    const r = await h.op('click', {
      target: { role: 'button', name: 'Sign in' },
      expct: { url_contains: 'x' },
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.error?.kind, 'invalid_argument');
    assert.match(r.body.error!.message, /"expct"/);
    assert.match(r.body.error!.message, /target, button/);
  });

  test('a target with two strategies, or none, is refused with the expected shape', async () => {
    const two = await h.op('click', { target: { css: 'button', text: 'Sign in' } });
    assert.equal(two.body.error?.kind, 'invalid_argument');
    assert.match(two.body.error!.message, /exactly one of/);
    const asString = await h.op('click', { target: '{"css": "#nothing-here"}', timeout: 200 });
    assert.equal(
      asString.body.error?.kind,
      'not_found',
      'a target sent as a JSON string is parsed',
    );
  });

  test('a route that renders after a slow request is waited for; one rendered by a timer is reached by expect', async () => {
    await open('spa.html');
    const r = await h.op('click', { target: { role: 'link', name: 'Reports' } });
    assert.equal(r.body.ok, true);
    assert.ok(r.body.notes?.includes('url_changed'));
    assert.equal(
      await pageValue(h, "document.querySelector('h1')?.textContent"),
      'Reports',
      'the click settled after the fetch',
    );
    const later = await h.op('click', {
      target: { role: 'button', name: 'Render later' },
      expect: { text_visible: 'Late content' },
    });
    assert.equal(later.body.ok, true, JSON.stringify(later.body.error));
  });

  test('clicking a target=_blank link notes the new tab', async () => {
    await open('links.html');
    const r = await h.op('click', { target: { role: 'link', name: 'Open reports' } });
    assert.equal(r.body.ok, true);
    const tabs = await h.op('tab_list');
    assert.equal((tabs.body.data as { tabs: unknown[] }).tabs.length, 2);
    // The popup came to the front; the tab ops act on is brought back, or its timers would crawl.
    assert.equal(await pageValue(h, 'document.visibilityState'), 'visible');
  });
});

describe('fill', () => {
  test('types text and reads it back', async () => {
    await open('controls.html');
    const r = await h.op('fill', { target: { label: 'Name' }, value: 'Ada Lovelace' });
    assert.equal(r.body.ok, true);
    assert.equal((r.body.data as { value: string }).value, 'Ada Lovelace');
    assert.equal(await pageValue(h, "document.querySelector('#name').value"), 'Ada Lovelace');
  });

  test('chooses an option by visible text or value, and refuses one that does not exist, listing the options', async () => {
    await open('controls.html');
    assert.equal(
      (await h.op('fill', { target: { label: 'Country' }, value: 'France' })).body.ok,
      true,
    );
    assert.equal(await pageValue(h, "document.querySelector('#country').value"), 'fr');
    assert.equal((await h.op('fill', { target: { label: 'Country' }, value: 'de' })).body.ok, true);
    const bad = await h.op('fill', { target: { label: 'Country' }, value: 'Atlantis' });
    assert.equal(bad.body.error?.kind, 'invalid_argument');
    assert.match(bad.body.error!.message, /United Kingdom/);
    assert.match(bad.body.error!.message, /Atlantis/);
    const multi = await h.op('fill', { target: { label: 'Languages' }, value: ['English', 'de'] });
    assert.equal(multi.body.ok, true, JSON.stringify(multi.body.error));
    assert.equal(
      await pageValue(
        h,
        "Array.from(document.querySelector('#languages').selectedOptions, o => o.value).join()",
      ),
      'en,de',
    );
  });

  test('a checkbox already in the wanted state is not toggled', async () => {
    await open('controls.html');
    const r = await h.op('fill', { target: { label: 'Newsletter' }, value: true });
    assert.equal(r.body.ok, true);
    assert.equal(await pageValue(h, "document.querySelector('#log').textContent"), '');
    await h.op('fill', { target: { label: 'Terms' }, value: true });
    assert.equal(
      await pageValue(h, "document.querySelector('#log').textContent.trim()"),
      'change:terms=true',
    );
  });

  test('a radio is chosen with true and cannot be set to false', async () => {
    await open('controls.html');
    assert.equal((await h.op('fill', { target: { label: 'Pro' }, value: true })).body.ok, true);
    assert.equal(await pageValue(h, "document.querySelector('#plan-pro').checked"), true);
    const r = await h.op('fill', { target: { label: 'Free' }, value: false });
    assert.equal(r.body.error?.kind, 'invalid_argument');
    assert.match(r.body.error!.message, /radio/);
  });

  test('sets a date, and refuses a date the input does not accept', async () => {
    await open('controls.html');
    assert.equal(
      (await h.op('fill', { target: { label: 'Start date' }, value: '2026-12-24' })).body.ok,
      true,
    );
    assert.equal(await pageValue(h, "document.querySelector('#start').value"), '2026-12-24');
    const bad = await h.op('fill', { target: { label: 'Start date' }, value: '24/12/2026' });
    assert.equal(bad.body.error?.kind, 'invalid_argument');
    assert.match(bad.body.error!.message, /YYYY-MM-DD/);
  });

  test('a password value is never returned', async () => {
    await open('controls.html');
    const r = await h.op('fill', { target: { label: 'Password' }, value: 'hunter2' });
    assert.equal(r.body.ok, true);
    assert.equal((r.body.data as { value: unknown }).value, null);
    assert.ok(!JSON.stringify(r.body).includes('hunter2'));
  });

  test('fill fails when the field does not hold what was typed (focus stolen)', async () => {
    h.server.setContent(
      '/thief.html',
      `<label>Query <input id=q></label><input id=thief aria-label=thief>
       <script>document.querySelector('#q').addEventListener('focus', () => setTimeout(() => document.querySelector('#thief').focus(), 0));
       document.querySelector('#q').addEventListener('input', (e) => { e.target.value = ''; });</script>`,
    );
    await open('thief.html');
    const r = await h.op('fill', { target: { label: 'Query' }, value: 'laptop' });
    assert.equal(r.body.ok, false);
    assert.equal(r.body.error?.kind, 'verification_failed');
    assert.match(r.body.error!.message, /holds ""/);
  });
});

describe('press and scroll', () => {
  test('press types characters, DOM key names and chords', async () => {
    await open('controls.html');
    await h.op('fill', { target: { label: 'Name' }, value: 'abc' });
    assert.equal((await h.op('press', { key: 'Control+a' })).body.ok, true);
    assert.equal((await h.op('press', { key: 'Backspace' })).body.ok, true);
    assert.equal((await h.op('press', { key: 'Z', target: { label: 'Name' } })).body.ok, true);
    assert.equal(await pageValue(h, "document.querySelector('#name').value"), 'Z');
    const bad = await h.op('press', { key: 'Control+Nope' });
    assert.equal(bad.body.error?.kind, 'invalid_argument');
  });

  test('scroll moves the page by an offset and back to the top', async () => {
    h.server.setContent('/long.html', `<div style="height:5000px">tall</div>`);
    await open('long.html');
    await h.op('scroll', { by_y: 900 });
    assert.ok(Number(await pageValue(h, 'scrollY')) >= 800);
    await h.op('scroll', { to: 'top' });
    assert.equal(await pageValue(h, 'scrollY'), 0);
    const bad = await h.op('scroll', {});
    assert.equal(bad.body.error?.kind, 'invalid_argument');
  });
});
