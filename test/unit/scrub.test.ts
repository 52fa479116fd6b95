import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BoundValues, scrub } from '../../src/core/redact.js';
import { scrubPdf } from '../../src/files/pdf-strings.js';

const VALUE = 'p@ss w0rd&"<x>/é';

function bound(): BoundValues {
  const b = new BoundValues();
  b.add(VALUE, 'admin/password');
  return b;
}

describe('scrub', () => {
  test('a bound value is replaced raw, URL-encoded, form-encoded, HTML-escaped and JSON-escaped', () => {
    const b = bound();
    const forms = [
      VALUE,
      encodeURIComponent(VALUE),
      encodeURIComponent(VALUE).toLowerCase(),
      new URLSearchParams({ v: VALUE }).toString().slice(2),
      VALUE.replace(/&/g, '&amp;')
        .replace(/"/g, '&quot;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;'),
      VALUE.replace(/&/g, '&#38;').replace(/"/g, '&#x22;').replace(/</g, '&#60;'),
      JSON.stringify(VALUE).slice(1, -1),
    ];
    for (const form of forms) {
      const out = scrub(`before ${form} after`, b);
      assert.equal(out, 'before [secret:admin/password] after', form);
    }
  });

  test('objects are scrubbed deeply, keys included; image bytes are left alone', () => {
    const b = bound();
    const out = scrub(
      {
        page: { url: `http://x/?pw=${encodeURIComponent(VALUE)}` },
        list: [VALUE],
        [VALUE]: 1,
        image: { content_type: 'image/png', base64: VALUE },
      },
      b,
    );
    assert.equal(out.page.url, 'http://x/?pw=[secret:admin/password]');
    assert.equal(out.image.base64, VALUE);
    assert.deepEqual(out.list, ['[secret:admin/password]']);
    assert.ok('[secret:admin/password]' in out);
  });

  test('URL credentials are stripped with or without bound values', () => {
    assert.equal(scrub('see https://bob:hunter2@example.com/x'), 'see https://example.com/x');
    assert.equal(scrub("//input[@name='q']"), "//input[@name='q']");
  });

  test('taints says whether a URL carries a bound value', () => {
    const b = bound();
    assert.equal(b.taints(`http://x/welcome?pw=${encodeURIComponent(VALUE)}`), true);
    assert.equal(b.taints('http://x/welcome'), false);
  });

  test('a value that looks like the marker still taints: the question is the value, not the marker', () => {
    const b = new BoundValues();
    b.add('[secret]', 'odd name/with space');
    assert.equal(b.taints('http://x/?a=%5Bsecret%5D'), true);
  });

  test('an encoded value is replaced whole, leaving no fragment of its encoding', () => {
    const b = new BoundValues();
    b.add('hunter2%', 'app/password');
    b.add('tom&jerry&', 'app/other');
    b.add('back\\', 'app/slash');
    assert.equal(
      scrub(`?p=${encodeURIComponent('hunter2%')}&x=1`, b),
      '?p=[secret:app/password]&x=1',
    );
    assert.equal(scrub('<p>tom&amp;jerry&amp;</p>', b), '<p>[secret:app/other]</p>');
    assert.equal(scrub(JSON.stringify({ v: 'back\\' }), b), '{"v":"[secret:app/slash]"}');
  });

  test('the value in base64 (standard, URL-safe, unpadded, URL-encoded) and hex is replaced whole', () => {
    const b = bound();
    const bytes = Buffer.from(VALUE, 'utf8');
    const standard = bytes.toString('base64');
    const forms = [
      standard,
      standard.replace(/=+$/, ''),
      bytes.toString('base64url'),
      encodeURIComponent(standard),
      bytes.toString('hex'),
      bytes.toString('hex').toUpperCase(),
    ];
    for (const form of forms) {
      const out = scrub(`before ${form} after`, b);
      assert.equal(out, 'before [secret:admin/password] after', form);
    }
  });

  test('the value inside a longer base64 text (a Basic header) is not left readable', () => {
    const b = bound();
    for (const user of ['al', 'ali', 'alic']) {
      const header = Buffer.from(`${user}:${VALUE}`, 'utf8').toString('base64');
      const out = scrub(`Authorization: Basic ${header}`, b);
      assert.match(out, /\[secret:admin\/password\]/, user);
      // What stays after the marker is at most the value's last partial group and padding.
      const after = out.split('[secret:admin/password]')[1];
      assert.ok(after.length <= 3, `${user}: ${out}`);
    }
  });

  test('a short value is not matched in base64 or hex, where it would hit ordinary text', () => {
    const b = new BoundValues();
    b.add('ab', 'app/pin');
    assert.equal(scrub('YWI 6162 ab', b), 'YWI 6162 [secret:app/pin]');
  });

  test('a PDF title and link carrying the value are rewritten in place, at the same length', () => {
    const b = bound();
    const utf16 = Buffer.from(`Hi ${VALUE}`, 'utf16le').swap16().toString('hex').toUpperCase();
    const pdf = Buffer.from(
      `%PDF-1.4\n1 0 obj\n<</Title <FEFF${utf16}>\n/Producer (Skia)>>\nendobj\n` +
        `2 0 obj\n<</URI (http://bob:pw@x/?p=${encodeURIComponent(VALUE)}&q=1)>>\nendobj\n`,
      'latin1',
    );
    const out = scrubPdf(pdf, b);
    assert.equal(out.length, pdf.length, 'cross-reference offsets still hold');
    const text = out.toString('latin1');
    assert.ok(!text.includes(utf16) && !text.includes(encodeURIComponent(VALUE)));
    assert.match(text, /\/Title <FEFF(002A)+>/);
    assert.match(text, /\/URI \(http:\/\/x\/\?p=\[secret:admin\/password\]&q=1 +\)/);
    assert.match(text, /\/Producer \(Skia\)/);
  });
});
