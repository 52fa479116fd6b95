import { OpError } from '../core/errors.js';
import { regexRisk } from '../core/regex-risk.js';
import type { TargetSummary } from '../core/result.js';
import { describeTarget, strategyOf, type Target } from '../core/target.js';
import type { BrowserTab, FramePath } from '../drivers/driver.js';
import { callPage } from '../drivers/page-script.js';
import type { ViewportBox } from '../logs/log-line.js';
import type {
  ActAnswer,
  Actionability,
  ActRequest,
  ControlInfo,
  ElementInfo,
  LocateResult,
  PageTarget,
  ProbeOptions,
  TextMatcher,
} from '../page/protocol.js';
import { OTHER_DOCUMENT } from '../page/protocol.js';
import type { ChildFrame } from '../page/frames.js';
import type { ReadingMemory } from '../sessions/reading-memory.js';
import {
  acrossFrames,
  belowFrame,
  DEFAULT_FRAME_LIMITS,
  inFrame,
  MAIN_FRAME,
  unreadNote,
  type AcrossFrames,
  type FrameLimits,
  type FrameSpot,
  type UnreadFrame,
} from './frames.js';

/** An element found for a target: where it lives and what it is. */
export interface FoundElement {
  frame: FramePath;
  /** The address of the frame element it is in ('' for the main frame): the prefix of its refs. */
  frameAddress: string;
  handle: number;
  info: ElementInfo;
  target: Target;
  candidates: number;
}

/**
 * What the element lookups of one op share, passed explicitly by the runner (no state kept per
 * tab): the session's reading memory, which checks refs, and what the lookups leave behind.
 */
export interface ElementContext {
  reading: ReadingMemory;
  /** How many frames a search enters, and how deep (MAX_FRAMES, MAX_FRAME_DEPTH). */
  frames?: FrameLimits;
  /** The box of the element this op last probed, in viewport coordinates: the log frame draws it. */
  probed?: ViewportBox;
  /** The element this op last found able to take input: an answer given before its handler returns names it. */
  actionable?: TargetSummary;
  /** Ms spent in each kind of page call of the lookups, in first-use order (the bench reads it). */
  spans?: Record<string, number>;
}

/** Times one page call of a lookup into the context's spans. */
async function timed<T>(
  elements: ElementContext | undefined,
  name: string,
  call: Promise<T>,
): Promise<T> {
  if (!elements) return call;
  const t = performance.now();
  try {
    return await call;
  } finally {
    const spans = (elements.spans ??= {});
    spans[name] = (spans[name] ?? 0) + Math.round((performance.now() - t) * 10) / 10;
  }
}

/** A ref is positional: split at frames, each checked against what was read (DESIGN §5). */
async function findByRef(
  tab: BrowserTab,
  elements: ElementContext,
  target: Target,
): Promise<FoundElement> {
  const address = target.ref!;
  const documentId = await timed(elements, 'documentId', callPage(tab, [], 'documentId'));
  const print = elements.reading.printOf(tab.id, documentId, address);
  if (print === undefined) throw refNotShown(tab, address);
  const parts = address.split('|');
  const frameAddress = parts.slice(0, -1).join('|');
  const frame = await frameAt(tab, elements, frameAddress, `Ref ${address}`);
  const last = parts[parts.length - 1];
  const located = await timed(
    elements,
    'locate',
    callPage(tab, frame, 'locate', { strategy: 'ref', value: last, print }, undefined),
  );
  return refFound(tab, target, located, frame, frameAddress);
}

/** A ref not among the addresses this session was shown on the page the tab shows now. */
function refNotShown(tab: BrowserTab, address: string): OpError {
  return new OpError(
    'stale_element',
    `Ref ${address} is not an address this session was shown on the current page of ${tab.url()} (it may be from an earlier page, or a group heading rather than a line). Take a snapshot and use a ref from it.`,
    { final: true },
  );
}

/** The element a ref's locate found, or why it is stale. */
function refFound(
  tab: BrowserTab,
  target: Target,
  located: LocateResult,
  frame: FramePath,
  frameAddress: string,
): FoundElement {
  const address = target.ref!;
  if (located.stale === OTHER_DOCUMENT) throw refNotShown(tab, address);
  const match = located.matches[0];
  if (!match) {
    throw new OpError(
      'stale_element',
      `Ref ${address} points at something else since it was read: ${located.stale ?? 'the page changed'}. Take a new snapshot and retry with a fresh ref.`,
      { final: true },
    );
  }
  return {
    frame,
    frameAddress,
    handle: match.handle,
    info: { ...match, ref: address },
    target,
    candidates: 1,
  };
}

