import { documentId, mark } from './activity.js';
import { Budget } from './budget.js';
import { stillness, stillSince, type Stillness } from './stillness.js';
import { deepQueryAll } from './dom.js';
import { elementOf } from './handles.js';
import { addressOf, printOf, resolveAddress, textTrack, type TextTrack } from './text-track.js';

export interface TrackRequest {
  /** Read only the subtree at this address (from the main frame, through same-origin frames). */
  address?: string;
  /** Read only the elements matching this selector (inside `address` when given). */
  css?: string;
  maxChars?: number;
  /** Milliseconds the walk may take; past them it stops and the track says it was cut. */
  budgetMs?: number;
  /** Same-origin frames read at most, and how deep (MAX_FRAMES, MAX_FRAME_DEPTH). */
  maxFrames?: number;
  maxFrameDepth?: number;
  /**
   * Sets the activity mark (activity.ts) once the walk is done: the next action's changes count
   * from this read, with no call of its own.
   */
  mark?: boolean;
}

/** The track as sent to the server: lines without their rendering (the server renders them). */
export interface PageTrack extends Omit<TextTrack, 'text'> {
  /** Fingerprint of the element behind each line, to tell later whether a ref went stale. */
  prints: string[];
  documentId: string;
  /**
   * Present on a track of the whole page whose every change the page can see (no shadow roots,
   * no frames): what `trackUnlessStill` compares to tell that a new read would be the same.
   */
  still?: Stillness;
}

/** Every shadow tree and frame is outside the document's mutation observer (stillness.ts). */
function observable(t: TextTrack): boolean {
  return t.frames === 0 && !t.skippedFrames && !t.shadowRoots && t.closedShadowRoots === 0;
}

function withoutText<T extends { text: string }>(t: T): Omit<T, 'text'> {
  const { text: _text, ...rest } = t;
  return rest;
}

/** A text track with the fingerprint of the element behind each line. */
function readWithPrints(
  root: Element | undefined,
  budget: Budget,
  request: TrackRequest,
  maxChars?: number,
): TextTrack & { prints: string[] } {
  const elements: Element[] = [];
  const { maxFrames, maxFrameDepth } = request;
  const t = textTrack(root, { maxChars, elementsOut: elements, budget, maxFrames, maxFrameDepth });
  return { ...t, prints: elements.map(printOf) };
}

/** The matches not inside another match (a match inside one is already in its track). */
function outermost(matches: Element[]): Element[] {
  const set = new Set(matches);
  return matches.filter((el) => {
    for (let p = el.parentElement; p; p = p.parentElement) if (set.has(p)) return false;
    return true;
  });
}

/** The text track of the page, a subtree, or the elements a selector picks inside it. */
export function track(request: TrackRequest = {}): PageTrack {
  const read = walk(request);
  if (request.mark) mark();
  return read;
}

function walk(request: TrackRequest): PageTrack {
  const budget = new Budget(request.budgetMs);
  const root =
    request.address === undefined ? undefined : (resolveAddress(request.address) ?? undefined);
  if (request.address !== undefined && !root) throw new Error('stale: the element to read is gone');
  if (request.css === undefined) {
    const whole = readWithPrints(root, budget, request, request.maxChars);
    const t: PageTrack = { ...withoutText(whole), documentId: documentId() };
    if (root === undefined && observable(whole)) t.still = stillness();
    return t;
  }
  const outer = outermost(deepQueryAll(root ?? document, request.css, budget));
  const parts: (TextTrack & { prints: string[] })[] = [];
  for (const el of outer) {
    if (budget.cut) break;
    parts.push(readWithPrints(el, budget, request));
  }
  const merged: TextTrack = {
    lines: parts.flatMap((p) => p.lines),
    text: parts.map((p) => p.text).join('\n'),
    truncated: budget.cut || parts.some((p) => p.truncated),
    closedShadowRoots: parts.reduce((n, p) => n + p.closedShadowRoots, 0),
    frames: parts.reduce((n, p) => n + p.frames, 0),
  };
  if (budget.cut) merged.cut = budget.report();
  if (request.maxChars !== undefined && merged.text.length > request.maxChars) {
    return {
      ...readWithPrints(outer[0], new Budget(budget.left()), request, request.maxChars),
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

/**
 * The track of the whole page, unless nothing that renders can have changed since the track that
 * `then` came with: one call either way, and no walk when the page is still.
 */
export function trackUnlessStill(
  request: TrackRequest,
  then: Stillness | undefined,
): PageTrack | { unchanged: true } {
  return then && stillSince(then) ? { unchanged: true } : track(request);
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
