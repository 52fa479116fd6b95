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
