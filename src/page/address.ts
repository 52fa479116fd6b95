// Positional addresses of elements (DESIGN §5): the grammar is in track-format.ts. Addresses are
// relative to the document this script runs in; a driver reading a cross-origin frame runs the
// script there and prefixes the frame's own address.
import { appendLevel, levelToken, parseAddress } from './track-format.js';

const SHADOW_ROOT_NODE = 11;

/** The element below which a document's levels are counted. */
export function bodyOf(doc: Document): Element | null {
  return doc.body ?? doc.documentElement;
}

/** Index among the parent's element children, counted from the element itself. */
export function elementIndex(el: Element): number {
  let i = 0;
  for (let s = el.previousElementSibling; s; s = s.previousElementSibling) i++;
  return i;
}

function frameElementOf(doc: Document): Element | null {
  if (doc === document) return null;
  try {
    return doc.defaultView?.frameElement ?? null;
  } catch {
    return null;
  }
}

function segmentOf(el: Element, body: Element): string {
  const levels: number[] = [];
  let cur = el;
  while (cur !== body) {
    const parent = cur.parentNode;
    if (parent === null)
      throw new Error(`<${cur.localName}> is not attached to a document: it has no address`);
    if (parent.nodeType === SHADOW_ROOT_NODE) {
      const root = parent as ShadowRoot;
      if (root.host.shadowRoot !== root) {
        throw new Error(
          `<${el.localName}> is inside a closed shadow root, which no page script can reach`,
        );
      }
      levels.push(root.host.childElementCount + elementIndex(cur));
      cur = root.host;
    } else if (parent.nodeType === 1) {
      levels.push(elementIndex(cur));
      cur = parent as Element;
    } else {
      throw new Error(`<${el.localName}> is outside <body>: only the rendered body has addresses`);
    }
  }
  let address = '^';
  for (let i = levels.length - 1; i >= 0; i--)
    address = appendLevel(address, levelToken(levels[i]));
  return address;
}

/**
 * The element's positional address, through open shadow roots and same-origin frames.
 * Throws for an element outside `<body>`, detached, or inside a closed shadow root.
 */
export function addressOf(el: Element): string {
  let cur: Element = el;
  let address = '';
  for (;;) {
    const doc = cur.ownerDocument;
    const body = bodyOf(doc);
    if (body === null) throw new Error('the document has no body: nothing in it has an address');
    const segment = segmentOf(cur, body);
    address = address ? `${segment}|${address}` : segment;
    const frame = frameElementOf(doc);
    if (frame === null) return address;
    cur = frame;
  }
}

function childAt(parent: Element, index: number): Element | null {
  const light = parent.childElementCount;
  if (index < light) return parent.children[index];
  return parent.shadowRoot?.children[index - light] ?? null;
}

/** The body of a same-origin frame element; null for other elements and cross-origin frames. */
export function frameBody(frame: Element): Element | null {
  if (frame.localName !== 'iframe' && frame.localName !== 'frame') return null;
  try {
    const doc = (frame as HTMLIFrameElement).contentDocument;
    return doc ? bodyOf(doc) : null;
  } catch {
    return null;
  }
}

/** The element at an address, or null when nothing (or an unreachable frame) is there. */
export function resolveAddress(address: string): Element | null {
  const segments = parseAddress(address);
  if (segments === null) return null;
  let cur: Element | null = bodyOf(document);
  for (let s = 0; s < segments.length && cur; s++) {
    if (s > 0) cur = frameBody(cur);
    for (const index of segments[s]) {
      if (cur === null) break;
      cur = childAt(cur, index);
    }
  }
  return cur;
}

const FINGERPRINT_TEXT = 40;

/** The element's own text nodes, whitespace-normalised, pieces separated by one space. */
export function ownText(el: Element): string {
  let text = '';
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 3) text += (n as Text).data;
    else if (n.nodeType === 1 && text) text += ' ';
  }
  return text && normalize(text);
}

/** Collapses whitespace runs (newlines included) to one space and trims. */
export function normalize(text: string): string {
  const trimmed = text.trim();
  // Most text is already clean: test before allocating a replacement.
  return trimmed && /\s\s|[^\S ]/.test(trimmed) ? trimmed.replace(/\s+/g, ' ') : trimmed;
}

/**
 * Tag, own text (first 40 characters) and name/type/href where present: enough to tell that a ref
 * still points at the element it was read from, without changing when a field's value does.
 */
export function fingerprintOf(el: Element): string {
  let print = `${el.localName}|${ownText(el).slice(0, FINGERPRINT_TEXT)}`;
  for (const attr of ['name', 'type', 'href']) {
    const value = el.getAttribute(attr);
    if (value !== null) print += `|${attr}=${value}`;
  }
  return print;
}

/** The fingerprint as a short hash (FNV-1a, base 36): what travels to the server and back. */
export function printOf(el: Element): string {
  const text = fingerprintOf(el);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}
