import { OpError } from '../core/errors.js';
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
import type { ReadingMemory } from '../sessions/reading-memory.js';

/** An element found for a target: where it lives and what it is. */
export interface FoundElement {
  frame: FramePath;
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
  /** The box of the element this op last probed, in viewport coordinates: the log frame draws it. */
  probed?: ViewportBox;
  /** Ms spent in each kind of page call of the lookups, in first-use order (the bench reads it). */
  spans?: Record<string, number>;
}

/** Times one page call of a lookup into the context's spans. */
async function timed<T>(elements: ElementContext, name: string, call: Promise<T>): Promise<T> {
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
  if (print === undefined) {
    throw new OpError(
      'stale_element',
      `Ref ${address} is not an address this session was shown on the current page of ${tab.url()} (it may be from an earlier page, or a group heading rather than a line). Take a snapshot and use a ref from it.`,
      { final: true },
    );
  }
  const parts = address.split('|');
  let frame: number[] = [];
  for (const part of parts.slice(0, -1)) {
    const located = await timed(
      elements,
      'locate',
      callPage(tab, frame, 'locate', { strategy: 'ref', value: part }, undefined),
    );
    if (!located.matches[0])
      throw new OpError(
        'stale_element',
        `Ref ${address}: its frame is gone. Take a new snapshot.`,
        { final: true },
      );
    frame = [...frame, located.matches[0].handle];
  }
  const last = parts[parts.length - 1];
  const located = await timed(
    elements,
    'locate',
    callPage(tab, frame, 'locate', { strategy: 'ref', value: last, print }, undefined),
  );
  const match = located.matches[0];
  if (!match) {
    throw new OpError(
      'stale_element',
      `Ref ${address} points at something else since it was read: ${located.stale ?? 'the page changed'}. Take a new snapshot and retry with a fresh ref.`,
      { final: true },
    );
  }
  return { frame, handle: match.handle, info: { ...match, ref: address }, target, candidates: 1 };
}

/** `/regex/flags` is a regular expression; anything else is exact text. */
export function textMatcher(text: string): TextMatcher {
  const m = /^\/(.+)\/([dgimsuy]*)$/s.exec(text);
  return m ? { regex: m[1], flags: m[2].replace('g', '') } : { exact: text };
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

function candidateList(matches: ElementInfo[]) {
  return matches.slice(0, 10).map((m, nth) => ({
    nth,
    element: m.desc,
    ...(m.role ? { role: m.role } : {}),
    ...((m.name ?? m.text) ? { text: m.name ?? m.text } : {}),
  }));
}

/** Where the last step of a lookup runs: the frame and the `within` element holding the target. */
async function scopeOf(
  tab: BrowserTab,
  elements: ElementContext,
  target: Target,
  frame: FramePath,
): Promise<{ frame: FramePath; scope?: number }> {
  if (target.frame) {
    const iframe = await findElement(tab, elements, target.frame, frame);
    if (!['iframe', 'frame'].includes(iframe.info.tag)) {
      throw new OpError(
        'invalid_argument',
        `frame ${describeTarget(target.frame)} names a <${iframe.info.tag}>, not an iframe.`,
      );
    }
    frame = [...iframe.frame, iframe.handle];
  }
  const scope = target.within
    ? (await findElement(tab, elements, target.within, frame)).handle
    : undefined;
  return { frame, scope };
}

/** The one element of what `locate` found, or the error that says why there is not exactly one. */
function chosen(
  tab: BrowserTab,
  target: Target,
  frame: FramePath,
  located: LocateResult,
): FoundElement {
  const where = `on ${tab.url()}`;
  if (located.error)
    throw new OpError('invalid_argument', `${describeTarget(target)}: ${located.error}`);
  const { matches } = located;
  if (matches.length === 0) {
    const nearMiss = located.sameRole?.length
      ? ` Elements with role ${target.role} here: ${located.sameRole.map((n) => JSON.stringify(n)).join(', ')}.`
      : '';
    throw new OpError(
      'not_found',
      `No element matches ${describeTarget(target)} ${where}.${nearMiss} Check the target with outline or snapshot.`,
    );
  }
  if (target.nth === undefined && matches.length > 1) {
    throw new OpError(
      'ambiguous',
      `${matches.length} elements match ${describeTarget(target)} ${where}; add nth (0-based), near, or within to pick one.`,
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
  return {
    frame,
    handle: matches[nth].handle,
    info: matches[nth],
    target,
    candidates: matches.length,
  };
}

/** Finds the one element a target names, through `frame` and `within`. */
export async function findElement(
  tab: BrowserTab,
  elements: ElementContext,
  target: Target,
  frame: FramePath = [],
): Promise<FoundElement> {
  if (target.ref !== undefined) return findByRef(tab, elements, target);
  const where = await scopeOf(tab, elements, target, frame);
  const located = await timed(
    elements,
    'locate',
    callPage(tab, where.frame, 'locate', pageTarget(target), where.scope),
  );
  return chosen(tab, target, where.frame, located);
}

export function summarise(found: FoundElement): TargetSummary {
  const { info } = found;
  const element: TargetSummary['element'] = { tag: info.tag };
  if (info.ref) element.ref = info.ref;
  if (info.role) element.role = info.role;
  if (info.name) element.name = info.name;
  else if (info.text) element.text = info.text;
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

export interface ActionableElement extends FoundElement {
  /** Centre and box in main-viewport coordinates. */
  point: { x: number; y: number };
  box: { x: number; y: number; width: number; height: number };
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
    { details: { blocker: verdict.blocker, element: found.info.desc } },
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
  if (target.ref !== undefined) {
    found = await findByRef(tab, elements, target);
    answer = { verdict: await probeOrRefuse(tab, elements, found, options) };
    answer = { ...answer, ...(await readsOf(tab, elements, found, reads)) };
  } else {
    const where = await scopeOf(tab, elements, target, []);
    const request: ActRequest = { nth: target.nth, probe: options, ...reads };
    const { located, ...rest } = await timed(
      elements,
      'locate+probe',
      callPage(tab, where.frame, 'locateActionable', pageTarget(target), where.scope, request),
    );
    found = chosen(tab, target, where.frame, located);
    answer = rest.verdict ? rest : { verdict: await probeOrRefuse(tab, elements, found, options) };
  }
  const verdict = passedOrRefuse(tab, elements, found, answer.verdict!);
  const origin = await frameOrigin(tab, found.frame);
  const box = verdict.box ?? { x: verdict.point.x, y: verdict.point.y, width: 0, height: 0 };
  const shifted = { ...box, x: box.x + origin.x, y: box.y + origin.y };
  elements.probed = shifted;
  return {
    ...found,
    point: { x: verdict.point.x + origin.x, y: verdict.point.y + origin.y },
    box: shifted,
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
