import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
  h.server.setContent(
    '/opener.html',
    `<title>Opener</title><button onclick="window.open('popup.html','_blank')">popup</button>`,
  );
  h.server.setContent('/popup.html', '<title>Popup page</title><p>popup text</p>');
});
after(() => h.close());
afterEach(() => h.closeBrowsers());

describe('a popup that keeps its opener', () => {
  test('loads, is read in normal time and closes', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/opener.html` }, 'pop');
    const click = await h.op('click', { target: { role: 'button', name: 'popup' } }, 'pop');
    assert.equal(click.body.ok, true, JSON.stringify(click.body.error));
    const select = await h.op('tab_select', { tab: 't2' }, 'pop');
    assert.equal(select.body.ok, true, JSON.stringify(select.body.error));
    const read = await h.op(
      'evaluate',
      { script: 'document.title + "|" + document.body.innerText' },
      'pop',
    );
    assert.equal(read.body.ok, true, JSON.stringify(read.body.error));
    assert.equal((read.body.data as { result: string }).result, 'Popup page|popup text');
    assert.ok(read.body.timing!.duration_ms < 5000, JSON.stringify(read.body.timing));
    const list = await h.op('tab_list', {}, 'pop');
    const tabs = (list.body.data as { tabs: { id: string; title: string }[] }).tabs;
    assert.equal(tabs.find((t) => t.id === 't2')?.title, 'Popup page', JSON.stringify(tabs));
    const close = await h.op('tab_close', { tab: 't2' }, 'pop');
    assert.equal(close.body.ok, true, JSON.stringify(close.body.error));
    assert.ok(close.body.timing!.duration_ms < 5000, JSON.stringify(close.body.timing));
    const left = await h.op('tab_list', {}, 'pop');
    assert.equal((left.body.data as { tabs: unknown[] }).tabs.length, 1);
  });
});
