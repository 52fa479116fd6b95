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
import { isSecretField } from './secret-fields.js';
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

// Never rendered as text: metadata, and SVG containers drawn only by reference, for which
// checkVisibility() answers true (localName is case-sensitive in SVG).
const SKIPPED_TAGS = new Set([
  ...'script style noscript template head title meta link'.split(' '),
  ...'defs desc metadata symbol marker mask pattern filter clipPath'.split(' '),
  ...'linearGradient radialGradient'.split(' '),
]);
const CONTROL_TEXT = 200;
const HREF_TEXT = 100;
const NAME_TEXT = 40;
const SHOW_ALL: CheckVisibilityOptions = { visibilityProperty: true };

const enum Seen {
  /** Not rendered, nor anything inside it. */
  None,
  /** Rendered, but its own text is `visibility: hidden`; a descendant may be visible again. */
  Hidden,
  Shown,
}

const ROLE_MARKS: Record<string, string> = {
  button: '#btn',
  tab: '#btn',
  menuitem: '#btn',
  link: '#lnk',
  checkbox: '#chk',
  switch: '#chk',
  menuitemcheckbox: '#chk',
  radio: '#rad',
  menuitemradio: '#rad',
  option: '#opt',
  combobox: '#sel',
  listbox: '#sel',
  textbox: '#inp',
  searchbox: '#inp',
};

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
}

interface Control {
  mark: string;
  text: string;
}

