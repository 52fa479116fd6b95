import { pill } from '../components/pill.js';
import type { CapabilityEntry } from '../contract.js';
import { h, shown } from '../dom.js';

const count = (v: unknown) =>
  Array.isArray(v) ? v.length : v && typeof v === 'object' ? Object.keys(v).length : 0;

/** A vendor block (`goog:chromeOptions`…) in one line: how many args and prefs it carries. */
export function vendorSummary(value: Record<string, unknown>): string {
  const parts = [`args ${count(value.args)}`, `prefs ${count(value.prefs)}`];
  const others = Object.keys(value).filter((k) => k !== 'args' && k !== 'prefs');
  if (others.length) parts.push(`${others.join(', ')}`);
  return parts.join(' · ');
}

const isVendorBlock = (key: string, value: unknown): value is Record<string, unknown> =>
  key.includes(':') && !!value && typeof value === 'object' && !Array.isArray(value);

function entry(c: CapabilityEntry): HTMLElement {
  const value = isVendorBlock(c.key, c.value)
    ? h(
        'details',
        { class: 'vendor' },
        h('summary', {}, vendorSummary(c.value)),
        h('pre', {}, JSON.stringify(c.value, null, 2)),
      )
    : h('code', {}, shown(c.value));
  return h(
    'li',
    { class: 'capability', 'data-key': c.key },
    h('code', { class: 'cap-key' }, c.key),
    ' ',
    value,
    ' ',
    h(
      'span',
      { class: 'sources' },
      // aria-label is not allowed on a plain span: the word is spoken from hidden text instead.
      h('span', { class: 'visually-hidden' }, 'from '),
      // Spaces between pills: without them the sources read as one word ("flowconfig").
      c.sources.flatMap((s, i) => (i ? [' ', pill(s, 'info')] : [pill(s, 'info')])),
    ),
  );
}

/**
 * The capabilities the browser was asked with (a Grid session's W3C capabilities, a local
 * browser's launch options), collapsed until the operator opens them; `ignored` names the keys
 * SwiftBrowse's own values beat.
 */
export function capabilities(
  entries: readonly CapabilityEntry[] | undefined,
  ignored: readonly string[] = [],
): HTMLElement {
  if (!entries?.length)
    return h(
      'section',
      { class: 'card', 'aria-label': 'Capabilities' },
      h('h2', {}, 'Capabilities'),
      h(
        'p',
        { class: 'empty' },
        'No capabilities recorded: the browser never opened, or it ran on a server that kept no record.',
      ),
    );
  return h(
    'section',
    { class: 'card', 'aria-label': 'Capabilities' },
    h(
      'details',
      { class: 'capabilities' },
      h('summary', {}, h('h2', {}, `Capabilities sent (${entries.length})`)),
      h('ul', { class: 'plain' }, entries.map(entry)),
      ignored.length
        ? h(
            'p',
            { class: 'muted', 'data-testid': 'ignored' },
            'Ignored (SwiftBrowse sets these itself): ',
            ignored.flatMap((k, i) => (i ? [', ', h('code', {}, k)] : [h('code', {}, k)])),
          )
        : null,
    ),
  );
}
