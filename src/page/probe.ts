import {
  composedContains,
  composedParent,
  describe,
  isDisabled,
  isVisible,
  nextFrame,
  shortText,
} from './dom.js';
import { elementOf } from './handles.js';
import { BAR_CLEARING_POSITIONS, bringIntoView, clipperOf, stickyBarOf } from './in-view.js';
import type { Actionability, ProbeOptions } from './protocol.js';

/** The nearest element (itself or an ancestor) that hides it, and how. */
function hidingAncestor(el: Element): { el: Element; how: string } | null {
  // No box: climb to the top of the unrendered branch by asking for boxes, which costs nothing
  // per level; computing the style of each element of a display:none branch costs its depth.
  let top: Element = el;
  if (!el.checkVisibility()) {
    for (let p = composedParent(top); p && !p.checkVisibility(); p = composedParent(p)) top = p;
    const style = getComputedStyle(top);
    if (style.display === 'none') return { el: top, how: 'display:none' };
    if (style.contentVisibility === 'hidden') return { el: top, how: 'content-visibility:hidden' };
  }
  for (let n: Element | null = el; n; n = composedParent(n)) {
    const style = getComputedStyle(n);
    if (style.display === 'none') return { el: n, how: 'display:none' };
    if (style.visibility === 'hidden' || style.visibility === 'collapse')
      return { el: n, how: `visibility:${style.visibility}` };
    if (style.contentVisibility === 'hidden') return { el: n, how: 'content-visibility:hidden' };
  }
  return null;
}

/** The visible control next to a hidden part that most likely opens it: a menu's trigger. */
export function revealerOf(hidden: Element): { el: Element; gesture: 'click' | 'hover' } | null {
  for (let parent = composedParent(hidden); parent; parent = composedParent(parent)) {
    const siblings = Array.from(parent.children).filter(
      (c) => c !== hidden && !composedContains(c, hidden),
    );
    const trigger =
      siblings.find((c) => c.hasAttribute('aria-expanded') && isVisible(c)) ??
      siblings.find((c) => isVisible(c) && shortText(c) !== '');
    if (trigger)
      return { el: trigger, gesture: trigger.hasAttribute('aria-expanded') ? 'click' : 'hover' };
    if (isVisible(parent)) return null;
  }
  return null;
}

/** Why a hidden element is hidden, and the control that most likely reveals it. */
export function hiddenVerdict(el: Element): {
  message: string;
  revealer?: { el: Element; gesture: 'click' | 'hover' };
} {
  const hider = hidingAncestor(el);
  if (!hider) return { message: 'it exists but renders nothing visible.' };
  const who = hider.el === el ? 'it is' : `its ancestor \`${describe(hider.el)}\` is`;
  const revealer = revealerOf(hider.el);
  if (!revealer)
    return {
      message: `it exists, but ${who} ${hider.how}; something on the page must reveal it first.`,
    };
  const name = shortText(revealer.el, 40) || describe(revealer.el);
  const message =
    revealer.gesture === 'hover'
      ? `it exists, but ${who} ${hider.how} — it may open on hover; try hover on "${name}" first.`
      : `it exists, but ${who} ${hider.how} — try click on "${name}" (aria-expanded) first.`;
  return { message, revealer };
}