function seen(el: Element): Seen {
  if (el.checkVisibility(SHOW_ALL)) return Seen.Shown;
  if (el.checkVisibility()) return Seen.Hidden;
  // No box: display:none (or closed <details>), unless display:contents, whose children render.
  const style = el.ownerDocument.defaultView?.getComputedStyle(el);
  if (style?.display !== 'contents') return Seen.None;
  return style.visibility === 'visible' ? Seen.Shown : Seen.Hidden;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Rendered text of a control's whole subtree (a control is one line, DESIGN §5). */
function textOf(el: Element): string {
  return clip(normalize(collect(el)), CONTROL_TEXT);
}

/** A node to read, or a space between an element's text and its neighbours'. */
type Piece = { node: Node; own: boolean; check: boolean } | ' ';

/** The rendered text under `el`, iteratively, stopping once it is well past what a line shows. */
function collect(el: Element): string {
  let text = '';
  const stack: Piece[] = [{ node: el, own: true, check: false }];
  while (stack.length > 0 && text.length < CONTROL_TEXT * 2) {
    const piece = stack.pop()!;
    if (piece === ' ') {
      text += ' ';
      continue;
    }
    const { node, own } = piece;
    if (node.nodeType === 3) {
      if (own) text += (node as Text).data;
      continue;
    }
    const element = node as Element;
    let shown = own;
    if (piece.check) {
      const state = seen(element);
      if (state === Seen.None) continue;
      shown = state === Seen.Shown;
    }
    const slot =
      element.localName === 'slot'
        ? (element as HTMLSlotElement).assignedNodes({ flatten: true })
        : null;
    const nodes: ArrayLike<Node> =
      slot && slot.length > 0 ? slot : (element.shadowRoot ?? element).childNodes;
    for (let i = nodes.length - 1; i >= 0; i--) {
      const child = nodes[i];
      if (child.nodeType === 3) stack.push({ node: child, own: shown, check: false });
      else if (child.nodeType === 1 && !SKIPPED_TAGS.has((child as Element).localName))
        stack.push(' ', { node: child, own: shown, check: true }, ' ');
    }
  }
  return text;
}

/** A name for a control with no text: aria-label, title, or an image's alt inside it. */
function iconName(el: Element): string {
  const own = el.getAttribute('aria-label') || el.getAttribute('title');
  if (own && own.trim()) return clip(normalize(own), CONTROL_TEXT);
  const ids = el.getAttribute('aria-labelledby');
  if (ids) {
    const doc = el.ownerDocument;
    const text = ids.split(/\s+/).map((id) => doc.getElementById(id)?.textContent ?? '');
    const name = normalize(text.join(' '));
    if (name) return clip(name, CONTROL_TEXT);
  }
  const inner = el.querySelector('img[alt]:not([alt=""]), [aria-label], svg title');
  if (!inner) return '';
  const name =
    inner.getAttribute('alt') ?? inner.getAttribute('aria-label') ?? inner.textContent ?? '';
  return clip(normalize(name), CONTROL_TEXT);
}

function nameOf(el: Element, fallback: string): string {
  const name = el.getAttribute('name') || el.id || fallback;
  return clip(name.replace(/\s+/g, '_'), NAME_TEXT);
}

function labelOf(control: HTMLInputElement): string {
  const labels = control.labels;
  if (labels && labels.length > 0) {
    const text = Array.from(labels, (label) => textOf(label)).join(' ');
    if (text) return clip(normalize(text), CONTROL_TEXT);
  }
  return iconName(control);
}

function box(checked: boolean, mixed: boolean, label: string): string {
  const state = mixed ? '[-]' : checked ? '[x]' : '[ ]';
  return label ? `${state} ${label}` : state;
}

function valueText(value: string, placeholder: string | null): string {
  const text = normalize(value);
  if (text) return clip(text, CONTROL_TEXT);
  const hint = placeholder ? normalize(placeholder) : '';
  return hint ? `(${clip(hint, CONTROL_TEXT)})` : '';
}

function inputControl(input: HTMLInputElement): Control | null {
  switch (input.type) {
    case 'hidden':
      return null;
    case 'button':
      return { mark: '#btn', text: normalize(input.value) || iconName(input) };
    case 'submit':
    case 'reset':
      return {
        mark: '#btn',
        text: normalize(input.value) || (input.type === 'reset' ? 'Reset' : 'Submit'),
      };
    case 'image':
      return { mark: '#btn', text: normalize(input.alt || input.value) || iconName(input) };
    case 'checkbox':
      return { mark: '#chk', text: box(input.checked, input.indeterminate, labelOf(input)) };
    case 'radio':
      return { mark: '#rad', text: box(input.checked, false, labelOf(input)) };
    case 'file':
      return { mark: '#file', text: Array.from(input.files ?? [], (f) => f.name).join(', ') };
    case 'password':
      // Never the value: diffs and logs carry the track.
      return {
        mark: `#inp-${nameOf(input, 'password')}`,
        text: input.value ? '••••' : valueText('', input.placeholder),
      };
    default:
      return {
        mark: `#inp-${nameOf(input, input.type)}`,
        // A secret typed into a plain field is shown like a password.
        text: isSecretField(input) ? '••••' : valueText(input.value, input.placeholder),
      };
  }
}

function linkText(a: Element, href: string): string {
  const text = textOf(a) || iconName(a);
  const target = href.trim();
  if (!target || target.toLowerCase().startsWith('javascript:')) return text;
  return text ? `${text} → ${clip(target, HREF_TEXT)}` : `→ ${clip(target, HREF_TEXT)}`;
}

function roleControl(el: Element, role: string): Control | null {
  const mark = ROLE_MARKS[role];
  if (!mark) return null;
  const text = textOf(el) || iconName(el);
  switch (mark) {
    case '#chk':
    case '#rad': {
      const checked = el.getAttribute('aria-checked');
      return { mark, text: box(checked === 'true', checked === 'mixed', text) };
    }
    case '#opt':
      return { mark, text: el.getAttribute('aria-selected') === 'true' ? `[x] ${text}` : text };
    case '#sel':
    case '#inp':
      return { mark: `${mark}-${nameOf(el, role)}`, text };
    default:
      return { mark, text };
  }
}

function controlOf(el: Element, tag: string): Control | null {
  const role = el.getAttribute('role')?.trim().split(/\s+/)[0].toLowerCase();
  switch (tag) {
    case 'input':
      return inputControl(el as HTMLInputElement);
    case 'textarea': {
      const area = el as HTMLTextAreaElement;
      return {
        mark: `#inp-${nameOf(el, 'textarea')}`,
        text: isSecretField(area) ? '••••' : valueText(area.value, area.placeholder),
      };
    }
    case 'select': {
      const chosen = Array.from((el as HTMLSelectElement).selectedOptions, (o) =>
        normalize(o.label),
      );
      return { mark: `#sel-${nameOf(el, 'select')}`, text: clip(chosen.join(', '), CONTROL_TEXT) };
    }
    case 'button':
    case 'summary':
      return role && role !== 'button' ? (roleControl(el, role) ?? button(el)) : button(el);
    case 'a': {
      const href = el.getAttribute('href');
      if (href === null) break;
      if (role && role !== 'link' && ROLE_MARKS[role]) return roleControl(el, role);
      return { mark: '#lnk', text: linkText(el, href) };
    }
  }
  if (role) return roleControl(el, role);
  if (el.hasAttribute('contenteditable') && (el as HTMLElement).isContentEditable) {
    const parent = el.parentElement as HTMLElement | null;
    if (!parent?.isContentEditable)
      return {
        mark: `#inp-${nameOf(el, 'editable')}`,
        text: isSecretField(el) ? '••••' : textOf(el),
      };
  }
  return null;
}

function button(el: Element): Control {
  return { mark: '#btn', text: textOf(el) || iconName(el) };
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
  const { el, address, depth } = step;
  let { quiet } = step;
  const tag = el.localName;
  if (SKIPPED_TAGS.has(tag) || silent(el, tag)) return;
  const state = seen(el);
  if (state === Seen.None) return;
  if (state === Seen.Shown) {
    if (tag === 'iframe' || tag === 'frame') return enterFrame(w, el, address, depth);
    const control = controlOf(el, tag);
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
    const text = quiet ? '' : ownRenderedText(el, tag);
    if (text) push(w, el, address, text);
    else if (looksClosedHost(el, tag)) w.closed++;
  }
  queueChildren(w, el, address, depth, quiet);
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