/** The frame path of a frame address (`B`, `B|C`): each frame element located in its parent. */
export async function frameAt(
  tab: BrowserTab,
  elements: ElementContext | undefined,
  frameAddress: string,
  what: string,
): Promise<FramePath> {
  const frame: number[] = [];
  if (!frameAddress) return frame;
  for (const part of frameAddress.split('|')) {
    const located = await timed(
      elements,
      'locate',
      callPage(tab, frame, 'locate', { strategy: 'ref', value: part }, undefined),
    );
    if (!located.matches[0])
      throw new OpError('stale_element', `${what}: its frame is gone. Take a new snapshot.`, {
        final: true,
      });
    frame.push(located.matches[0].handle);
  }
  return frame;
}

/**
 * `/regex/flags` is a regular expression; anything else is exact text. A regex that does not
 * compile, or whose shape can backtrack for exponential time in the page, is invalid_argument.
 */
export function textMatcher(text: string): TextMatcher {
  const m = /^\/(.+)\/([dgimsuy]*)$/s.exec(text);
  if (!m) return { exact: text };
  const matcher = { regex: m[1], flags: m[2].replace('g', '') };
  try {
    new RegExp(matcher.regex, matcher.flags);
  } catch (e) {
    throw new OpError(
      'invalid_argument',
      `${text} is not a regular expression: ${(e as Error).message}.`,
    );
  }
  const risk = regexRisk(matcher.regex);
  if (risk)
    throw new OpError(
      'invalid_argument',
      `${text} is refused: ${risk}. It would run inside the page, where one match cannot be stopped. Write it without the nested repeat (e.g. /^x+y$/ for /^(x+x+)+y$/), or give the exact text.`,
    );
  return matcher;
}

export function pageTarget(target: Target): PageTarget {
  const strategy = strategyOf(target);
  const value = String(target[strategy] ?? '');
  const out: PageTarget = { strategy, value };
  if (strategy === 'text' || strategy === 'label' || strategy === 'placeholder')
    out.match = textMatcher(value);
  if (strategy === 'role' && target.name !== undefined) out.name = textMatcher(target.name);
  if (target.near) out.near = textMatcher(target.near);
  return out;
}

/** A match and the frame it was found in. */
interface FrameMatch {
  spot: FrameSpot;
  info: ElementInfo;
}

/** What a target matched in every frame searched, judged as one document would be. */
interface Located {
  matches: FrameMatch[];
  sameRole?: string[];
  error?: string;
  unread: UnreadFrame[];
}

function candidateList(matches: FrameMatch[]) {
  return matches.slice(0, 10).map(({ spot, info: m }, nth) => ({
    nth,
    element: m.desc,
    ...(m.role ? { role: m.role } : {}),
    ...((m.name ?? m.text) ? { text: m.name ?? m.text } : {}),
    ...(spot.address ? { frame: spot.address } : {}),
  }));
}

/** Matches of every frame: visible ones only when any frame has one (DESIGN §3.3). */
function merged(search: AcrossFrames<LocateResult>): Located {
  const error = search.answers.find((a) => a.value.error)?.value.error;
  const all = search.answers.flatMap(({ spot, value }) =>
    value.matches.map((info) => ({ spot, info })),
  );
  const anyVisible = all.some((m) => m.info.visible);
  const located: Located = {
    matches: anyVisible ? all.filter((m) => m.info.visible) : all,
    unread: search.unread,
  };
  const sameRole = search.answers.flatMap((a) => a.value.sameRole ?? []);
  if (sameRole.length) located.sameRole = sameRole.slice(0, 8);
  if (error) located.error = error;
  return located;
}

/** Where a lookup runs: the frame it starts in (its frames below too) or one `within` element. */
export interface Scope {
  start: FrameSpot;
  /** Set with `within`: the search is that element's subtree, in its frame only. */
  scope?: number;
}

/** The frame a target's `frame` names, and the `within` element holding the target. */
export async function scopeOf(
  tab: BrowserTab,
  elements: ElementContext,
  target: Target,
  start: FrameSpot,
): Promise<Scope> {
  if (target.frame) {
    const iframe = await findElement(tab, elements, target.frame, start);
    if (!['iframe', 'frame'].includes(iframe.info.tag)) {
      throw new OpError(
        'invalid_argument',
        `frame ${describeTarget(target.frame)} names a <${iframe.info.tag}>, not an iframe.`,
      );
    }
    const own = await callPage(tab, iframe.frame, 'addressOf', iframe.handle);
    start = { path: [...iframe.frame, iframe.handle], address: inFrame(iframe.frameAddress, own) };
  }
  if (!target.within) return { start };
  const within = await findElement(tab, elements, target.within, start);
  return { start: spotOf(within), scope: within.handle };
}

