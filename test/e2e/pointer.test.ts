// Browser behaviour: the pointer: glide, hover, drag.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { skipOn } from '../helpers/backend.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pageValue } from '../helpers/page.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());
// Each test's browsers close after it: a local Firefox is then handed to the next test's session.
afterEach(() => h.closeBrowsers());

const open = (page: string, session = 't') =>
  h.op('goto', { url: `${h.server.PREFIX}/${page}` }, session);

interface Move {
  x: number;
  y: number;
}

/** Two buttons far apart, and every pointermove the page hears in `window.moves`. */
const movesPage = `<style>button { position: absolute; width: 80px; height: 30px; }</style>
  <button id=a style="left: 100px; top: 100px">A</button>
  <button id=b style="left: 700px; top: 500px">B</button>
  <input id=q style="position: absolute; left: 400px; top: 50px">
  <script>
    window.moves = [];
    document.addEventListener('pointermove', (e) => window.moves.push({ x: e.clientX, y: e.clientY }));
  </script>`;
const A = { x: 140, y: 115 };
const B = { x: 740, y: 515 };
const moves = async (session = 't') => (await pageValue(h, 'window.moves', session)) as Move[];
const clearMoves = (session = 't') => pageValue(h, 'window.moves = []', session);
const distance = (p: Move, q: Move) => Math.hypot(p.x - q.x, p.y - q.y);

