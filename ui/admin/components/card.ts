import { h, type Child } from '../dom.js';

/** A titled panel of facts: `rows` are term/value pairs, `extra` anything below them. */
export function card(title: string, rows: [string, Child][], ...extra: Child[]): HTMLElement {
  return h(
    'section',
    { class: 'card', 'aria-label': title },
    h('h2', {}, title),
    rows.length
      ? h(
          'dl',
          {},
          rows.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
        )
      : null,
    extra,
  );
}
