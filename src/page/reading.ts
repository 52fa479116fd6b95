import { documentId } from './activity.js';
import { deepQueryAll } from './dom.js';
import { elementOf } from './handles.js';
import {
  addressOf,
  fingerprintOf,
  resolveAddress,
  textTrack,
  type TextTrack,
} from './text-track.js';

export interface TrackRequest {
  /** Read only the subtree at this address (from the main frame, through same-origin frames). */
  address?: string;
  /** Read only the elements matching this selector (inside `address` when given). */
  css?: string;
  maxChars?: number;
}

export interface PageTrack extends TextTrack {
  /** Fingerprint of the element behind each line, to tell later whether a ref went stale. */
  prints: string[];
  documentId: string;
}

function printsOf(track: TextTrack): string[] {
  return track.lines.map((l) => {
    const el = resolveAddress(l.address);
    return el ? fingerprintOf(el) : '';
  });
}

/** The text track of the page, a subtree, or the elements a selector picks inside it. */
export function track(request: TrackRequest = {}): PageTrack {
  const root =
    request.address === undefined ? undefined : (resolveAddress(request.address) ?? undefined);
  if (request.address !== undefined && !root) throw new Error('stale: the element to read is gone');
  if (request.css === undefined) {
    const t = textTrack(root, { maxChars: request.maxChars });
    return { ...t, prints: printsOf(t), documentId: documentId() };
  }
  // Keep only outermost matches: a match inside another is already in its track.
  const matches = deepQueryAll(root ?? document, request.css);
  const outer = matches.filter((el) => !matches.some((m) => m !== el && m.contains(el)));
  const parts = outer.map((el) => textTrack(el));
  const lines = parts.flatMap((p) => p.lines);
  const merged: TextTrack = {
    lines,
    text: parts.map((p) => p.text).join('\n'),
    truncated: parts.some((p) => p.truncated),
    closedShadowRoots: parts.reduce((n, p) => n + p.closedShadowRoots, 0),
    frames: parts.reduce((n, p) => n + p.frames, 0),
  };
  if (request.maxChars !== undefined && merged.text.length > request.maxChars) {
    const t = textTrack(outer[0], { maxChars: request.maxChars });
    return { ...t, truncated: true, prints: printsOf(t), documentId: documentId() };
  }
  return { ...merged, prints: printsOf(merged), documentId: documentId() };
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
  if (print !== undefined && fingerprintOf(el) !== print) {
    return { stale: `a different element is there now (<${el.localName}>)` };
  }
  return { element: el };
}
