import type { BrowserTab } from '../drivers/driver.js';
import { callPage, type PageCallResult } from '../drivers/page-script.js';
import type { TrackRequest } from '../page/reading.js';
import { fittingPrefix, parseAddress, renderTrack, type TrackLine } from '../page/track-format.js';
import type { ReadingMemory, TrackSnapshot } from '../sessions/reading-memory.js';
import { AwaitingServerError } from '../drivers/driver.js';
import { frameAt } from './element.js';
import {
  bounded,
  DEFAULT_FRAME_LIMITS,
  frameDepth,
  inFrame,
  MAIN_FRAME,
  type FrameLimits,
  type FrameSpot,
  type UnreadFrame,
} from './frames.js';
import type { Baseline } from './settle.js';

/**
 * The milliseconds a page walk may take when the op must answer by `deadline`: what is left, less
 * a part kept for carrying the lines across, diffing and answering. Undefined: no bound.
 */
export function walkBudget(deadline: number | undefined, share = 1): number | undefined {
  if (deadline === undefined) return undefined;
  const left = (deadline - Date.now()) * share;
  // Lines cost as much again to carry as to read, more under load: the walk gets under half.
  return Math.max(Math.round(Math.min(left * 0.45, left - 400)), 100);
}

/** The sentence an answer carries when a walk ran out of time. */
export function cutNote(elements: number, advice = SNAPSHOT_A_PART): string {
  return `cut: the page has ${elements} elements and the op's time ran out before all were read; ${advice}`;
}

export const SNAPSHOT_A_PART = 'snapshot a part of it with target or css';

function snapshotOf(tab: BrowserTab, t: FramedTrack): TrackSnapshot {
  const snapshot: TrackSnapshot = {
    tabId: tab.id,
    documentId: t.documentId,
    url: tab.url(),
    lines: t.lines,
    prints: t.prints,
  };
  if (t.still) snapshot.still = t.still;
  if (t.cut) snapshot.cutAt = t.cut.elements;
  return snapshot;
}

type PageTrack = PageCallResult<'track'>;
/** A track of every frame: what was left out says why, a frame that did not answer included. */
export type FramedTrack = Omit<PageTrack, 'skippedFrames'> & { skippedFrames?: UnreadFrame[] };

function prefixed(t: PageTrack, frame: string): PageTrack {
  if (!frame) return t;
  const lines = t.lines.map((l) => ({ ...l, address: inFrame(frame, l.address) }));
  const skipped = t.skippedFrames?.map((f) => ({ ...f, address: inFrame(frame, f.address) }));
  return { ...t, lines, ...(skipped ? { skippedFrames: skipped } : {}) };
}

/**
 * The text track of a document of the tab (the main one by default) with the cross-origin frames
 * it could not read read through the driver, each frame's lines in its place in document order,
 * within MAX_FRAMES and MAX_FRAME_DEPTH. A page without such frames costs its one call.
 */
export async function trackAcrossFrames(
  tab: BrowserTab,
  request: TrackRequest,
  limits: FrameLimits = DEFAULT_FRAME_LIMITS,
  at: FrameSpot = MAIN_FRAME,
): Promise<FramedTrack> {
  const depthLeft = limits.depth - frameDepth(at.address);
  const own = { ...request, maxFrames: limits.max, maxFrameDepth: depthLeft };
  const t = prefixed(await callPage(tab, at.path, 'track', own), at.address);
  const cross = (t.skippedFrames ?? []).filter((f) => f.reason === 'cross-origin');
  if (cross.length === 0 || t.truncated) return t;
  const lines = [...t.lines];
  const prints = [...t.prints];
  const skipped: UnreadFrame[] = (t.skippedFrames ?? []).filter((f) => f.reason !== 'cross-origin');
  let left = limits.max - t.frames;
  let frames = t.frames;
  for (const queue = [...cross]; queue.length > 0;) {
    const { address } = queue.shift()!;
    if (left <= 0) {
      skipped.push({ address, reason: 'limit' });
      continue;
    }
    left--;
    let sub: PageTrack;
    try {
      const path = await bounded(frameAt(tab, undefined, address, `The frame at ${address}`));
      const inner = {
        budgetMs: request.budgetMs,
        maxFrames: left,
        maxFrameDepth: limits.depth - frameDepth(address),
      };
      sub = prefixed(await bounded(callPage(tab, path, 'track', inner)), address);
    } catch (e) {
      if (e instanceof AwaitingServerError) throw e;
      skipped.push({ address, reason: 'unreadable' });
      continue;
    }
    left -= sub.frames;
    frames += 1 + sub.frames;
    const anchor = orderKey(address) ?? [];
    const at = lines.findIndex(
      (l) => comesAfter(l.address, anchor) && !l.address.startsWith(`${address}|`),
    );
    const place = at < 0 ? lines.length : at;
    lines.splice(place, 0, ...sub.lines);
    prints.splice(place, 0, ...sub.prints);
    for (const f of sub.skippedFrames ?? [])
      if (f.reason === 'cross-origin') queue.push(f);
      else skipped.push(f);
  }
  const { skippedFrames: _skipped, ...rest } = t;
  return { ...rest, lines, prints, frames, ...(skipped.length ? { skippedFrames: skipped } : {}) };
}