const spotOf = (found: FoundElement): FrameSpot => ({
  path: found.frame,
  address: found.frameAddress,
});

/**
 * Makes a page call in every frame of a scope (the `within` element's frame alone when it has
 * one); the call is given the `within` element's handle in that frame.
 */
export async function inScope<T extends { frames?: ChildFrame[] }>(
  tab: BrowserTab,
  elements: ElementContext,
  where: Scope,
  call: (spot: FrameSpot, scope: number | undefined) => Promise<T>,
): Promise<AcrossFrames<T>> {
  if (where.scope !== undefined)
    return {
      answers: [{ spot: where.start, value: await call(where.start, where.scope) }],
      unread: [],
    };
  return acrossFrames(limitsOf(elements), (spot) => call(spot, undefined), where.start);
}

/** Every match of a target in every frame of its scope, one `locate` per frame. */
async function locateEverywhere(
  tab: BrowserTab,
  elements: ElementContext,
  target: Target,
  where: Scope,
): Promise<Located> {
  const request = pageTarget(target);
  return merged(
    await inScope(tab, elements, where, (spot, scope) =>
      timed(elements, 'locate', callPage(tab, spot.path, 'locate', request, scope)),
    ),
  );
}

export const limitsOf = (elements: ElementContext) => elements.frames ?? DEFAULT_FRAME_LIMITS;

/** The one element of what was located, or the error that says why there is not exactly one. */
function chosen(tab: BrowserTab, target: Target, located: Located): FoundElement {
  const where = `on ${tab.url()}`;
  if (located.error)
    throw new OpError('invalid_argument', `${describeTarget(target)}: ${located.error}`);
  const { matches } = located;
  const framed = matches.some((m) => m.spot.address);
  const frames = framed ? ' (in several frames: each candidate names its frame)' : '';
  if (matches.length === 0) {
    const nearMiss = located.sameRole?.length
      ? ` Elements with role ${target.role} here: ${located.sameRole.map((n) => JSON.stringify(n)).join(', ')}.`
      : '';
    const unread = unreadNote(located.unread);
    throw new OpError(
      'not_found',
      `No element matches ${describeTarget(target)} ${where}.${nearMiss}${unread ? ` Not searched: ${unread}.` : ''} Check the target with outline or snapshot.`,
      unread ? { details: { unread_frames: located.unread } } : undefined,
    );
  }
  if (target.nth === undefined && matches.length > 1) {
    throw new OpError(
      'ambiguous',
      `${matches.length} elements match ${describeTarget(target)} ${where}${frames}; add nth (0-based), near, within or frame to pick one.`,
      {
        details: { candidates: candidateList(matches) },
      },
    );
  }
  const nth = target.nth ?? 0;
  if (nth >= matches.length) {
    throw new OpError(
      'not_found',
      `${describeTarget(target)}: nth is ${nth} but only ${matches.length} element(s) match ${where}.`,
    );
  }
  const { spot, info } = matches[nth];
  return {
    frame: spot.path,
    frameAddress: spot.address,
    handle: info.handle,
    info,
    target,
    candidates: matches.length,
  };
}

/**
 * Finds the one element a target names, in every frame of the tab (or of `start`), through
 * `frame` and `within`: matches in several frames are ambiguous as in one document.
 */
export async function findElement(
  tab: BrowserTab,
  elements: ElementContext,
  target: Target,
  start: FrameSpot = MAIN_FRAME,
): Promise<FoundElement> {
  if (target.ref !== undefined) return findByRef(tab, elements, target);
  const where = await scopeOf(tab, elements, target, start);
  return chosen(tab, target, await locateEverywhere(tab, elements, target, where));
}

export function summarise(found: FoundElement): TargetSummary {
  const { info } = found;
  const element: TargetSummary['element'] = { tag: info.tag };
  if (info.ref) element.ref = info.ref;
  if (info.role) element.role = info.role;
  if (info.name) element.name = info.name;
  else if (info.text) element.text = info.text;
  if (found.frameAddress) element.frame = found.frameAddress;
  return { element, strategy: strategyOf(found.target), candidates: found.candidates };
}

