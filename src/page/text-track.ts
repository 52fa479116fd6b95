// The text track (DESIGN §5): one walk over the rendered composed tree collecting each element's
// own text and each control's live value, with its address. Speed: visibility comes from
// checkVisibility() (style is computed once for the document, then each call reads it), computed
// style is read only for elements that fail it, layout only for frames and closed-root
// candidates, and nothing is written. (One getComputedStyle() read per element, trusting the
// parent's state, measured no faster and needs hand-kept rules for <details>, <object> and
// replaced elements that checkVisibility() already knows.)
import { frameShown } from './frames.js';
import { addressOf, bodyOf, elementIndex, frameBody, normalize, ownText } from './address.js';
import { Budget } from './budget.js';
import {
  box,
  controlOf,
  type Control,
  Seen,
  seen,
  SKIPPED_TAGS,
  textOf,
} from './track-controls.js';
import { childAddress, fittingPrefix, renderTrack } from './track-format.js';
import type { SkippedFrame, TextTrack, TrackLine } from './track-format.js';

export { addressOf, fingerprintOf, printOf, resolveAddress } from './address.js';
export { parseTrackText, renderTrack } from './track-format.js';
export type { SkippedFrame, TextTrack, TrackLine } from './track-format.js';

/** Options of `textTrack`. */
export interface TextTrackOptions {
  /** Character budget for `text`; lines past it are left out and `truncated` is set. */
  maxChars?: number;
  /** Same-origin frames read at most (default 8; 0 reads none). */
  maxFrames?: number;
  /** Frame nesting read at most (default 2). */
  maxFrameDepth?: number;
  /** Filled with the element behind each returned line, in order. */
  elementsOut?: Element[];
  /** The walk's time; when it is spent the walk stops and the track is marked `cut`. */
  budget?: Budget;
}

interface Walk {
  lines: TrackLine[];
  /** The element behind each line, for the caller's fingerprints. */
  elements: Element[];
  /** Characters collected, unrendered: the walk stops early once far past the budget. */
  cost: number;
  stopAt: number;
  stopped: boolean;
  frames: number;
  maxFrames: number;
  maxDepth: number;
  closed: number;
  /** Open shadow roots walked. */
  shadowRoots: number;
  skipped: SkippedFrame[];
  /** Addresses of shadow hosts and slots walked, for the elements slotted into them. */
  known: Map<Element, string>;
  /** Elements still to visit, the next one last. */
  stack: Step[];
  budget: Budget;
}

/** One element to visit: where it sits, how deep in frames, and whether its text is dropped. */
interface Step {
  el: Element;
  address: string;
  depth: number;
  quiet: boolean;
  /** Known already: the element is shown, and this is its control (null: it is none). */
  control?: Control | null;
  /** A line written when the step comes off the stack, in its place in document order. */
  line?: TrackLine;
}

function push(w: Walk, el: Element, address: string, text: string, mark?: string): void {
  w.lines.push(mark ? { address, mark, text } : { address, text });
  w.elements.push(el);
  w.cost += address.length + (mark ? mark.length : 0) + text.length + 2;
  if (w.cost > w.stopAt) w.stopped = true;
}

/** A native listbox (`multiple` or `size` > 1) shows its options, so they are lines too. */
function listboxOptions(w: Walk, select: HTMLSelectElement, address: string): void {
  if (!select.multiple && select.size <= 1) return;
  let i = 0;
  for (let c = select.firstElementChild; c; c = c.nextElementSibling, i++) {
    const at = childAddress(address, i);
    const options = c.localName === 'optgroup' ? Array.from(c.children) : [c];
    options.forEach((o, k) => {
      if (o.localName !== 'option' || (o as HTMLOptionElement).hidden) return;
      const option = o as HTMLOptionElement;
      const text = normalize(option.label);
      push(
        w,
        o,
        c === o ? at : childAddress(at, k),
        option.selected ? `[x] ${text}` : text,
        '#opt',
      );
    });
  }
}

/** Text of a light-DOM host: only its text nodes assigned to a slot are rendered. */
function slottedOwnText(host: Element): string {
  let text = '';
  for (let n = host.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 3 && (n as Text).assignedSlot) text += (n as Text).data;
    else if (n.nodeType === 1) text += ' ';
  }
  return normalize(text);
}

function ownRenderedText(el: Element, tag: string): string {
  if (el.shadowRoot) return slottedOwnText(el);
  if (tag === 'slot' && (el as HTMLSlotElement).assignedNodes().length > 0) return '';
  return ownText(el);
}