/** Reads the text track of a tab (or part of it) as a snapshot the memory can keep. */
export async function readTrack(
  tab: BrowserTab,
  request: TrackRequest = {},
  limits: FrameLimits = DEFAULT_FRAME_LIMITS,
  at: FrameSpot = MAIN_FRAME,
) {
  const t = await trackAcrossFrames(tab, request, limits, at);
  return {
    snapshot: snapshotOf(tab, t),
    text: renderTrack(t.lines),
    truncated: t.truncated,
    cut: t.cut,
    closedShadowRoots: t.closedShadowRoots,
    skippedFrames: t.skippedFrames,
  };
}

/** Words that change what a model should do next when they appear (Cancelled, Refunded…). */
const STATUS_WORDS =
  /\b(cancell?ed|refunded|failed|failure|error|declined|rejected|expired|denied|invalid|required|success(?:ful(?:ly)?)?|saved|deleted|removed|completed|confirmed|shipped|pending|sent|paid)\b/gi;

const key = (l: TrackLine) => `${l.address}\u0000${l.mark ?? ''}\u0000${l.text}`;

export interface Changes {
  /** The lines that appeared, as text-track text. */
  added?: string;
  removed_count?: number;
  removed?: string[];
  no_change?: true;
  /** On a new document: what was left out because this caller was shown it already. */
  withheld?: string;
  status_hint?: string[];
  truncated?: true;
  /** With truncated: the call that returns the rest, from the line after the last one shown. */
  rest?: RestCall;
  note?: string;
  /** Opt-in: tag and attribute lines that appeared (+) or left (-). */
  element_diff?: string;
}

export interface ChangeOptions {
  includeRemoved: boolean;
  maxChars: number;
  /** A reload repeats the page on purpose: nothing is withheld. */
  withholdNothing: boolean;
  /** Epoch ms by which the op answers: the walk gets what is left of it (walkBudget). */
  deadline?: number;
  /** Frames read at most, and how deep (MAX_FRAMES, MAX_FRAME_DEPTH). */
  frames?: FrameLimits;
}

function statusHint(lines: TrackLine[]): string[] | undefined {
  const words = new Set<string>();
  for (const l of lines) for (const m of l.text.matchAll(STATUS_WORDS)) words.add(m[0]);
  return words.size ? [...words] : undefined;
}

function cut(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const end = text.lastIndexOf('\n', maxChars);
  return { text: text.slice(0, end > 0 ? end : maxChars), truncated: true };
}

/** `snapshot {after}`: where a reader cut short picks up (DESIGN §5: nothing is unreachable). */
export interface RestCall {
  op: 'snapshot';
  /** A part read (target, css, max_chars) continues as the same part. */
  args: { after: string } & Record<string, unknown>;
}

export const restAfter = (line: TrackLine): RestCall => ({
  op: 'snapshot',
  args: { after: line.address },
});

/**
 * The first lines whose rendering fits in `maxChars` (whole lines: the rendering groups them, so
 * the count is searched for), and the call that returns the rest when some were left out.
 */
export function cutLines(
  lines: TrackLine[],
  maxChars: number,
): { text: string; shown: TrackLine[]; rest?: RestCall } {
  const text = renderTrack(lines);
  if (text.length <= maxChars) return { text, shown: lines };
  const fits = fittingPrefix(lines, maxChars);
  // One line longer than the budget: it is cut, so the reader still gets a start.
  if (fits === 0)
    return { text: cut(text, maxChars).text, shown: lines.slice(0, 1), rest: restAfter(lines[0]) };
  const shown = lines.slice(0, fits);
  return { text: renderTrack(shown), shown, rest: restAfter(shown[fits - 1]) };
}

