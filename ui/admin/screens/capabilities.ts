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
      c.sources.map((s) => pill(s, 'info')),
    ),
  );
}

/** The capabilities the browser was asked with, collapsed until the operator opens them. */
export function capabilities(entries: readonly CapabilityEntry[] | undefined): HTMLElement {
  if (!entries?.length)
    return h(
      'section',
      { class: 'card', 'aria-label': 'Capabilities' },
      h('h2', {}, 'Capabilities'),
      h(
        'p',
        { class: 'empty' },
        'No capabilities recorded (a local Playwright browser sends none, or the browser never opened).',
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
    ),
  );
}
