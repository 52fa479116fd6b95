// Browser behaviour: actionability: covered, hidden, disabled and moving elements.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pageValue } from '../helpers/page.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
afterEach(() => h.closeBrowsers());
after(() => h.close());

const open = (page: string) => h.op('goto', { url: `${h.server.PREFIX}/${page}` });

/** Every press that reached the page, by the id of what took it. */
const PRESS_LOG = `<script>
  window.presses = [];
  for (const type of ['mousedown', 'mouseup', 'click', 'dblclick', 'contextmenu'])
    document.addEventListener(type, (e) => presses.push(type + ':' + (e.composedPath()[0].id || e.composedPath()[0].tagName)), true);
</script>`;

/** A product card whose "Quick view" layer covers it, button included, once the pointer is in. */
function quickViewCard(opens: string): string {
  return `<style>
      .card { position: relative; width: 260px; height: 180px; margin: 40px; border: 1px solid #999 }
      .card button { margin: 60px 40px }
      #quick { position: absolute; inset: 0; display: none; background: rgba(255, 255, 255, .95) }
      .css-hover:hover #quick { display: block }
    </style>
    <p id=away>Elsewhere</p>
    <div class="card ${opens === 'css' ? 'css-hover' : ''}" id=card>
      <button id=add onclick="window.added = (window.added ?? 0) + 1">Add to basket</button>
      <div id=quick onclick="window.quickPressed = true">Quick view</div>
    </div>
    ${PRESS_LOG}
    <script>
      const show = () => (quick.style.display = 'block');
      ${opens === 'mouseenter' ? `card.addEventListener('mouseenter', show);` : ''}
      ${opens === 'next frame' ? `card.addEventListener('mouseenter', () => requestAnimationFrame(show));` : ''}
    </script>`;
}