describe('pointer memory and glide', () => {
  test('a hover without glide is one move; with glide it is many small ones, noted', async () => {
    h.server.setContent('/moves.html', movesPage);
    await open('moves.html');
    assert.equal((await h.op('hover', { target: { css: '#a' } })).body.ok, true);
    await clearMoves();
    const jump = await h.op('hover', { target: { css: '#b' } });
    assert.equal(jump.body.ok, true, JSON.stringify(jump.body.error));
    assert.equal((await moves()).length, 1);
    assert.ok(!jump.body.notes?.includes('glided'));
    await clearMoves();
    const glide = await h.op('hover', { target: { css: '#a' }, glide: true });
    assert.equal(glide.body.ok, true, JSON.stringify(glide.body.error));
    const path = await moves();
    assert.ok(path.length >= 5, `a glide sent ${path.length} pointermove(s)`);
    assert.ok(distance(path[path.length - 1], A) < 2, 'the glide ends on its target');
    assert.ok(glide.body.notes?.includes('glided'));
  });

  test('after a click, a glide to another element starts where the click left the pointer', async () => {
    h.server.setContent('/moves.html', movesPage);
    await open('moves.html');
    await h.op('hover', { target: { css: '#b' } });
    assert.equal((await h.op('click', { target: { css: '#a' } })).body.ok, true);
    await clearMoves();
    const r = await h.op('hover', { target: { css: '#b' }, glide: true });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    const path = await moves();
    assert.ok(path.length >= 5, `a glide sent ${path.length} pointermove(s)`);
    assert.ok(distance(path[0], A) < 30, `the glide began at ${JSON.stringify(path[0])}, not A`);
    assert.ok(distance(path[path.length - 1], B) < 2, 'the glide ends on B');
  });

  test('a click with glide travels to the button and clicks it', async () => {
    h.server.setContent(
      '/moves.html',
      movesPage + `<script>b.onclick = () => (window.clicked = 'b')</script>`,
    );
    await open('moves.html');
    await h.op('hover', { target: { css: '#a' } });
    await clearMoves();
    const r = await h.op('click', { target: { css: '#b' }, glide: true });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.ok(r.body.notes?.includes('glided'));
    assert.ok((await moves()).length >= 5);
    assert.equal(await pageValue(h, 'window.clicked'), 'b');
  });

  test('a click whose glide opens something over the target is refused and clicks nothing', async () => {
    h.server.setContent(
      '/trap.html',
      movesPage +
        `<div id=trap style="position: absolute; left: 350px; top: 230px; width: 120px; height: 120px"></div>
        <div id=promo hidden onclick="window.clicked = 'promo'"
          style="position: fixed; left: 650px; top: 450px; width: 200px; height: 150px; background: #eee"></div>
        <script>
          b.onclick = () => (window.clicked = 'b');
          trap.onmouseenter = () => (promo.hidden = false);
        </script>`,
    );
    await open('trap.html');
    await h.op('hover', { target: { css: '#a' } });
    const r = await h.op('click', { target: { css: '#b' }, glide: true });
    assert.equal(r.body.error?.kind, 'not_actionable', JSON.stringify(r.body));
    assert.match(r.body.error!.message, /div#promo/);
    assert.equal(await pageValue(h, 'window.clicked ?? null'), null);
  });

  test('typing with fill leaves the pointer where it was', async () => {
    h.server.setContent('/moves.html', movesPage);
    await open('moves.html');
    await h.op('hover', { target: { css: '#a' } });
    const typed = await h.op('fill', { target: { css: '#q' }, value: 'hello' });
    assert.equal(typed.body.ok, true, JSON.stringify(typed.body.error));
    await clearMoves();
    await h.op('hover', { target: { css: '#b' }, glide: true });
    const path = await moves();
    assert.ok(path.length >= 5 && distance(path[0], A) < 30, JSON.stringify(path[0]));
  });

  test('a glide with no known start jumps once and says so', async () => {
    h.server.setContent('/moves.html', movesPage);
    await open('moves.html', 'fresh');
    const r = await h.op('hover', { target: { css: '#b' }, glide: true }, 'fresh');
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.ok(r.body.notes?.includes('glide_from_unknown: jumped'), JSON.stringify(r.body.notes));
    assert.ok(!r.body.notes?.includes('glided'));
    assert.equal((await moves('fresh')).length, 1);
    await h.op('close', {}, 'fresh');
  });
});

describe('hover', () => {
  test('hovering an open menu trigger again enters it again, and the menu stays open', async () => {
    h.server.setContent(
      '/menu.html',
      `<style>
        .menu { display: inline-block; margin: 40px; padding: 6px 12px; position: relative; }
        .menu ul { display: none; position: absolute; top: 100%; left: 0; margin: 0; }
        .menu:hover ul { display: block; }
      </style>
      <div class=menu id=trigger>Products<ul><li><a href="#shoes">Shoes</a></li></ul></div>
      <script>
        window.enters = 0;
        document.querySelector('#trigger').addEventListener('mouseenter', () => window.enters++);
      </script>`,
    );
    await open('menu.html');
    const menuShown = () =>
      pageValue(h, "getComputedStyle(document.querySelector('.menu ul')).display");
    assert.equal((await h.op('hover', { target: { css: '#trigger' } })).body.ok, true);
    assert.equal(await menuShown(), 'block');
    const again = await h.op('hover', { target: { css: '#trigger' } });
    assert.equal(again.body.ok, true, JSON.stringify(again.body.error));
    assert.equal(await pageValue(h, 'window.enters'), 2);
    assert.equal(await menuShown(), 'block');
  });
});

describe('drag', () => {
  const order = () =>
    pageValue(h, "[...document.querySelectorAll('li')].map((li) => li.textContent).join(',')");

  test(
    'drag reorders an HTML5 draggable list',
    { skip: skipOn('firefox', 'firefox-html5-drag') },
    async () => {
      h.server.setContent(
        '/html5-list.html',
        `<ul style="width: 200px">
        <li draggable=true style="padding: 10px">One</li>
        <li draggable=true style="padding: 10px">Two</li>
        <li draggable=true style="padding: 10px">Three</li>
      </ul>
      <script>
        let dragged;
        for (const li of document.querySelectorAll('li')) {
          li.addEventListener('dragstart', (e) => { dragged = li; e.dataTransfer.setData('text/plain', li.textContent); });
          li.addEventListener('dragover', (e) => e.preventDefault());
          li.addEventListener('drop', (e) => { e.preventDefault(); if (dragged !== li) li.after(dragged); });
        }
      </script>`,
      );
      await open('html5-list.html');
      assert.equal(await order(), 'One,Two,Three');
      const r = await h.op('drag', { target: { text: 'One' }, to: { text: 'Three' } });
      assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
      assert.equal(await order(), 'Two,Three,One');
      const changes = r.body.data?.changes as { added?: string } | undefined;
      assert.match(changes?.added ?? '', /Two\s+\S+ Three\s+\S+ One/, 'the result says what moved');
    },
  );

  test('drag reorders a pointer-event sortable list', async () => {
    h.server.setContent(
      '/sortable.html',
      `<style>li { padding: 10px; user-select: none; touch-action: none; }</style>
      <ul style="width: 200px">
        <li>One</li>
        <li>Two</li>
        <li>Three</li>
      </ul>
      <script>
        // Like the sortable libraries: the move that crosses a few pixels arms the drag, and only
        // later moves reorder under the pointer, so a single jump reorders nothing.
        let held, start, armed = false;
        document.addEventListener('pointerdown', (e) => {
          held = e.target.closest('li');
          start = e.clientY;
          armed = false;
        });
        document.addEventListener('pointermove', (e) => {
          if (!held) return;
          if (!armed) {
            armed = Math.abs(e.clientY - start) >= 5;
            return;
          }
          const over = document.elementFromPoint(e.clientX, e.clientY)?.closest('li');
          if (!over || over === held) return;
          const down = held.compareDocumentPosition(over) & Node.DOCUMENT_POSITION_FOLLOWING;
          if (down) over.after(held); else over.before(held);
        });
        document.addEventListener('pointerup', () => { held = undefined; });
      </script>`,
    );
    await open('sortable.html');
    const r = await h.op('drag', { target: { text: 'Three' }, to: { text: 'One' } });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(await order(), 'Three,One,Two');
    assert.ok(r.body.notes?.includes('glided'), 'drag glides by default');
  });

  test('drag by_x moves a range slider right, and a negative by_x moves it left', async () => {
    h.server.setContent(
      '/slider.html',
      `<input type=range id=volume min=0 max=100 value=50 style="width: 300px; margin: 40px">`,
    );
    await open('slider.html');
    const value = async () => Number(await pageValue(h, "document.querySelector('#volume').value"));
    const right = await h.op('drag', { target: { css: '#volume' }, by_x: 100 });
    assert.equal(right.body.ok, true, JSON.stringify(right.body.error));
    const raised = await value();
    assert.ok(raised > 65, `value ${raised} after dragging right from 50`);
    const left = await h.op('drag', { target: { css: '#volume' }, by_x: -200 });
    assert.equal(left.body.ok, true, JSON.stringify(left.body.error));
    assert.ok((await value()) < 35, `value ${await value()} after dragging left`);
  });

  test('drag with both to and by_x, or neither, is invalid_argument and drags nothing', async () => {
    h.server.setContent(
      '/slider.html',
      `<input type=range id=volume min=0 max=100 value=50 style="width: 300px; margin: 40px">`,
    );
    await open('slider.html');
    const both = await h.op('drag', {
      target: { css: '#volume' },
      to: { css: 'body' },
      by_x: 100,
    });
    assert.equal(both.body.error?.kind, 'invalid_argument');
    assert.match(both.body.error!.message, /exactly one destination: to .* or by_x\/by_y/);
    const neither = await h.op('drag', { target: { css: '#volume' } });
    assert.equal(neither.body.error?.kind, 'invalid_argument');
    assert.equal(await pageValue(h, "document.querySelector('#volume').value"), '50');
  });
});
