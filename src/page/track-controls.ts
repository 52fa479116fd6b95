// How the text track reads one element: whether it renders, and what a control's line says. The
// mark follows the element's ARIA role (ROLE_MARKS), so a mark names the `{role}` that finds it.
import { normalize } from './address.js';
import { roleOf } from './aria.js';
import { isSecretField } from './secret-fields.js';
import { ROLE_MARKS } from './track-format.js';

// Never rendered as text: metadata, and SVG containers drawn only by reference, for which
// checkVisibility() answers true (localName is case-sensitive in SVG).
export const SKIPPED_TAGS = new Set([
  ...'script style noscript template head title meta link'.split(' '),
  ...'defs desc metadata symbol marker mask pattern filter clipPath'.split(' '),
  ...'linearGradient radialGradient'.split(' '),
]);
const CONTROL_TEXT = 200;
const HREF_TEXT = 100;
const NAME_TEXT = 40;
const SHOW_ALL: CheckVisibilityOptions = { visibilityProperty: true };

export const enum Seen {
  /** Not rendered, nor anything inside it. */
  None,
  /** Rendered, but its own text is `visibility: hidden`; a descendant may be visible again. */
  Hidden,
  Shown,
}

/** A control's line; `items` marks a container whose items get lines of their own. */
export interface Control {
  mark: string;
  text: string;
  items?: true;
  /** A link's words, which also belong to the sentence around it. */
  words?: string;
}

export function seen(el: Element): Seen {
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
export function textOf(el: Element): string {
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

/** The name an author gave the element itself: aria-label, title, aria-labelledby. */
function authorName(el: Element): string {
  const own = el.getAttribute('aria-label') || el.getAttribute('title');
  if (own && own.trim()) return clip(normalize(own), CONTROL_TEXT);
  const ids = el.getAttribute('aria-labelledby');
  if (!ids) return '';
  const doc = el.ownerDocument;
  const text = ids.split(/\s+/).map((id) => doc.getElementById(id)?.textContent ?? '');
  return clip(normalize(text.join(' ')), CONTROL_TEXT);
}

/** A name for a control with no text: aria-label, title, or an image's alt inside it. */
function iconName(el: Element): string {
  const own = authorName(el);
  if (own) return own;
  const inner = el.querySelector('img[alt]:not([alt=""]), [aria-label], svg title');
  if (!inner) return '';
  const name =
    inner.getAttribute('alt') ?? inner.getAttribute('aria-label') ?? inner.textContent ?? '';
  return clip(normalize(name), CONTROL_TEXT);
}

/** The words on a control's line: its rendered text, else its icon's name. */
function named(el: Element): string {
  return textOf(el) || iconName(el);
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

/** `[x] label`, `[ ] label` or `[-] label`. */
export function box(checked: boolean, mixed: boolean, label: string): string {
  const state = mixed ? '[-]' : checked ? '[x]' : '[ ]';
  return label ? `${state} ${label}` : state;
}

function valueText(value: string, placeholder: string | null): string {
  const text = normalize(value);
  if (text) return clip(text, CONTROL_TEXT);
  const hint = placeholder ? normalize(placeholder) : '';
  return hint ? `(${clip(hint, CONTROL_TEXT)})` : '';
}

/** The mark of a role, with the control's name where the table asks for one. */
function markOf(el: Element, role: string, fallback: string, unnamed = role): string {
  const spec = ROLE_MARKS[role];
  if (!spec) return fallback;
  return spec.named ? `${spec.mark}-${nameOf(el, unnamed)}` : spec.mark;
}

function inputControl(input: HTMLInputElement): Control | null {
  const role = roleOf(input) ?? '';
  switch (input.type) {
    case 'hidden':
      return null;
    case 'button':
    case 'submit':
    case 'reset':
    case 'image': {
      const text =
        input.type === 'image' ? normalize(input.alt || input.value) : normalize(input.value);
      const fallback = { submit: 'Submit', reset: 'Reset' }[input.type as string] ?? '';
      return { mark: markOf(input, role, '#btn'), text: text || iconName(input) || fallback };
    }
    case 'checkbox':
    case 'radio': {
      const mark = markOf(input, role, input.type === 'checkbox' ? '#chk' : '#rad');
      return { mark, text: box(input.checked, input.indeterminate, labelOf(input)) };
    }
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
        mark: markOf(input, role, `#inp-${nameOf(input, input.type)}`, input.type),
        // A secret typed into a plain field is shown like a password.
        text: isSecretField(input) ? '••••' : valueText(input.value, input.placeholder),
      };
  }
}

function link(a: Element, mark: string, href: string): Control {
  const text = named(a);
  const target = href.trim();
  if (!target || target.toLowerCase().startsWith('javascript:')) return { mark, text, words: text };
  const to = `→ ${clip(target, HREF_TEXT)}`;
  return { mark, text: text ? `${text} ${to}` : to, words: text };
}

/** A custom widget's value: what it says it is (aria-valuetext, -valuenow), else its text. */
function widgetValue(el: Element): string {
  const value = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow');
  return value ? clip(normalize(value), CONTROL_TEXT) : textOf(el);
}

function roleControl(el: Element, role: string): Control | null {
  const spec = ROLE_MARKS[role];
  if (!spec) return null;
  const mark = markOf(el, role, spec.mark);
  switch (spec.reads) {
    case 'checked': {
      const checked = el.getAttribute('aria-checked');
      return { mark, text: box(checked === 'true', checked === 'mixed', named(el)) };
    }
    case 'selected': {
      const text = named(el);
      return { mark, text: el.getAttribute('aria-selected') === 'true' ? `[x] ${text}` : text };
    }
    case 'value':
      // A widget wrapping its own field (ARIA 1.1 combobox): the field inside is the control.
      if (el.querySelector('input, textarea, [contenteditable]')) return null;
      return { mark, text: widgetValue(el) };
    case 'items':
      return { mark, text: authorName(el), items: true };
    default: {
      const href = el.getAttribute('href');
      const linked = (role === 'link' || role === 'menuitem') && href !== null;
      return linked ? link(el, mark, href) : { mark, text: named(el) };
    }
  }
}

/** The control `el` is, or null for text and containers: native elements first, then its role. */
export function controlOf(el: Element, tag: string): Control | null {
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
  }
  const native = tag === 'button' || tag === 'summary' || (tag === 'a' && el.hasAttribute('href'));
  const role = native || el.hasAttribute('role') ? roleOf(el) : null;
  const control = role ? roleControl(el, role) : null;
  if (control) return control;
  // A native control under a role the track does not mark stays what it is.
  if (tag === 'a' && native) return link(el, '#lnk', el.getAttribute('href')!);
  if (native) return { mark: '#btn', text: named(el) };
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