describe('the hit test at the moment of the press', () => {
  for (const opens of ['mouseenter', 'css', 'next frame']) {
    test(`a layer the pointer's arrival opens (${opens}) refuses the click, names it, and nothing is pressed`, async () => {
      h.server.setContent('/quick.html', quickViewCard(opens));
      await open('quick.html');
      const r = await h.op('click', { target: { role: 'button', name: 'Add to basket' } });
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.equal(r.body.error?.kind, 'not_actionable');
      assert.match(r.body.error!.message, /div#quick/);
      assert.match(r.body.error!.message, /Quick view/);
      assert.match(r.body.error!.message, /Nothing was clicked/);
      assert.equal(await pageValue(h, 'window.added ?? 0'), 0, "the button's handler did not run");
      assert.equal(
        await pageValue(h, 'window.quickPressed ?? false'),
        false,
        "nor did the layer's",
      );
      assert.deepEqual(await pageValue(h, 'presses'), []);
    });
  }

  test('double click, right click and a drag refuse the same layer, pressing nothing', async () => {
    const gestures: [string, Record<string, unknown>][] = [
      ['click', { count: 2 }],
      ['click', { button: 'right' }],
      ['drag', { by_x: 80 }],
    ];
    for (const [op, extra] of gestures) {
      h.server.setContent('/quick.html', quickViewCard('mouseenter'));
      await open('quick.html');
      // The last gesture left the pointer over the card: come in from outside, as a person would.
      await h.op('hover', { target: { css: '#away' } });
      const r = await h.op(op, { target: { role: 'button', name: 'Add to basket' }, ...extra });
      const what = `${op} ${JSON.stringify(extra)}`;
      assert.equal(r.body.error?.kind, 'not_actionable', `${what}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error!.message, /div#quick/, what);
      assert.deepEqual(await pageValue(h, 'presses'), [], what);
    }
  });

  test("a layer opened by mouseover of the button's own child refuses the click", async () => {
    h.server.setContent(
      '/child.html',
      `<button id=buy style="margin: 80px; padding: 20px" onclick="window.bought = true"><span id=label>Buy now</span></button>
      <div id=promo style="display: none; position: fixed; left: 0; top: 0; width: 400px; height: 300px; background: #fd0">Wait! 10% off</div>
      ${PRESS_LOG}
      <script>label.addEventListener('mouseover', () => (promo.style.display = 'block'));</script>`,
    );
    await open('child.html');
    const r = await h.op('click', { target: { role: 'button', name: 'Buy now' } });
    assert.equal(r.body.error?.kind, 'not_actionable', JSON.stringify(r.body));
    assert.match(r.body.error!.message, /div#promo/);
    assert.equal(await pageValue(h, 'window.bought ?? false'), false);
    assert.deepEqual(await pageValue(h, 'presses'), []);
  });

  test('a layer the press itself opens does not matter: the click is delivered', async () => {
    h.server.setContent(
      '/press.html',
      `<button id=go style="margin: 80px" onmousedown="window.down = true; veil.hidden = false">Go</button>
      <div id=veil hidden style="position: fixed; inset: 0; background: rgba(0, 0, 0, .3)"></div>`,
    );
    await open('press.html');
    const r = await h.op('click', { target: { role: 'button', name: 'Go' } });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(await pageValue(h, 'window.down ?? false'), true);
  });

  test('a layer opened over a button inside a shadow root refuses the click, naming it', async () => {
    h.server.setContent(
      '/shadow.html',
      `<div id=host></div>
      ${PRESS_LOG}
      <script>
        const root = host.attachShadow({ mode: 'open' });
        root.innerHTML = \`
          <div id=card style="position: relative; width: 260px; height: 160px; margin: 40px">
            <button id=add style="margin: 50px">Add to basket</button>
            <div id=quick style="position: absolute; inset: 0; display: none; background: #eee">Quick view</div>
          </div>\`;
        root.querySelector('#add').onclick = () => (window.added = true);
        root.querySelector('#card').onmouseenter = () => (root.querySelector('#quick').style.display = 'block');
      </script>`,
    );
    await open('shadow.html');
    const r = await h.op('click', { target: { role: 'button', name: 'Add to basket' } });
    assert.equal(r.body.error?.kind, 'not_actionable', JSON.stringify(r.body));
    assert.match(r.body.error!.message, /div#quick/);
    assert.equal(await pageValue(h, 'window.added ?? false'), false);
    assert.deepEqual(await pageValue(h, 'presses'), []);
  });

  test('a checkbox that fill ticks is pressed only where it takes the press', async () => {
    h.server.setContent(
      '/tick.html',
      `<div id=row style="position: relative; padding: 40px; width: 300px">
        <input type=checkbox id=terms aria-label="Accept terms">
        <div id=tip style="display: none; position: absolute; inset: 0; background: #ffe">Read the terms first</div>
      </div>
      ${PRESS_LOG}
      <script>row.addEventListener('mouseenter', () => (tip.style.display = 'block'));</script>`,
    );
    await open('tick.html');
    const r = await h.op('fill', { target: { label: 'Accept terms' }, value: true });
    assert.equal(r.body.error?.kind, 'not_actionable', JSON.stringify(r.body));
    assert.match(r.body.error!.message, /div#tip/);
    assert.deepEqual(await pageValue(h, 'presses'), []);
  });
});

describe('scrolling the target into view before the hit test', () => {
  test('a button below the fold of a scrolling list is scrolled to and clicked; hover and fill reach theirs', async () => {
    h.server.setContent(
      '/list.html',
      `<div id=list style="height: 150px; width: 300px; overflow: auto; border: 1px solid">
        <div style="height: 300px">Items</div>
        <button onclick="window.clicked = 'more'">Load more</button>
        <div style="height: 40px"></div>
        <span id=tipped onmouseenter="window.hovered = true">Details</span>
        <div style="height: 200px"></div>
        <label><input type=checkbox onchange="window.ticked = this.checked"> Subscribe</label>
        <div style="height: 200px"></div>
      </div>`,
    );
    await open('list.html');
    const click = await h.op('click', {
      target: { role: 'button', name: 'Load more' },
      timeout: 3000,
    });
    assert.equal(click.body.ok, true, JSON.stringify(click.body.error));
    assert.equal(await pageValue(h, 'window.clicked'), 'more');
    const hover = await h.op('hover', { target: { text: 'Details' }, timeout: 3000 });
    assert.equal(hover.body.ok, true, JSON.stringify(hover.body.error));
    assert.equal(await pageValue(h, 'window.hovered'), true);
    const tick = await h.op('fill', { target: { label: 'Subscribe' }, value: true, timeout: 3000 });
    assert.equal(tick.body.ok, true, JSON.stringify(tick.body.error));
    assert.equal(await pageValue(h, 'window.ticked'), true);
  });

  test('a button in a sideways list inside a scrolling panel is scrolled to through both and clicked', async () => {
    h.server.setContent(
      '/nested.html',
      `<div id=panel style="height: 200px; width: 400px; overflow: auto; border: 1px solid">
        <div style="height: 100px">Panel</div>
        <div id=row style="height: 80px; width: 250px; overflow: auto; white-space: nowrap; border: 1px solid">
          <div style="height: 250px">Row</div>
          <span style="display: inline-block; width: 500px">Wide</span><button onclick="window.clicked = 'deep'">Deep</button>
        </div>
        <div style="height: 400px"></div>
      </div>`,
    );
    await open('nested.html');
    const r = await h.op('click', { target: { role: 'button', name: 'Deep' }, timeout: 3000 });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(await pageValue(h, 'window.clicked'), 'deep');
  });

  test('a button inside a shadow root, below the fold of its scrolling box, is clicked', async () => {
    h.server.setContent(
      '/shadow-list.html',
      `<div id=host></div>
      <script>
        host.attachShadow({ mode: 'open' }).innerHTML = \`
          <div style="height: 120px; width: 300px; overflow: auto">
            <div style="height: 260px">Filler</div>
            <button onclick="window.clicked = 'shadow'">Save draft</button>
          </div>\`;
      </script>`,
    );
    await open('shadow-list.html');
    const r = await h.op('click', {
      target: { role: 'button', name: 'Save draft' },
      timeout: 3000,
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(await pageValue(h, 'window.clicked'), 'shadow');
  });

  test('a button in a frame below the fold of the page is scrolled to and clicked, same origin or not', async () => {
    h.server.setContent(
      '/frame-button.html',
      `<button onclick="parent.postMessage('pressed', '*')">Inside</button>`,
    );
    const cross = h.server.PREFIX.replace('127.0.0.1', 'localhost');
    for (const origin of [h.server.PREFIX, cross]) {
      h.server.setContent(
        '/framed.html',
        `<div style="height: 1500px">Top</div>
        <iframe id=f src="${origin}/frame-button.html" style="height: 120px"></iframe>
        <div style="height: 1500px"></div>
        <script>addEventListener('message', (e) => (window.got = e.data))</script>`,
      );
      await open('framed.html');
      const r = await h.op('click', {
        target: { role: 'button', name: 'Inside', frame: { css: '#f' } },
        timeout: 3000,
      });
      assert.equal(r.body.ok, true, `${origin}: ${JSON.stringify(r.body.error)}`);
      assert.equal(await pageValue(h, 'window.got ?? null'), 'pressed', origin);
    }
  });

  test('a button left under a sticky header is scrolled clear of it; one a fixed footer always hides is refused naming the footer', async () => {
    h.server.setContent(
      '/sticky.html',
      `<style>body { margin: 0 }</style>
      <header id=top style="position: sticky; top: 0; height: 90px; background: #036; color: #fff">Shop</header>
      <div style="height: 1000px"></div>
      <button id=buy style="height: 40px" onclick="window.clicked = 'buy'">Checkout now</button>
      <div style="height: 1500px"></div>
      <button id=last style="height: 40px" onclick="window.clicked = 'last'">Last</button>
      <footer id=bar style="position: fixed; bottom: 0; left: 0; right: 0; height: 120px; background: #eee">Cookies</footer>`,
    );
    await open('sticky.html');
    // Where a person scrolling down would leave it: the button's top 30 px below the viewport's.
    await pageValue(h, 'scrollTo(0, buy.offsetTop - 30), scrollY');
    const r = await h.op('click', {
      target: { role: 'button', name: 'Checkout now' },
      timeout: 3000,
    });
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.equal(await pageValue(h, 'window.clicked'), 'buy');
    const hidden = await h.op('click', { target: { role: 'button', name: 'Last' }, timeout: 1000 });
    assert.equal(hidden.body.error?.kind, 'not_actionable', JSON.stringify(hidden.body));
    assert.match(hidden.body.error!.message, /footer#bar/);
    assert.equal(await pageValue(h, 'window.clicked'), 'buy');
  });
});
