import { h, type Child } from '../dom.js';

/** A table of rows; `head` names the columns (the first is the row header). */
export function table(caption: string, head: string[], rows: HTMLTableRowElement[]): HTMLElement {
  return h(
    'table',
    { class: 'rows' },
    h('caption', { class: 'visually-hidden' }, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        head.map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    h('tbody', {}, rows),
  );
}

/** One row: the first cell is its header (a session name, a setting), the rest plain cells. */
export function row(cells: Child[], props: Record<string, string> = {}): HTMLTableRowElement {
  const [first, ...rest] = cells;
  return h(
    'tr',
    props,
    h('th', { scope: 'row' }, first),
    rest.map((c) => h('td', {}, c)),
  );
}
