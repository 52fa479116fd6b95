import { composedContains, composedParent } from './dom.js';

type Point = { x: number; y: number };

/**
 * The ancestor whose overflow leaves `point` (the element's centre) out of its visible area, or
 * null: a button below the fold of an overflow:auto list is not covered, it is scrolled away.
 * Body and html are left to the viewport check (their overflow belongs to the viewport).
 */
export function clipperOf(el: Element, point: Point): Element | null {
  let position = getComputedStyle(el).position;
  for (let p = composedParent(el); p; p = composedParent(p)) {
    if (p === document.body || p === document.documentElement) return null;
    const style = getComputedStyle(p);
    // An absolute or fixed box is clipped only from its containing block up.
    const containing =
      position === 'fixed'
        ? style.transform !== 'none'
        : position !== 'absolute' || style.position !== 'static' || style.transform !== 'none';
    if (!containing) continue;
    position = style.position;
    if (style.display === 'inline' || style.display === 'contents') continue;
    const clipsX = style.overflowX !== 'visible';
    const clipsY = style.overflowY !== 'visible';
    if (!clipsX && !clipsY) continue;
    const r = p.getBoundingClientRect();
    const left = r.left + p.clientLeft;
    const top = r.top + p.clientTop;
    if (clipsX && (point.x < left || point.x > left + p.clientWidth)) return p;
    if (clipsY && (point.y < top || point.y > top + p.clientHeight)) return p;
  }
  return null;
}

/** Scrolls every scrolling ancestor, nested ones and the page, to put the element in the middle. */
export function bringIntoView(el: Element, block: ScrollLogicalPosition = 'center'): void {
  el.scrollIntoView({ block, inline: 'center', behavior: 'instant' });
}

/**
 * The fixed or sticky bar (a header, a footer, a toolbar) the element at the point belongs to, or
 * null: only a bar can be scrolled clear of; a fixed layer over most of the viewport is a modal.
 */
export function stickyBarOf(hit: Element, el: Element): Element | null {
  for (let n: Element | null = hit; n && !composedContains(n, el); n = composedParent(n)) {
    const position = getComputedStyle(n).position;
    if (position !== 'fixed' && position !== 'sticky') continue;
    const r = n.getBoundingClientRect();
    return r.height < innerHeight / 2 || r.width < innerWidth / 2 ? n : null;
  }
  return null;
}

/** Where a covered element is tried again when a bar lies over it: the middle, then each edge. */
export const BAR_CLEARING_POSITIONS: readonly ScrollLogicalPosition[] = ['center', 'end', 'start'];
