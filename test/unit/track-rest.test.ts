import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cutLines, linesAfter } from '../../src/ops/track.js';
import { renderTrack, type TrackLine } from '../../src/page/track-format.js';

const lines: TrackLine[] = [
  { address: 'A', text: 'Header' },
  { address: 'BA', mark: '#lnk', text: 'Home → /' },
  { address: 'CA', text: 'First paragraph of the article' },
  { address: 'CB', text: 'Second paragraph of the article' },
  { address: 'CBA', text: 'A note inside the second' },
  { address: 'Z', text: 'Footer' },
  { address: 'a', text: 'After Z comes a' },
  { address: '52', text: 'After z comes 52' },
];

test('a cut keeps whole lines within the budget and names the rest after the last one shown', () => {
  const whole = cutLines(lines, 10_000);
  assert.equal(whole.rest, undefined);
  assert.equal(whole.text, renderTrack(lines));

  const cut = cutLines(lines, 60);
  assert.ok(cut.text.length <= 60, cut.text);
  assert.equal(cut.text, renderTrack(cut.shown));
  const last = cut.shown[cut.shown.length - 1];
  assert.deepEqual(cut.rest, { op: 'snapshot', args: { after: last.address } });
  const rest = linesAfter(lines, last.address)!;
  assert.deepEqual([...cut.shown, ...rest], lines, 'shown and rest are the page, once each');
});

test('after follows page order: descendants come after, a line gone since still anchors', () => {
  const after = (a: string) => linesAfter(lines, a)?.map((l) => l.address);
  assert.deepEqual(after('CB'), ['CBA', 'Z', 'a', '52']);
  assert.deepEqual(after('CAZ'), ['CB', 'CBA', 'Z', 'a', '52'], 'CAZ is not on the page');
  assert.deepEqual(after('a'), ['52'], 'letters run A–Z, a–z, then numbers');
  assert.equal(linesAfter(lines, 'not an address!'), null);
});
