import { h, type Child } from '../dom.js';

/** One tile of a grid: a heading, marks (inert), facts and actions (buttons). */
export function tile(title: string, marks: Child[], facts: Child[], actions: Child[]): HTMLElement {
  return h(
    'li',
    { class: 'tile' },
    h('h3', { class: 'tile-title' }, title),
    h('div', { class: 'tile-marks' }, marks),
    h('div', { class: 'tile-facts' }, facts),
    h('div', { class: 'tile-actions' }, actions),
  );
}

export function tileGrid(label: string, tiles: HTMLElement[]): HTMLElement {
  return h('ul', { class: 'tiles', 'aria-label': label }, tiles);
}
