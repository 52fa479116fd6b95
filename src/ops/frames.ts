// Every frame of a tab (DESIGN §5): a page call made in the main frame answers with the frames it
// holds, and the same call is then made in each of them through the driver (which reaches
// cross-origin frames the page cannot), breadth first, within MAX_FRAMES and MAX_FRAME_DEPTH.
// A page with no frames costs nothing more than its one call.
import type { Config } from '../config.js';
import { OpError } from '../core/errors.js';
import type { FramePath } from '../drivers/driver.js';
import { AwaitingServerError } from '../drivers/driver.js';
import type { ChildFrame } from '../page/frames.js';

/** How many frames one read or search enters, and how deep (MAX_FRAMES, MAX_FRAME_DEPTH). */
export interface FrameLimits {
  max: number;
  depth: number;
}

export function frameLimits(config: Pick<Config, 'maxFrames' | 'maxFrameDepth'>): FrameLimits {
  return { max: config.maxFrames, depth: config.maxFrameDepth };
}

/** The settings' defaults, for a caller that was given none. */
export const DEFAULT_FRAME_LIMITS: FrameLimits = { max: 8, depth: 2 };

/** A document of the tab: how the driver enters it and the address of its frame element. */
export interface FrameSpot {
  path: FramePath;
  /** The frame element's address from the page's body (`B`, `B|C`); '' for the main frame. */
  address: string;
}

export const MAIN_FRAME: FrameSpot = { path: [], address: '' };

/** A frame that was not read, and why (the answer says so: nothing is silently left out). */
export interface UnreadFrame {
  address: string;
  reason: 'cross-origin' | 'limit' | 'depth' | 'unreadable';
}

/** `A` inside the frame at `B` is `B|A`; in the main frame it stays `A`. */
export function inFrame(frameAddress: string, address: string): string {
  return frameAddress ? `${frameAddress}|${address}` : address;
}

/** How many frames an address is inside. */
export function frameDepth(address: string): number {
  return address ? address.split('|').length : 0;
}

/**
 * A call into a child frame answers within this: a frame that never loads or is navigating
 * away must not hold the whole op; it is reported unreadable instead.
 */
const FRAME_CALL_MS = 2000;

/** `call`, or a timeout error once FRAME_CALL_MS passed. */
export async function bounded<T>(call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new OpError('timeout', 'the frame did not answer')),
      FRAME_CALL_MS,
    );
  });
  try {
    return await Promise.race([call, late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface FrameAnswer<T> {
  spot: FrameSpot;
  value: T;
}

export interface AcrossFrames<T> {
  /** The start frame first, then the frames below it, breadth first, in document order. */
  answers: FrameAnswer<T>[];
  unread: UnreadFrame[];
}

/**
 * Makes `call` in every frame below `parent` (whose answer listed `children`), breadth first.
 * A child whose call fails (it navigated away, was removed, never loaded) is unread, not fatal.
 */
export async function belowFrame<T extends { frames?: ChildFrame[] }>(
  limits: FrameLimits,
  parent: FrameSpot,
  children: ChildFrame[] | undefined,
  call: (spot: FrameSpot) => Promise<T>,
): Promise<AcrossFrames<T>> {
  const answers: FrameAnswer<T>[] = [];
  const unread: UnreadFrame[] = [];
  let level = (children ?? []).map((c) => ({ parent, child: c }));
  let entered = 0;
  while (level.length > 0) {
    const next: typeof level = [];
    const entering: FrameSpot[] = [];
    for (const { parent: p, child } of level) {
      const address = inFrame(p.address, child.address);
      if (frameDepth(address) > limits.depth) unread.push({ address, reason: 'depth' });
      else if (entered >= limits.max) unread.push({ address, reason: 'limit' });
      else {
        entered++;
        entering.push({ path: [...p.path, child.handle], address });
      }
    }
    const settled = await Promise.allSettled(entering.map((spot) => bounded(call(spot))));
    settled.forEach((s, i) => {
      const spot = entering[i];
      if (s.status === 'rejected') {
        // The main frame waiting for its server holds every frame: that is the op's to answer.
        if (s.reason instanceof AwaitingServerError) throw s.reason;
        unread.push({ address: spot.address, reason: 'unreadable' });
        return;
      }
      answers.push({ spot, value: s.value });
      for (const child of s.value.frames ?? []) next.push({ parent: spot, child });
    });
    level = next;
  }
  return { answers, unread };
}

/** Makes `call` in `start` (the main frame by default) and in every frame below it. */
export async function acrossFrames<T extends { frames?: ChildFrame[] }>(
  limits: FrameLimits,
  call: (spot: FrameSpot) => Promise<T>,
  start: FrameSpot = MAIN_FRAME,
): Promise<AcrossFrames<T>> {
  const first = await call(start);
  const below = await belowFrame(limits, start, first.frames, call);
  return { answers: [{ spot: start, value: first }, ...below.answers], unread: below.unread };
}

/** One sentence on the frames left out, for a note or an error; undefined when none was. */
export function unreadNote(unread: UnreadFrame[]): string | undefined {
  if (unread.length === 0) return undefined;
  const count = (reason: UnreadFrame['reason']) => unread.filter((u) => u.reason === reason);
  const parts: string[] = [];
  const limit = count('limit');
  if (limit.length)
    parts.push(`${limit.length} past the frame limit (MAX_FRAMES): ${addresses(limit)}`);
  const depth = count('depth');
  if (depth.length)
    parts.push(`${depth.length} nested too deep (MAX_FRAME_DEPTH): ${addresses(depth)}`);
  const gone = count('unreadable');
  if (gone.length)
    parts.push(
      `${gone.length} that did not answer (loading, navigating or removed): ${addresses(gone)}`,
    );
  const cross = count('cross-origin');
  if (cross.length) parts.push(`${cross.length} cross-origin: ${addresses(cross)}`);
  return `frames not read: ${parts.join('; ')} — a target's frame (e.g. {"frame": {"css": "iframe[title=Checkout]"}}) searches one, or raise the limit`;
}

function addresses(frames: UnreadFrame[]): string {
  const shown = frames.slice(0, 5).map((f) => f.address);
  return shown.join(', ') + (frames.length > shown.length ? ` and ${frames.length - 5} more` : '');
}