// Closed shadow roots are invisible to page script (`shadowRoot` is null, and
// chrome.dom.openOrClosedShadowRoot exists only for extensions). Estimate: a custom element (a
// dash in its tag) with no open root, no light-DOM content, yet a rendered size, is drawing
// something from a root we cannot see. A closed root on a non-custom element, or one that only
// slots light content, is missed; an empty custom element sized by CSS alone is over-counted.
function looksClosedHost(el: Element, tag: string): boolean {
  if (!tag.includes('-') || el.shadowRoot || el.firstElementChild) return false;
  if (normalize(el.textContent ?? '')) return false;
  const rect = el.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0;
}

function enterFrame(w: Walk, frame: Element, address: string, depth: number): void {
  if (!frameShown(frame)) return;
  if (depth >= w.maxDepth) return void w.skipped.push({ address, reason: 'depth' });
  if (w.frames >= w.maxFrames) return void w.skipped.push({ address, reason: 'limit' });
  const body = frameBody(frame);
  if (!body) return void w.skipped.push({ address, reason: 'cross-origin' });
  w.frames++;
  w.stack.push({ el: body, address: `${address}|^`, depth: depth + 1, quiet: false });
}

/** Label of a checkbox or radio: its text rides on the control's line, or becomes the control. */
function labelledToggle(el: Element): HTMLInputElement | null {
  const control = (el as HTMLLabelElement).control;
  if (!control || control.localName !== 'input') return null;
  const input = control as HTMLInputElement;
  return input.type === 'checkbox' || input.type === 'radio' ? input : null;
}

// Read even when empty: controls, frames, slots (their content is assigned, not held), and labels
// (an empty one can be the drawn box of a hidden checkbox).
const READ_WHEN_EMPTY = new Set(
  'input textarea select button a summary iframe frame slot label'.split(' '),
);

/**
 * True for an element that can add no line, so its visibility is never asked: an empty leaf
 * (<br>, <img>, an icon <i>) that is no control, frame, slot or custom element, or an SVG drawing
 * with no text in it (icons: many paths, no words).
 */
function silent(el: Element, tag: string): boolean {
  if (tag === 'svg')
    return !el.hasAttribute('role') && el.querySelector('text, foreignObject, a') === null;
  if (
    el.firstChild !== null ||
    el.shadowRoot !== null ||
    READ_WHEN_EMPTY.has(tag) ||
    tag.includes('-')
  )
    return false;
  return !el.hasAttribute('role') && !el.hasAttribute('contenteditable');
}

/**
 * Walks the composed tree from `first` in document order with an explicit stack (never
 * recursion: a page nested 50,000 deep must not overflow the call stack). Each element is looked
 * at once; children are pushed last-first so they come off in order.
 */
function walkFrom(w: Walk, first: Step): void {
  w.stack.push(first);
  while (w.stack.length > 0 && !w.stopped) {
    if (w.budget.spent()) {
      w.stopped = true;
      break;
    }
    visit(w, w.stack.pop()!);
  }
}

/** Reads one element's line, then queues its children; `quiet` drops plain text (a toggle's label, already on its line). */
function visit(w: Walk, step: Step): void {
  const { el, address, depth, line } = step;
  if (line) return push(w, el, address, line.text, line.mark);
  let { quiet } = step;
  const tag = el.localName;
  const known = step.control !== undefined;
  if (!known && (SKIPPED_TAGS.has(tag) || silent(el, tag))) return;
  const state = known ? Seen.Shown : seen(el);
  if (state === Seen.None) return;
  if (state === Seen.Shown) {
    if (tag === 'iframe' || tag === 'frame') return enterFrame(w, el, address, depth);
    const control = known ? step.control : controlOf(el, tag);
    if (control?.items) return readRuns(w, el, address, depth, control);
    if (control) {
      push(w, el, address, control.text, control.mark);
      if (tag === 'select') listboxOptions(w, el as HTMLSelectElement, address);
      return;
    }
    if (tag === 'label') {
      const toggle = labelledToggle(el);
      if (toggle && !toggle.checkVisibility()) {
        // The real box is hidden and styled through its label: the label is what gets clicked.
        const mark = toggle.type === 'checkbox' ? '#chk' : '#rad';
        return push(w, el, address, box(toggle.checked, toggle.indeterminate, textOf(el)), mark);
      }
      if (toggle) quiet = true;
    }
    if (!quiet && !el.shadowRoot && tag !== 'slot' && !tag.includes('-'))
      return readRuns(w, el, address, depth);
    const text = quiet ? '' : ownRenderedText(el, tag);
    if (text) push(w, el, address, text);
    else if (looksClosedHost(el, tag)) w.closed++;
  }
  queueChildren(w, el, address, depth, quiet);
}

