// Browser behaviour: iframes and shadow roots, read and acted in.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
/** The fixture server under its other name: a frame from it is cross-origin to PREFIX's pages. */
let OTHER: string;
before(async () => {
  h = await startHarness();
  OTHER = `http://localhost:${h.server.port}`;
  h.server.setContent('/fr/provider.html', PROVIDER);
});
after(() => h.close());
afterEach(() => h.closeBrowsers());

// A sign-in widget as third-party pages embed it: a label, a field, a button, a table.
const PROVIDER = `<!doctype html><title>Provider</title>
  <h2>Sign in with a provider</h2>
  <label for=em>Work email</label><input id=em name=em>
  <button id=go onclick="document.getElementById('out').textContent = 'Welcome back, ' + (document.getElementById('em').value || 'guest')">Continue with Google</button>
  <p id=out></p>
  <table id=plans><tr><th>Plan</th><th>Price</th></tr><tr><td>Pro</td><td>9</td></tr></table>`;

const host = (frameSrc: string, extra = '') => `<!doctype html><title>Shop</title>
  <h1>Checkout</h1><p>Sign in to continue.</p>${extra}
  <iframe id=auth title="Sign in" src="${frameSrc}" width=520 height=320></iframe>`;

interface Item {
  ref?: string;
  frame?: string;
  name?: string;
}
const elementsOf = (body: { data?: Record<string, unknown> }) =>
  (body.data?.elements ?? []) as Item[];
const changesOf = (body: { data?: Record<string, unknown> }) =>
  (body.data?.changes ?? {}) as { added?: string; no_change?: boolean };
const ok = (r: { body: { ok: boolean; error?: unknown } }) =>
  assert.equal(r.body.ok, true, JSON.stringify(r.body.error));

for (const origin of ['same-origin', 'cross-origin'] as const) {
  describe(`a ${origin} frame is searched, read and acted on like the page`, () => {
    let page: string;
    before(() => {
      const src = origin === 'same-origin' ? '/fr/provider.html' : `${OTHER}/fr/provider.html`;
      page = `/fr/host-${origin}.html`;
      h.server.setContent(page, host(src));
    });
    const open = async (s: string) =>
      ok(await h.op('goto', { url: `${h.server.PREFIX}${page}` }, s));

    test('find {text} lists the element in the frame, its ref carrying the frame', async () => {
      await open('f1');
      const r = await h.op('find', { target: { text: 'Continue with Google' } }, 'f1');
      ok(r);
      const [el] = elementsOf(r.body);
      assert.equal(r.body.data?.total, 1);
      assert.ok(el.frame, JSON.stringify(el));
      assert.ok(el.ref?.startsWith(`${el.frame}|`), JSON.stringify(el));
      // The ref acts there.
      ok(
        await h.op(
          'click',
          { target: { ref: el.ref }, expect: { text_visible: 'Welcome back, guest' } },
          'f1',
        ),
      );
    });

    test('click {text} acts in the frame; expect text_visible sees it; changes show it', async () => {
      await open('f2');
      await h.op('snapshot', {}, 'f2');
      const r = await h.op(
        'click',
        { target: { text: 'Continue with Google' }, expect: { text_visible: 'Welcome back' } },
        'f2',
      );
      ok(r);
      assert.ok(r.body.target?.element.frame, JSON.stringify(r.body.target));
      const changes = changesOf(r.body);
      assert.notEqual(changes.no_change, true);
      assert.match(changes.added ?? '', /Welcome back, guest/);
    });

    test('fill {label} and click {role} in the frame', async () => {
      await open('f3');
      ok(await h.op('fill', { target: { label: 'Work email' }, value: 'ada@example.com' }, 'f3'));
      ok(
        await h.op(
          'click',
          {
            target: { role: 'button', name: 'Continue with Google' },
            expect: { text_visible: 'Welcome back, ada@example.com' },
          },
          'f3',
        ),
      );
    });

    test('outline lists the frame elements and extract reads its table', async () => {
      await open('f4');
      const outline = await h.op('outline', {}, 'f4');
      ok(outline);
      const button = elementsOf(outline.body).find((e) => e.name === 'Continue with Google');
      assert.ok(button?.frame, JSON.stringify(elementsOf(outline.body)));
      const table = await h.op('extract', { target: { css: '#plans' }, what: 'table' }, 'f4');
      ok(table);
      assert.deepEqual(table.body.data?.rows, [
        ['Plan', 'Price'],
        ['Pro', '9'],
      ]);
    });
  });
}

