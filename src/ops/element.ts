import { OpError } from '../core/errors.js';
import type { TargetSummary } from '../core/result.js';
import { describeTarget, strategyOf, type Target } from '../core/target.js';
import type { BrowserTab, FramePath } from '../drivers/driver.js';
import { callPage } from '../drivers/page-script.js';
import type { ViewportBox } from '../logs/log-line.js';
import type {
  Actionability,
  ElementInfo,
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

/** Which session's reading memory checks the refs used on a tab (set when an op takes the tab). */
const readings = new WeakMap<BrowserTab, ReadingMemory>();

export function bindReading(tab: BrowserTab, memory: ReadingMemory): void {
  readings.set(tab, memory);
}

/** A ref is positional: split at frames, each checked against what was read (DESIGN §5). */
async function findByRef(tab: BrowserTab, target: Target): Promise<FoundElement> {
  const address = target.ref!;
  const memory = readings.get(tab);
  const documentId = await callPage(tab, [], 'documentId');
  const print = memory?.printOf(tab.id, documentId, address);
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
    const located = await callPage(
      tab,
      frame,
      'locate',
      { strategy: 'ref', value: part },
      undefined,
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
  const located = await callPage(
    tab,
    frame,
    'locate',
    { strategy: 'ref', value: last, print },
    undefined,
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

/** Finds the one element a target names, through `frame` and `within`. */
export async function findElement(
  tab: BrowserTab,
  target: Target,
  frame: FramePath = [],
): Promise<FoundElement> {
  if (target.ref !== undefined) return findByRef(tab, target);
  if (target.frame) {
    const iframe = await findElement(tab, target.frame, frame);
    if (!['iframe', 'frame'].includes(iframe.info.tag)) {
      throw new OpError(
        'invalid_argument',
        `frame ${describeTarget(target.frame)} names a <${iframe.info.tag}>, not an iframe.`,
      );
    }
    frame = [...iframe.frame, iframe.handle];
  }
  const scope = target.within ? (await findElement(tab, target.within, frame)).handle : undefined;
  const where = `on ${tab.url()}`;
  const located = await callPage(tab, frame, 'locate', pageTarget(target), scope);
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
async function frameOrigin(tab: BrowserTab, frame: FramePath): Promise<{ x: number; y: number }> {
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
}

/**
 * Probes a found element and refuses, naming what blocks it, unless it can take input now.
 * `when` says at which moment it was checked (e.g. "after the pointer glided there").
 */
export async function probeOrRefuse(
  tab: BrowserTab,
  found: FoundElement,
  options: ProbeOptions,
  when?: string,
): Promise<Actionability & { point: { x: number; y: number } }> {
  const verdict = await callPage(tab, found.frame, 'probe', found.handle, options);
  if (verdict.ok && verdict.point) return { ...verdict, point: verdict.point };
  // A refused element is boxed on the failure frame too; inside an iframe its offset is unknown here.
  if (verdict.box && found.frame.length === 0)
    probed.set(tab, { box: verdict.box, at: Date.now() });
  const kind = verdict.blocker === 'detached' ? 'stale_element' : 'not_actionable';
  const why = verdict.message ?? 'it is not ready for input.';
  throw new OpError(
    kind,
    `${describeTarget(found.target)} on ${tab.url()}: ${when ? `${when}, ${why} Nothing was clicked.` : why}`,
    { details: { blocker: verdict.blocker, element: found.info.desc } },
  );
}

/** The box of the element last probed on each tab, for the session log's frame. */
const probed = new WeakMap<BrowserTab, { box: ViewportBox; at: number }>();

/** The box of the element probed on this tab since `since` (epoch ms), if any. */
export function probedBox(tab: BrowserTab, since: number): ViewportBox | undefined {
  const entry = probed.get(tab);
  return entry && entry.at >= since ? entry.box : undefined;
}

/** Finds the element and checks it can take input now; otherwise says why (DESIGN §3.4). */
export async function actionableElement(
  tab: BrowserTab,
  target: Target,
  options: ProbeOptions,
): Promise<ActionableElement> {
  const found = await findElement(tab, target);
  const verdict = await probeOrRefuse(tab, found, options);
  const origin = await frameOrigin(tab, found.frame);
  const box = verdict.box ?? { x: verdict.point.x, y: verdict.point.y, width: 0, height: 0 };
  probed.set(tab, { box: { ...box, x: box.x + origin.x, y: box.y + origin.y }, at: Date.now() });
  return {
    ...found,
    point: { x: verdict.point.x + origin.x, y: verdict.point.y + origin.y },
    box: { ...box, x: box.x + origin.x, y: box.y + origin.y },
  };
}
