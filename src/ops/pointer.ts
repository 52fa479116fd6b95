import { flag } from '../core/schema.js';
import type { BrowserTab, MouseButton } from '../drivers/driver.js';
import type { Session } from '../sessions/session.js';
import { receivesPressOrRefuse, type ActionableElement, type ElementContext } from './element.js';

export const MODIFIERS = ['Alt', 'Control', 'Meta', 'Shift'] as const;
export type Modifier = (typeof MODIFIERS)[number];

type Point = { x: number; y: number };
type Box = { x: number; y: number; width: number; height: number };

/** How a move travels, and where it says what it sent. */
export interface MoveOptions {
  /** An eased line of small steps from the remembered position; otherwise one move (a jump). */
  glide: boolean;
  /** The op's notes: `glided`, or `glide_from_unknown: jumped`. */
  notes: string[];
}

/** The `glide` argument of pointer gestures; `drag` overrides the default. */
export const glideArg = flag()
  .default(false)
  .describe(
    'Travel to the target in small eased steps from where the pointer is, instead of jumping (default false). For interfaces that watch movement: sliders, sortable lists, drag thresholds, menus that track direction',
  );

const PX_PER_STEP = 20;
const MIN_STEPS = 3;
const MAX_STEPS = 40;
/** One frame: enough for the page to handle each step before the next. */
export const FRAME_MS = 16;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const easeInOutQuad = (t: number) => (t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2);

/** Where the session's pointer is on this tab; undefined when this server cannot know. */
export function pointerOn(tab: BrowserTab, session: Session): Point | undefined {
  const p = session.pointer;
  // Each tab has its own pointer; a position remembered on another tab says nothing about this one.
  return p && p.tab === tab.id ? { x: p.x, y: p.y } : undefined;
}

/**
 * Moves the pointer to `to` (main-viewport coordinates) and remembers where it is after every step.
 *
 * A glide is a straight, eased line with about one step per 20 px (3 to 40 steps) and a frame's
 * pause between steps, for interfaces that need the movement in between: sliders, sortable lists,
 * drag thresholds, menus that track direction. It is not detection evasion: no jitter, no random
 * timing, the same path every time. With no known start it jumps and says so, never guessing one.
 */
export async function movePointer(
  tab: BrowserTab,
  session: Session,
  to: Point,
  options: MoveOptions,
): Promise<void> {
  const from = pointerOn(tab, session);
  const send = async (p: Point) => {
    await tab.mouseMove(p.x, p.y);
    session.pointer = { x: p.x, y: p.y, tab: tab.id };
  };
  if (!options.glide) return send(to);
  if (!from) {
    options.notes.push('glide_from_unknown: jumped');
    return send(to);
  }
  const distance = Math.hypot(to.x - from.x, to.y - from.y);
  // Already there: nothing to travel, so nothing is claimed.
  if (distance < 1) return send(to);
  const steps = Math.min(MAX_STEPS, Math.max(MIN_STEPS, Math.round(distance / PX_PER_STEP)));
  for (let i = 1; i <= steps; i++) {
    if (i > 1) await sleep(FRAME_MS);
    const e = easeInOutQuad(i / steps);
    await send({ x: from.x + (to.x - from.x) * e, y: from.y + (to.y - from.y) * e });
  }
  if (!options.notes.includes('glided')) options.notes.push('glided');
}

/**
 * A point just outside `box` and inside the viewport (left/above first), or undefined when the box
 * covers the viewport. Moving there first makes the next move onto the box a real entry.
 */
export function pointOutside(box: Box, viewport: { width: number; height: number }) {
  const clampX = (x: number) => Math.min(Math.max(x, 0), viewport.width - 1);
  const clampY = (y: number) => Math.min(Math.max(y, 0), viewport.height - 1);
  const left = box.x - 2;
  const top = box.y - 2;
  const right = box.x + box.width + 2;
  const bottom = box.y + box.height + 2;
  const candidates: Point[] = [
    { x: clampX(left), y: clampY(top) },
    { x: clampX(right), y: clampY(top) },
    { x: clampX(left), y: clampY(bottom) },
    { x: clampX(right), y: clampY(bottom) },
  ];
  return candidates.find((p) => !inside(p, box));
}

export function inside(p: Point, box: Box): boolean {
  return p.x >= box.x && p.x <= box.x + box.width && p.y >= box.y && p.y <= box.y + box.height;
}

/** What a press needs of its op: the pointer's memory, the lookups' context, the notes. */
export interface PressContext {
  session: Session;
  elements: ElementContext;
  notes: string[];
  /** Marks the op's input as reached the page: from here it is never tried again. */
  delivered(input?: 'queued'): void;
}

/**
 * Moves the pointer onto the element (jump or glide) and refuses, pressing nothing, unless the
 * element still takes events at that point: what the arrival opened (a hover layer) would take
 * the press instead. Checked at the press only; what the press itself opens does not matter.
 * The press is what cannot be taken back: an element that moved on under the pointer is looked
 * for again while the op has time, as before any input.
 */
export async function arriveToPress(
  tab: BrowserTab,
  ctx: PressContext,
  el: ActionableElement,
  glide: boolean,
): Promise<void> {
  await movePointer(tab, ctx.session, el.point, { glide, notes: ctx.notes });
  const when = glide ? 'after the pointer glided there' : 'once the pointer arrived there';
  await receivesPressOrRefuse(tab, ctx.elements, el, when);
  ctx.delivered('queued');
}

/** A full click on the element: arrive at its point, then press and release `count` times. */
export async function clickAt(
  tab: BrowserTab,
  ctx: PressContext,
  el: ActionableElement,
  options: { glide: boolean; button: MouseButton; count: number; modifiers: readonly Modifier[] },
): Promise<void> {
  await arriveToPress(tab, ctx, el, options.glide);
  for (const m of options.modifiers) await tab.keyDown(m);
  try {
    for (let i = 1; i <= options.count; i++) {
      await tab.mouseDown(options.button, i);
      await tab.mouseUp(options.button, i);
    }
  } finally {
    for (const m of [...options.modifiers].reverse()) await tab.keyUp(m);
  }
}
