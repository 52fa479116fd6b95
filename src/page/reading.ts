import { documentId } from './activity.js';
import { deepQueryAll } from './dom.js';
import { elementOf } from './handles.js';
import { addressOf, printOf, resolveAddress, textTrack, type TextTrack } from './text-track.js';

export interface TrackRequest {
  /** Read only the subtree at this address (from the main frame, through same-origin frames). */
  address?: string;
  /** Read only the elements matching this selector (inside `address` when given). */
  css?: string;
  maxChars?: number;
}

/** The track as sent to the server: lines without their rendering (the server renders them). */
export interface PageTrack extends Omit<TextTrack, 'text'> {
  /** Fingerprint of the element behind each line, to tell later whether a ref went stale. */
  prints: string[];
  documentId: string;
}

function withoutText<T extends { text: string }>(t: T): Omit<T, 'text'> {
  const { text: _text, ...rest } = t;
  return rest;
}

/** A text track with the fingerprint of the element behind each line. */
function readWithPrints(
  root: Element | undefined,
  maxChars?: number,
): TextTrack & { prints: string[] } {
  const elements: Element[] = [];
  const t = textTrack(root, { maxChars, elementsOut: elements });
  return { ...t, prints: elements.map(printOf) };
}

/** The text track of the page, a subtree, or the elements a selector picks inside it. */
export function track(request: TrackRequest = {}): PageTrack {
  const root =
    request.address === undefined ? undefined : (resolveAddress(request.address) ?? undefined);
  if (request.address !== undefined && !root) throw new Error('stale: the element to read is gone');
  if (request.css === undefined) {
    return withoutText({ ...readWithPrints(root, request.maxChars), documentId: documentId() });
  }
  // Keep only outermost matches: a match inside another is already in its track.
  const matches = deepQueryAll(root ?? document, request.css);
  const outer = matches.filter((el) => !matches.some((m) => m !== el && m.contains(el)));
  const parts = outer.map((el) => readWithPrints(el));
  const lines = parts.flatMap((p) => p.lines);
  const merged: TextTrack = {
    lines,
    text: parts.map((p) => p.text).join('\n'),
    truncated: parts.some((p) => p.truncated),
    closedShadowRoots: parts.reduce((n, p) => n + p.closedShadowRoots, 0),
    frames: parts.reduce((n, p) => n + p.frames, 0),
  };
  if (request.maxChars !== undefined && merged.text.length > request.maxChars) {
    return {
      ...readWithPrints(outer[0], request.maxChars),
      truncated: true,
      documentId: documentId(),
    };
  }
  return withoutText({
    ...merged,
    prints: parts.flatMap((p) => p.prints),
    documentId: documentId(),
  });
}

/** The absolute address of an element this frame holds. */
export function addressOfHandle(handle: number): string {
  const el = elementOf(handle);
  if (!el) throw new Error('stale: the element was removed from the page or replaced');
  return addressOf(el);
}

/** The element at an address if it still matches the fingerprint it was read with. */
export function refAt(
  address: string,
  print: string | undefined,
): { element?: Element; stale?: string } {
  const el = resolveAddress(address);
  if (!el) return { stale: 'nothing is at that address any more' };
  if (print !== undefined && printOf(el) !== print) {
    return { stale: `a different element is there now (<${el.localName}>)` };
  }
  return { element: el };
}