/** Adds up iframe offsets so a point inside a frame becomes a point in the main viewport. */
export async function frameOrigin(
  tab: BrowserTab,
  frame: FramePath,
): Promise<{ x: number; y: number }> {
  let x = 0;
  let y = 0;
  for (let i = 0; i < frame.length; i++) {
    const offset = await callPage(tab, frame.slice(0, i), 'frameOffset', frame[i]);
    if (!offset)
      throw new OpError('stale_element', 'The iframe holding the element was removed or replaced.');
    x += offset.x;
    y += offset.y;
  }
  return { x, y };
}

/**
 * The frame's origin once the element's point lies in the main viewport: the probe scrolls only
 * inside the element's own frame, so the frames holding it are scrolled into view, outermost first.
 */
async function originInView(
  tab: BrowserTab,
  found: FoundElement,
  point: { x: number; y: number },
): Promise<{ x: number; y: number }> {
  const shown = (o: { x: number; y: number }) => {
    const { width, height } = tab.viewport();
    const x = point.x + o.x;
    const y = point.y + o.y;
    return x >= 0 && y >= 0 && x <= width && y <= height;
  };
  const origin = await frameOrigin(tab, found.frame);
  if (found.frame.length === 0 || shown(origin)) return origin;
  for (let i = 0; i < found.frame.length; i++)
    await callPage(tab, found.frame.slice(0, i), 'scrollIntoView', found.frame[i]);
  const scrolled = await frameOrigin(tab, found.frame);
  if (shown(scrolled)) return scrolled;
  throw new OpError(
    'not_actionable',
    `${describeTarget(found.target)} on ${tab.url()}: its frame is outside the viewport and could not be scrolled into view; try scroll with the frame as target, or resize.`,
    { details: { blocker: 'offscreen', element: found.info.desc } },
  );
}

export interface ActionableElement extends FoundElement {
  /** Centre and box in main-viewport coordinates. */
  point: { x: number; y: number };
  box: { x: number; y: number; width: number; height: number };
  /** Where its frame's viewport sits in the main one: `point` minus it is the point in the frame. */
  origin: { x: number; y: number };
  /** What the op asked to read along with the probe (`reads`), once the element passed it. */
  intent?: string[];
  popup?: boolean;
  control?: ControlInfo;
  /** Set when `typing` focused a text control: whether it holds the focus. */
  focused?: boolean;
}

/** Reads an acting op needs right after the probe, taken in the same page call. */
export type ActReads = Pick<ActRequest, 'intent' | 'popup' | 'control' | 'typing'>;

/**
 * Probes a found element and refuses, naming what blocks it, unless it can take input now.
 * `when` says at which moment it was checked (e.g. "after the pointer glided there").
 */
export async function probeOrRefuse(
  tab: BrowserTab,
  elements: ElementContext,
  found: FoundElement,
  options: ProbeOptions,
  when?: string,
): Promise<Actionability & { point: { x: number; y: number } }> {
  const verdict = await timed(
    elements,
    'probe',
    callPage(tab, found.frame, 'probe', found.handle, options),
  );
  return passedOrRefuse(tab, elements, found, verdict, when);
}

/**
 * Refuses unless the element still takes a press at its point now that the pointer is there: the
 * move's hover handlers may have put a layer over it (one hit test, before the press).
 */
export async function receivesPressOrRefuse(
  tab: BrowserTab,
  elements: ElementContext,
  el: ActionableElement,
  when: string,
): Promise<void> {
  const point = { x: el.point.x - el.origin.x, y: el.point.y - el.origin.y };
  const verdict = await timed(
    elements,
    'hit',
    callPage(tab, el.frame, 'receivesAt', el.handle, point),
  );
  passedOrRefuse(tab, elements, el, verdict, when);
}

function passedOrRefuse(
  tab: BrowserTab,
  elements: ElementContext,
  found: FoundElement,
  verdict: Actionability,
  when?: string,
): Actionability & { point: { x: number; y: number } } {
  if (verdict.ok && verdict.point) return { ...verdict, point: verdict.point };
  // A refused element is boxed on the failure frame too; inside an iframe its offset is unknown here.
  if (verdict.box && found.frame.length === 0) elements.probed = verdict.box;
  const kind = verdict.blocker === 'detached' ? 'stale_element' : 'not_actionable';
  const why = verdict.message ?? 'it is not ready for input.';
  throw new OpError(
    kind,
    `${describeTarget(found.target)} on ${tab.url()}: ${when ? `${when}, ${why} Nothing was clicked.` : why}`,
    {
      details: { blocker: verdict.blocker, element: found.info.desc },
      // At the pointer's arrival only an element still moving may come to rest: a layer the
      // arrival opened stays open under the pointer, so a retry would only meet it again.
      final: when !== undefined && verdict.blocker !== 'moving',
    },
  );
}

