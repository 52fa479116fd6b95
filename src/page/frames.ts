// The frames a document holds, for the server to call into each (DESIGN §5: every frame is read
// and searched, same-origin or not, each with its address as the prefix of what it holds).
import { addressOf } from './address.js';
import { isVisible } from './dom.js';
import { handleOf } from './handles.js';

/** A frame element of this document: its handle (to enter it) and its address (to name it). */
export interface ChildFrame {
  handle: number;
  address: string;
}

/** Preload and sign-in boot frames are 0×0 beside the real widget; reading them misleads. */
export const MIN_FRAME_PX = 8;

/** True when a frame element is drawn big enough to hold something a person could see. */
export function frameShown(frame: Element): boolean {
  const rect = frame.getBoundingClientRect();
  return rect.width >= MIN_FRAME_PX && rect.height >= MIN_FRAME_PX;
}

/** The shown frames of this document, in document order (light DOM: live collections, cheap). */
export function childFrames(): ChildFrame[] {
  const iframes = document.getElementsByTagName('iframe');
  const frames = document.getElementsByTagName('frame');
  if (iframes.length === 0 && frames.length === 0) return [];
  const out: ChildFrame[] = [];
  // A frameset page holds <frame>s, other pages <iframe>s: each collection is in document order.
  for (const el of [...iframes, ...frames]) {
    if (!frameShown(el) || !isVisible(el)) continue;
    try {
      out.push({ handle: handleOf(el), address: addressOf(el) });
    } catch {
      // outside body: nothing a person sees
    }
  }
  return out;
}

/** `value` with the document's shown frames attached when it has any: no second call needed. */
export function withFrames<T extends object>(value: T): T & { frames?: ChildFrame[] } {
  const frames = childFrames();
  return frames.length > 0 ? { ...value, frames } : value;
}