// Rendered as blocks unless styled otherwise: never part of a sentence, so their style is not read.
const BLOCK_TAGS = new Set(
  [
    'address article aside blockquote body dd details dialog div dl dt fieldset figcaption figure',
    'footer form h1 h2 h3 h4 h5 h6 header hr li main menu nav ol p pre section summary table',
    'tbody thead tfoot tr td th caption ul iframe frame slot object video audio canvas svg',
  ]
    .join(' ')
    .split(' '),
);

/** Where a piece of a sentence sits: the child of the block it came from (null: the block itself). */
interface Top {
  el: Element;
  address: string;
}

interface Part {
  text: string;
  /** A link's words: kept only in a sentence that has words of its own. */
  link: boolean;
  top: Top | null;
}

/** A node of the block still to read, or a space (the edge of a spaced inline element). */
type Pending = { node: Node; address: string; top: Top | null } | ' ';

const WORD = /[\p{L}\p{N}]/u;

function hasMargin(style: CSSStyleDeclaration): boolean {
  return (
    style.marginLeft !== '0px' ||
    style.marginRight !== '0px' ||
    style.paddingLeft !== '0px' ||
    style.paddingRight !== '0px'
  );
}

/**
 * Reads a block's text as sentences: inline elements (b, code, a span, a label's words, anything
 * whose computed display is inline) stay in the sentence they sit in, one line each, written at
 * the smallest element holding the whole sentence. A control, a block or a frame ends a sentence
 * and is read in its place; a link inside a sentence gives it its words and keeps its own line
 * right after it. A container control (`items`) gets its words on its own line instead.
 */
function readRuns(w: Walk, block: Element, address: string, depth: number, own?: Control): void {
  const steps: Step[] = [];
  const words: string[] = [];
  let parts: Part[] = [];
  let links: Step[] = [];
  const flush = () => {
    const spoken = parts.some((p) => !p.link && WORD.test(p.text));
    const kept = spoken ? parts : parts.filter((p) => !p.link);
    const text = normalize(kept.map((p) => p.text).join(''));
    if (text && own) words.push(text);
    else if (text) {
      const tops = new Set(kept.filter((p) => p.text.trim()).map((p) => p.top));
      const [top] = tops;
      const at = tops.size === 1 && top ? top : { el: block, address };
      const line = { address: at.address, text };
      steps.push({ el: at.el, address: at.address, depth, quiet: false, line });
    }
    steps.push(...links);
    parts = [];
    links = [];
  };
  const defer = (step: Step) => {
    flush();
    steps.push(step);
  };
  const pending: Pending[] = [];
  const expand = (parent: Element, at: string, top: Top | null) => {
    const nodes = parent.childNodes;
    let index = parent.childElementCount;
    for (let i = nodes.length - 1; i >= 0; i--) {
      const node = nodes[i];
      if (node.nodeType === 3) pending.push({ node, address: at, top });
      else if (node.nodeType === 1) {
        const child = childAddress(at, --index);
        pending.push({ node, address: child, top: top ?? { el: node as Element, address: child } });
      }
    }
  };
  expand(block, address, null);
  while (pending.length > 0) {
    const item = pending.pop()!;
    if (item === ' ') {
      parts.push({ text: ' ', link: false, top: null });
      continue;
    }
    const { node, address: at, top } = item;
    if (node.nodeType === 3) {
      parts.push({ text: (node as Text).data, link: false, top });
      continue;
    }
    const el = node as Element;
    const tag = el.localName;
    if (SKIPPED_TAGS.has(tag)) continue;
    if (tag === 'br') {
      parts.push({ text: ' ', link: false, top: null });
      continue;
    }
    if (silent(el, tag)) continue;
    const step: Step = { el, address: at, depth, quiet: false };
    if (BLOCK_TAGS.has(tag) || el.shadowRoot || tag.includes('-')) {
      defer(step);
      continue;
    }
    const state = seen(el);
    if (state === Seen.None) continue;
    if (state === Seen.Hidden) {
      defer(step);
      continue;
    }
    const control = controlOf(el, tag);
    step.control = control;
    if (control?.mark === '#lnk') {
      parts.push({ text: control.words ?? control.text, link: true, top });
      links.push(step);
      continue;
    }
    if (control || (tag === 'label' && labelledToggle(el))) {
      defer(step);
      continue;
    }
    const style = el.ownerDocument.defaultView!.getComputedStyle(el);
    if (style.display !== 'inline') {
      defer(step);
      continue;
    }
    const spaced = hasMargin(style);
    if (spaced) pending.push(' ');
    expand(el, at, top);
    if (spaced) pending.push(' ');
  }
  flush();
  if (own) {
    const text = own.text || words.join(' ');
    steps.unshift({
      el: block,
      address,
      depth,
      quiet: false,
      line: { address, mark: own.mark, text },
    });
  }
  for (let k = steps.length - 1; k >= 0; k--) w.stack.push(steps[k]);
}

