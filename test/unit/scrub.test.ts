import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BoundValues, scrub } from '../../src/core/redact.js';

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
});