/** The element at a point, looking through open shadow roots. */
function deepElementFromPoint(x: number, y: number): Element | null {
  let hit = document.elementFromPoint(x, y);
  while (hit?.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

function receivesEvents(el: Element, hit: Element | null): boolean {
  if (!hit) return false;
  if (composedContains(el, hit)) return true;
  // A click on a control's own label reaches the control.
  const labels = (el as HTMLInputElement).labels;
  return !!labels && Array.from(labels).some((l) => composedContains(l, hit));
}

function boxOf(el: Element) {
  const r = el.getBoundingClientRect();
  return { x: r.x, y: r.y, width: r.width, height: r.height };
}

function inViewport(box: { x: number; y: number; width: number; height: number }): boolean {
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  return cx >= 0 && cy >= 0 && cx <= innerWidth && cy <= innerHeight;
}

const DETACHED: Actionability = {
  ok: false,
  blocker: 'detached',
  message: 'the element was removed from the page or replaced.',
};

const OUT_OF_VIEWPORT =
  'it is outside the viewport; scroll to it (acting ops scroll by themselves).';

/** `div#ad` ("Accept all"): the element that would take the input, as a message names it. */
function named(hit: Element | null): string {
  if (!hit) return 'nothing';
  const text = shortText(hit, 30);
  return `\`${describe(hit)}\`${text ? ` ("${text}")` : ''}`;
}

/**
 * The probe: what stops the element taking input right now, in one sentence with the next move.
 * Used by every acting op's wait and by outline, so both say the same thing.
 */
export function verdict(el: Element, options: ProbeOptions): Actionability {
  if (!el.isConnected) return DETACHED;
  if (!isVisible(el)) return { ok: false, blocker: 'hidden', message: hiddenVerdict(el).message };
  if (options.enabled && isDisabled(el)) {
    return {
      ok: false,
      blocker: 'disabled',
      message: 'it is disabled; fill what the form requires first, or wait for it to enable.',
    };
  }
  if (options.editable && (el as HTMLInputElement).readOnly)
    return { ok: false, blocker: 'readonly', message: 'it is read-only.' };
  const box = boxOf(el);
  if (box.width === 0 || box.height === 0)
    return { ok: false, blocker: 'zero_size', message: 'it has zero size.' };
  if (!inViewport(box)) return { ok: false, blocker: 'offscreen', message: OUT_OF_VIEWPORT, box };
  const point = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  if (options.hitTest) {
    const hit = deepElementFromPoint(point.x, point.y);
    if (!receivesEvents(el, hit)) {
      // A centre scrolled away inside a container is not covered: what lies there is the page.
      const clipper = clipperOf(el, point);
      if (clipper)
        return {
          ok: false,
          blocker: 'offscreen',
          message: `its centre is out of view inside \`${describe(clipper)}\` (overflow ${getComputedStyle(clipper).overflow}) and could not be scrolled into view; try scroll with this target, or resize.`,
          point,
          box,
        };
      return {
        ok: false,
        blocker: 'covered',
        message: `it is covered by ${named(hit)} at its centre; close or dismiss that first, or use force: true to dispatch the click to the element itself.`,
        point,
        box,
      };
    }
  }
  return { ok: true, point, box };
}

/**
 * Is the element ready for input? Scrolls it into view through every scrolling ancestor when its
 * centre is out of sight, and clear of a sticky bar lying over it; stable is the same box on two
 * frames in a row.
 */
export async function probe(handle: number, options: ProbeOptions): Promise<Actionability> {
  const el = elementOf(handle);
  if (!el) return DETACHED;
  const early = verdict(el, { ...options, hitTest: false });
  if (!early.ok && early.blocker !== 'offscreen') return early;
  if (early.blocker === 'offscreen' || (early.point && clipperOf(el, early.point)))
    bringIntoView(el);
  if (options.stable === false) return verdict(el, options);
  let time = await nextFrame();
  const before = boxOf(el);
  // Under load a frame can come with no animation time passed since the last: it proves nothing.
  let box = before;
  for (let frames = 0; frames < 3; frames++) {
    const next = await nextFrame();
    box = boxOf(el);
    if (next > time) break;
    time = next;
  }
  if (
    Math.abs(box.x - before.x) > 1 ||
    Math.abs(box.y - before.y) > 1 ||
    Math.abs(box.width - before.width) > 1
  ) {
    return {
      ok: false,
      blocker: 'moving',
      message: 'it is still moving (an animation or layout shift).',
    };
  }
  const final = verdict(el, options);
  if (final.blocker === 'covered') return clearOfStickyBar(el, options, final);
  if (final.message === OUT_OF_VIEWPORT) {
    return {
      ...final,
      message:
        'it is outside the viewport and could not be scrolled into view; try scroll or resize.',
    };
  }
  return final;
}

/**
 * A covered element under a fixed or sticky bar is scrolled to the middle, then to each edge, and
 * taken where it is clear; a cover that is no bar, or a bar it stays under, is the answer.
 */
function clearOfStickyBar(el: Element, options: ProbeOptions, covered: Actionability) {
  const point = covered.point!;
  const hit = deepElementFromPoint(point.x, point.y);
  const bar = hit && stickyBarOf(hit, el);
  if (!bar) return covered;
  for (const position of BAR_CLEARING_POSITIONS) {
    bringIntoView(el, position);
    const again = verdict(el, options);
    if (again.ok) return again;
  }
  bringIntoView(el);
  return {
    ...covered,
    message: `it stays under the ${getComputedStyle(bar).position} \`${describe(bar)}\` wherever it is scrolled (${named(hit)} lies over its centre); close or collapse that bar first, or use force: true to dispatch the click to the element itself.`,
  };
}

/**
 * Whether the element still takes the press at `point` (its frame's viewport) now that the pointer
 * is there: the move's mouseenter and mouseover may have opened a layer over it (a "Quick view").
 * A frame first, so a framework renders what those handlers set. Checked once, before the press.
 */
export async function receivesAt(
  handle: number,
  point: { x: number; y: number },
): Promise<Actionability> {
  const el = elementOf(handle);
  if (!el) return DETACHED;
  await nextFrame();
  if (!el.isConnected) return DETACHED;
  const hit = deepElementFromPoint(point.x, point.y);
  if (receivesEvents(el, hit)) return { ok: true, point };
  // The element left the point, rather than something covering it there.
  const box = el.getBoundingClientRect();
  if (point.x < box.left || point.x > box.right || point.y < box.top || point.y > box.bottom)
    return {
      ok: false,
      blocker: 'moving',
      message:
        'it is still moving (an animation or layout shift): it left the point the pointer went to.',
      point,
    };
  return {
    ok: false,
    blocker: 'covered',
    message: `${named(hit)} lay over its centre (the pointer's arrival may have opened it, as a hover layer opens); act on that instead if it is what you meant, or use force: true to dispatch the click to the element itself.`,
    point,
  };
}

/** The offset of an iframe's content box in its document's viewport. */
export function frameOffset(handle: number): { x: number; y: number } | null {
  const el = elementOf(handle);
  if (!(el instanceof HTMLIFrameElement || el instanceof HTMLFrameElement)) return null;
  const r = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  return {
    x: r.x + el.clientLeft + parseFloat(style.paddingLeft),
    y: r.y + el.clientTop + parseFloat(style.paddingTop),
  };
}