/** Levels of an address from the page's body down, frames included: document order sorts them. */
function orderKey(address: string): number[] | null {
  return parseAddress(address)?.flat() ?? null;
}

/** True when `address` comes after `anchor` in document order (descendants of `anchor` do). */
export function comesAfter(address: string, anchor: number[]): boolean {
  const key = orderKey(address);
  if (!key) return false;
  for (let i = 0; i < Math.min(key.length, anchor.length); i++)
    if (key[i] !== anchor[i]) return key[i] > anchor[i];
  return key.length > anchor.length;
}

/** The lines after the one at `after`, in document order (that line may have gone since). */
export function linesAfter(lines: TrackLine[], after: string): TrackLine[] | null {
  const anchor = orderKey(after);
  return anchor ? lines.filter((l) => comesAfter(l.address, anchor)) : null;
}

/** Same document: what appeared and what left. */
export function diffTracks(
  before: TrackSnapshot,
  after: TrackSnapshot,
  options: ChangeOptions,
): { changes: Changes; shown: TrackLine[] } {
  // A walk cut for time read the page only up to its last line: past it, the other read is no
  // evidence that anything appeared or left.
  const ends = [before, after].filter((t) => t.cutAt !== undefined && t.lines.length > 0);
  const stops = ends.map((t) => orderKey(t.lines[t.lines.length - 1].address));
  const reached = (l: TrackLine) => stops.every((stop) => !stop || !comesAfter(l.address, stop));
  const beforeLines = stops.length ? before.lines.filter(reached) : before.lines;
  const afterLines = stops.length ? after.lines.filter(reached) : after.lines;
  const had = new Set(beforeLines.map(key));
  const has = new Set(afterLines.map(key));
  const added = afterLines.filter((l) => !had.has(key(l)));
  const removed = beforeLines.filter((l) => !has.has(key(l)));
  if (added.length === 0 && removed.length === 0)
    return { changes: { no_change: true }, shown: [] };
  const changes: Changes = {};
  let shown: TrackLine[] = [];
  if (added.length) {
    const cutShort = cutLines(added, options.maxChars);
    shown = cutShort.shown;
    changes.added = cutShort.text;
    if (cutShort.rest) Object.assign(changes, { truncated: true, rest: cutShort.rest });
  }
  if (removed.length) changes.removed_count = removed.length;
  if (options.includeRemoved && removed.length) changes.removed = removed.map((l) => l.text);
  const hint = statusHint(shown);
  if (hint) changes.status_hint = hint;
  return { changes, shown };
}

/** Withholding fewer characters than this is not worth the line that explains it. */
const WORTH_WITHHOLDING = 200;

/**
 * A new document: the page minus every line this caller was already shown, with one line saying
 * how many were withheld and on which page they were read (DESIGN §5).
 */
export function newPageChanges(
  after: TrackSnapshot,
  memory: ReadingMemory,
  options: ChangeOptions,
): { changes: Changes; shown: TrackLine[] } {
  const firstShown = after.lines.map((l) =>
    options.withholdNothing ? undefined : memory.firstShownOn(l.text),
  );
  const fresh = after.lines.filter((_, i) => firstShown[i] === undefined);
  const withheldChars = after.lines.reduce(
    (n, l, i) => (firstShown[i] === undefined ? n : n + l.address.length + l.text.length + 2),
    0,
  );
  let shown = fresh;
  let note: string | undefined;
  if (withheldChars < WORTH_WITHHOLDING) {
    shown = after.lines;
  } else if (fresh.length === 0) {
    // All of it was seen: the controls are what the caller needs to act here.
    shown = after.lines.filter((l) => l.mark !== undefined);
    note =
      'every line here was shown before; its controls are listed — snapshot for the whole page';
  }
  // Count, per page, only the lines actually left out.
  const kept = new Set(shown);
  const seenOn = new Map<string, number>();
  after.lines.forEach((l, i) => {
    const page = firstShown[i];
    if (page !== undefined && !kept.has(l)) seenOn.set(page, (seenOn.get(page) ?? 0) + 1);
  });
  const changes: Changes = {};
  const cutShort = cutLines(shown, options.maxChars);
  if (cutShort.text) changes.added = cutShort.text;
  if (cutShort.rest) Object.assign(changes, { truncated: true, rest: cutShort.rest });
  const withheldCount = after.lines.length - shown.length;
  if (withheldCount > 0) {
    const where = [...seenOn.entries()].map(([url, n]) => `${n} read on ${url}`).join('; ');
    changes.withheld = `${withheldCount} lines already shown were left out (${where}); snapshot returns them`;
  }
  if (note) changes.note = note;
  const hint = statusHint(cutShort.shown);
  if (hint) changes.status_hint = hint;
  // Lines past the cut were not shown: a later page must not withhold them.
  return { changes, shown: cutShort.shown };
}