describe('frames in frames, several frames, limits', () => {
  test('a cross-origin frame inside a same-origin frame is reached', async () => {
    h.server.setContent(
      '/fr/seat.html',
      `<button onclick="this.textContent = 'Seat confirmed'">Confirm seat</button>`,
    );
    h.server.setContent(
      '/fr/middle.html',
      `<p>Seat map</p><iframe src="${OTHER}/fr/seat.html" width=300 height=100></iframe>`,
    );
    h.server.setContent(
      '/fr/nested.html',
      `<h1>Booking</h1><iframe src="/fr/middle.html" width=400 height=200></iframe>`,
    );
    await h.op('goto', { url: `${h.server.PREFIX}/fr/nested.html` }, 'n1');
    const r = await h.op(
      'click',
      { target: { text: 'Confirm seat' }, expect: { text_visible: 'Seat confirmed' } },
      'n1',
    );
    ok(r);
    assert.equal(r.body.target?.element.frame?.split('|').length, 2);
    assert.match(changesOf(r.body).added ?? '', /Seat confirmed/);
  });

  test('a target matching in the page and in a frame is ambiguous, listing both frames', async () => {
    h.server.setContent(
      '/fr/twice.html',
      host(`${OTHER}/fr/provider.html`, `<button>Continue with Google</button>`),
    );
    await h.op('goto', { url: `${h.server.PREFIX}/fr/twice.html` }, 'a1');
    const r = await h.op(
      'click',
      { target: { role: 'button', name: 'Continue with Google' } },
      'a1',
    );
    assert.equal(r.body.error?.kind, 'ambiguous', JSON.stringify(r.body));
    const candidates = r.body.error?.details?.candidates as { frame?: string }[];
    assert.equal(candidates.length, 2);
    assert.equal(candidates[0].frame, undefined);
    assert.ok(candidates[1].frame);
    // frame: narrows to the frame's own.
    ok(
      await h.op(
        'click',
        {
          target: {
            role: 'button',
            name: 'Continue with Google',
            frame: { css: 'iframe#auth' },
          },
          expect: { text_visible: 'Welcome back' },
        },
        'a1',
      ),
    );
  });

  test('text a frame stops showing is text_gone', async () => {
    h.server.setContent(
      '/fr/banner.html',
      `<p id=b>Cookies are used</p><button onclick="document.getElementById('b').remove()">Dismiss</button>`,
    );
    h.server.setContent('/fr/gone.html', host(`${OTHER}/fr/banner.html`));
    await h.op('goto', { url: `${h.server.PREFIX}/fr/gone.html` }, 'g1');
    ok(await h.op('assert', { text_visible: 'Cookies are used' }, 'g1'));
    ok(
      await h.op(
        'click',
        { target: { text: 'Dismiss' }, expect: { text_gone: 'Cookies are used' } },
        'g1',
      ),
    );
  });
});

describe('frame limits', () => {
  let limited: Harness;
  before(async () => {
    limited = await startHarness({ maxFrames: 1 });
    limited.server.setContent('/fr/a.html', `<p>First widget</p>`);
    limited.server.setContent('/fr/b.html', `<button>Second widget</button>`);
    limited.server.setContent(
      '/fr/two.html',
      `<h1>Two</h1><iframe src="/fr/a.html" width=300 height=80></iframe><iframe src="/fr/b.html" width=300 height=80></iframe>`,
    );
  });
  after(async () => {
    await limited.closeBrowsers();
    await limited.close();
  });

  test('a frame past MAX_FRAMES is not searched, and the answer says so', async () => {
    await limited.op('goto', { url: `${limited.server.PREFIX}/fr/two.html` }, 'l1');
    const found = await limited.op('find', { target: { text: 'Second widget' } }, 'l1');
    ok(found);
    assert.equal(found.body.data?.total, 0);
    assert.ok(
      found.body.notes?.some((n) =>
        /frames not read: 1 past the frame limit \(MAX_FRAMES\)/.test(n),
      ),
      JSON.stringify(found.body.notes),
    );
    const r = await limited.op('click', { target: { text: 'Second widget' }, timeout: 1000 }, 'l1');
    assert.equal(r.body.error?.kind, 'not_found');
    assert.match(r.body.error?.message ?? '', /MAX_FRAMES/);
    // Named with frame:, it is searched.
    ok(
      await limited.op(
        'find',
        { target: { text: 'Second widget', frame: { css: 'iframe:nth-of-type(2)' } } },
        'l1',
      ),
    );
  });
});

describe('hostile frames', () => {
  test('a frame that keeps navigating away does not stop ops on the rest of the page', async () => {
    h.server.setContent(
      '/fr/restless.html',
      `<p>Loading…</p><script>setTimeout(() => location.reload(), 200)</script>`,
    );
    h.server.setContent(
      '/fr/restless-host.html',
      host('/fr/provider.html', `<iframe src="/fr/restless.html" width=200 height=60></iframe>`),
    );
    await h.op('goto', { url: `${h.server.PREFIX}/fr/restless-host.html` }, 'h1');
    for (let i = 0; i < 3; i++) {
      const r = await h.op(
        'click',
        { target: { text: 'Continue with Google' }, expect: { text_visible: 'Welcome back' } },
        'h1',
      );
      ok(r);
    }
  });

  test('a frame that never loads does not hold the page', async () => {
    h.server.setRoute('/fr/never', () => {
      // never answers
    });
    h.server.setContent(
      '/fr/never-host.html',
      `<h1>Page</h1><button onclick="this.textContent='Done'">Go</button><iframe src="/fr/never" width=300 height=100></iframe>`,
    );
    await h.op('goto', { url: `${h.server.PREFIX}/fr/never-host.html`, timeout: 3000 }, 'h2');
    ok(await h.op('click', { target: { text: 'Go' }, expect: { text_visible: 'Done' } }, 'h2'));
    ok(await h.op('outline', {}, 'h2'));
  });

  test('a page with 100 frames answers, reading as many as the limit allows', async () => {
    const frames = Array.from(
      { length: 100 },
      (_, i) => `<iframe srcdoc="<p>Frame ${i}</p>" width=60 height=30></iframe>`,
    ).join('');
    h.server.setContent(
      '/fr/hundred.html',
      `<h1>Many</h1><button onclick="this.textContent='Pressed'">Press</button>${frames}`,
    );
    await h.op('goto', { url: `${h.server.PREFIX}/fr/hundred.html` }, 'h3');
    ok(
      await h.op('click', { target: { text: 'Press' }, expect: { text_visible: 'Pressed' } }, 'h3'),
    );
    const found = await h.op('find', { target: { text: 'Frame 3' } }, 'h3');
    ok(found);
    assert.equal(found.body.data?.total, 1);
    assert.ok(
      found.body.notes?.some((n) => /past the frame limit/.test(n)),
      JSON.stringify(found.body.notes),
    );
  });
});