/**
 * Finds the element and checks it can take input now; otherwise says why (DESIGN §3.4). Locate,
 * probe and `reads` are one page call (a ref, resolved against the reading memory, takes two).
 */
export async function actionableElement(
  tab: BrowserTab,
  elements: ElementContext,
  target: Target,
  options: ProbeOptions,
  reads: ActReads = {},
): Promise<ActionableElement> {
  let found: FoundElement;
  let answer: Omit<ActAnswer, 'located'>;
  if (target.ref !== undefined && !target.ref.includes('|')) {
    // A ref on the page itself: its document checked, located, probed and read in one call.
    const shown = elements.reading.shownRef(tab.id, target.ref);
    if (!shown) throw refNotShown(tab, target.ref);
    const ref: PageTarget = {
      strategy: 'ref',
      value: target.ref,
      print: shown.print,
      document: shown.documentId,
    };
    const request: ActRequest = { probe: options, ...reads };
    const { located, ...rest } = await timed(
      elements,
      'locate+probe',
      callPage(tab, [], 'locateActionable', ref, undefined, request),
    );
    found = refFound(tab, target, located, [], '');
    answer = rest;
  } else if (target.ref !== undefined) {
    found = await findByRef(tab, elements, target);
    answer = { verdict: await probeOrRefuse(tab, elements, found, options) };
    answer = { ...answer, ...(await readsOf(tab, elements, found, reads)) };
  } else {
    const where = await scopeOf(tab, elements, target, MAIN_FRAME);
    const request: ActRequest = { nth: target.nth, probe: options, ...reads };
    const {
      located: here,
      frames,
      ...rest
    } = await timed(
      elements,
      'locate+probe',
      callPage(tab, where.start.path, 'locateActionable', pageTarget(target), where.scope, request),
    );
    // Frames below are searched too (a match there makes one here ambiguous); none, no call.
    const below =
      where.scope === undefined && frames
        ? await belowFrame(limitsOf(elements), where.start, frames, (spot) =>
            timed(elements, 'locate', callPage(tab, spot.path, 'locate', pageTarget(target))),
          )
        : { answers: [], unread: [] };
    const located = merged({
      answers: [{ spot: where.start, value: here }, ...below.answers],
      unread: below.unread,
    });
    found = chosen(tab, target, located);
    // The page probed its own pick; it stands when that is the one chosen across frames.
    const pick =
      target.nth === undefined
        ? here.matches.length === 1 && here.matches[0]
        : here.matches[target.nth];
    const samePick = pick && found.frame === where.start.path && found.handle === pick.handle;
    answer =
      rest.verdict && samePick
        ? rest
        : {
            verdict: await probeOrRefuse(tab, elements, found, options),
            ...(await readsOf(tab, elements, found, reads)),
          };
  }
  const verdict = passedOrRefuse(tab, elements, found, answer.verdict!);
  const origin = await originInView(tab, found, verdict.point);
  const box = verdict.box ?? { x: verdict.point.x, y: verdict.point.y, width: 0, height: 0 };
  const shifted = { ...box, x: box.x + origin.x, y: box.y + origin.y };
  elements.probed = shifted;
  elements.actionable = summarise(found);
  return {
    ...found,
    point: { x: verdict.point.x + origin.x, y: verdict.point.y + origin.y },
    box: shifted,
    origin,
    ...(answer.intent ? { intent: answer.intent } : {}),
    ...(answer.popup !== undefined ? { popup: answer.popup } : {}),
    ...(answer.control ? { control: answer.control } : {}),
    ...(answer.focused !== undefined ? { focused: answer.focused } : {}),
  };
}

/** The reads of `reads`, one page call each (the ref path, where they are not folded in). */
async function readsOf(
  tab: BrowserTab,
  elements: ElementContext,
  found: FoundElement,
  reads: ActReads,
): Promise<Omit<ActAnswer, 'located' | 'verdict'>> {
  const { frame, handle } = found;
  return {
    ...(reads.intent
      ? { intent: await timed(elements, 'read', callPage(tab, frame, 'intentTexts', handle)) }
      : {}),
    ...(reads.popup
      ? { popup: await timed(elements, 'read', callPage(tab, frame, 'opensNewTab', handle)) }
      : {}),
    ...(reads.control
      ? { control: await timed(elements, 'read', callPage(tab, frame, 'controlInfo', handle)) }
      : {}),
  };
}