/** The track to diff against: the last one read, if the page has not changed since. */
export async function trackBaseline(
  tab: BrowserTab,
  memory: ReadingMemory,
  before: Baseline,
  deadline?: number,
  limits?: FrameLimits,
): Promise<TrackSnapshot | undefined> {
  const last = memory.baseline(tab.id);
  // Unreadable now (a dialog blocks it): the last read stands in; a new document is detected after.
  if (before.documentId === null) return last;
  const unchanged =
    last?.documentId === before.documentId && last.url === before.url && before.mutations === 0;
  if (unchanged) return last;
  try {
    // A third of the op's time: the action and the read after it need the rest.
    return (await readTrack(tab, { budgetMs: walkBudget(deadline, 1 / 3) }, limits)).snapshot;
  } catch {
    return last;
  }
}

/**
 * What an action changed: a diff on the same document, the new page otherwise. When the page
 * says nothing that renders can have changed since the baseline was read (stillness.ts), the
 * answer is no_change without a second walk.
 */
export async function changesAfter(
  tab: BrowserTab,
  before: TrackSnapshot | undefined,
  memory: ReadingMemory,
  options: ChangeOptions,
): Promise<Changes> {
  // The walk sets the action's mark itself: the next op's changes count from this read.
  const request: TrackRequest = { budgetMs: walkBudget(options.deadline), mark: true };
  const read =
    before?.still && before.documentId
      ? await callPage(tab, [], 'trackUnlessStill', request, before.still)
      : await trackAcrossFrames(tab, request, options.frames);
  // Still: the baseline stands, and the action's mark still counts from before it.
  if ('unchanged' in read) return { no_change: true };
  const after = snapshotOf(tab, read);
  const { closedShadowRoots, cut } = read;
  memory.setBaseline(after);
  let result: { changes: Changes; shown: TrackLine[] };
  if (before && before.documentId === after.documentId) {
    result = diffTracks(before, after, options);
    if (result.changes.no_change && closedShadowRoots > 0) {
      result.changes.note = `no readable change; ${closedShadowRoots} closed shadow root(s) here cannot be read — a screenshot shows them`;
    }
  } else {
    result = newPageChanges(after, memory, options);
  }
  memory.remember(after, result.shown, false);
  const changes = result.changes;
  const cutAt =
    cut?.elements ?? (before?.documentId === after.documentId ? before?.cutAt : undefined);
  if (cutAt !== undefined) {
    changes.truncated = true;
    const note = cutNote(cutAt);
    changes.note = changes.note ? `${changes.note}; ${note}` : note;
  }
  return changes;
}

export type Shells = { address: string; shell: string }[];

/** Element shells of the page, for `element_diff`. */
export function readShells(tab: BrowserTab): Promise<Shells> {
  return callPage(tab, [], 'elementShells');
}

const ELEMENT_DIFF_CHARS = 2000;

/** `+ AB <button disabled>` / `- AB <button>` lines, cut at a small budget (DESIGN §5: opt-in). */
export function elementDiff(before: Shells, after: Shells): string | undefined {
  const line = (s: { address: string; shell: string }) => `${s.address} ${s.shell}`;
  const had = new Set(before.map(line));
  const has = new Set(after.map(line));
  const lines = [
    ...after.filter((s) => !had.has(line(s))).map((s) => `+ ${line(s)}`),
    ...before.filter((s) => !has.has(line(s))).map((s) => `- ${line(s)}`),
  ];
  if (lines.length === 0) return undefined;
  const { text, truncated } = cut(lines.join('\n'), ELEMENT_DIFF_CHARS);
  return truncated ? `${text}\n… (more element changes left out)` : text;
}
