import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { contentDisposition } from '../../src/files/disposition.js';
import { checkFileName } from '../../src/files/names.js';
import { LinkSigner } from '../../src/files/signing.js';

/** Reads filename* back as RFC 8187 says: UTF-8, percent-decoded. */
function extendedName(header: string): string {
  const m = /filename\*=UTF-8''([^;\s]+)/.exec(header);
  assert.ok(m, header);
  return decodeURIComponent(m[1]);
}

describe('file names and links', () => {
  test('an emoji and a quote give a valid Content-Disposition with the exact name in filename*', () => {
    const name = 'report "final" 📄 é.pdf';
    const header = contentDisposition(name, 'attachment');
    assert.match(header, /^attachment; filename="[\x20-\x7e]*"; filename\*=UTF-8''[\x21-\x7e]+$/);
    const fallback = /filename="([^"]*)"/.exec(header)![1];
    assert.equal(fallback, 'report _final_ _ _.pdf');
    assert.equal(extendedName(header), name);
  });

  test('CR and LF cannot reach the header', () => {
    const header = contentDisposition('a\r\nSet-Cookie: x=1.txt', 'inline');
    assert.doesNotMatch(header, /[\r\n]/);
    assert.equal(extendedName(header), 'a\r\nSet-Cookie: x=1.txt');
  });

  test('names are refused, never rewritten, when they could leave their directory', () => {
    for (const bad of ['', '.', '..', '../signing.key', 'a/b', 'a\\b', 'nul\0'])
      assert.throws(() => checkFileName(bad), /File name/);
    assert.equal(checkFileName(' spaced  name .txt'), ' spaced  name .txt');
  });

  test('a signed link holds until its expiry, and a tampered one never', () => {
    const dir = mkdtempSync(join(tmpdir(), 'swiftbrowse-sign-'));
    try {
      const signer = LinkSigner.load(dir);
      const again = LinkSigner.load(dir);
      assert.equal(readFileSync(join(dir, 'signing.key'), 'utf8').length, 64);
      const now = Date.now();
      const exp = Math.floor(now / 1000) + 60;
      const sig = signer.sign('/files/s/a.txt', exp);
      assert.equal(
        again.check('/files/s/a.txt', exp, sig, now),
        'valid',
        'the stored key is reused',
      );
      assert.equal(signer.check('/files/s/a.txt', exp, sig, (exp + 1) * 1000), 'expired');
      assert.equal(signer.check('/files/s/b.txt', exp, sig, now), 'altered', 'another file');
      assert.equal(signer.check('/files/s/a.txt', exp + 1, sig, now), 'altered', 'another expiry');
      const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
      assert.equal(signer.check('/files/s/a.txt', exp, flipped, now), 'altered', 'tampered');
      const late = (exp + 1) * 1000;
      assert.equal(signer.check('/files/s/a.txt', exp, flipped, late), 'altered', 'never expired');
      assert.equal(
        new LinkSigner(Buffer.from('another key, 16+')).check('/files/s/a.txt', exp, sig, now),
        'altered',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