function queueChildren(w: Walk, el: Element, address: string, depth: number, quiet: boolean): void {
  const { stack } = w;
  const root = el.shadowRoot;
  if (root) {
    w.shadowRoots++;
    w.known.set(el, address);
    let i = el.childElementCount + root.childElementCount - 1;
    for (let c = root.lastElementChild; c; c = c.previousElementSibling)
      stack.push({ el: c, address: childAddress(address, i--), depth, quiet });
    return;
  }
  if (el.localName === 'slot' && (el as HTMLSlotElement).assignedNodes().length > 0) {
    w.known.set(el, address);
    const assigned = (el as HTMLSlotElement).assignedNodes({ flatten: true });
    const steps: Step[] = [];
    for (const node of assigned) {
      if (node.nodeType !== 1) continue;
      const at = slottedAddress(w, node as Element);
      if (at !== null) steps.push({ el: node as Element, address: at, depth, quiet });
    }
    for (let k = steps.length - 1; k >= 0; k--) stack.push(steps[k]);
    return;
  }
  let i = el.childElementCount - 1;
  for (let c = el.lastElementChild; c; c = c.previousElementSibling)
    stack.push({ el: c, address: childAddress(address, i--), depth, quiet });
}

function slottedAddress(w: Walk, el: Element): string | null {
  const parent = el.parentElement;
  const known = parent ? w.known.get(parent) : undefined;
  if (known !== undefined) return childAddress(known, elementIndex(el));
  try {
    return addressOf(el);
  } catch {
    return null;
  }
}

function fitBudget(lines: TrackLine[], maxChars: number): { lines: TrackLine[]; text: string } {
  const kept = lines.slice(0, fittingPrefix(lines, maxChars));
  return { lines: kept, text: renderTrack(kept) };
}

/**
 * The text track of the page, or of `root`'s subtree, in document order of the composed tree:
 * into open shadow roots (slots resolved) and same-origin frames (at most 8, 2 deep; frames under
 * 8×8 px skipped). Hidden subtrees, scripts and styles are left out; password values never read.
 */
export function textTrack(root?: Element, options: TextTrackOptions = {}): TextTrack {
  const body = bodyOf(root?.ownerDocument ?? document);
  // Asked for <html>: the page is its body.
  const start = root && !(body && root !== body && root.contains(body)) ? root : body;
  if (!start) return { lines: [], text: '', truncated: false, closedShadowRoots: 0, frames: 0 };
  const address = addressOf(start);
  const { maxChars } = options;
  const w: Walk = {
    lines: [],
    elements: [],
    cost: 0,
    // Grouping writes a long address once for many lines, so the rendered text is usually
    // shorter than the raw sum; collect well past the budget, then cut exactly.
    stopAt: maxChars === undefined ? Infinity : maxChars * 4 + 256,
    stopped: false,
    frames: 0,
    maxFrames: options.maxFrames ?? 8,
    maxDepth: options.maxFrameDepth ?? 2,
    closed: 0,
    shadowRoots: 0,
    skipped: [],
    known: new Map(),
    stack: [],
    budget: options.budget ?? new Budget(),
  };
  walkFrom(w, { el: start, address, depth: address.split('|').length - 1, quiet: false });
  let lines = w.lines;
  let text = renderTrack(lines);
  let truncated = w.stopped;
  if (maxChars !== undefined && text.length > maxChars) {
    ({ lines, text } = fitBudget(lines, maxChars));
    truncated = true;
  }
  // One push per element: spreading 300,000 arguments overflows the call stack.
  const out = options.elementsOut;
  if (out) for (let i = 0; i < lines.length; i++) out.push(w.elements[i]);
  const track: TextTrack = {
    lines,
    text,
    truncated,
    closedShadowRoots: w.closed,
    frames: w.frames,
  };
  if (w.budget.cut) track.cut = w.budget.report();
  if (w.shadowRoots > 0) track.shadowRoots = w.shadowRoots;
  if (w.skipped.length > 0) track.skippedFrames = w.skipped;
  return track;
}
