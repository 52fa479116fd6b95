import { within } from '../core/within.js';
import type { BrowserTab } from '../drivers/driver.js';

/** Failure evidence is a JPEG at most this wide, at this quality. */
export const EVIDENCE_MAX_WIDTH = 1280;
/**
 * A log frame after a successful op is at most this wide: capture and encoding time grow with
 * the pixels, and the session's next op waits for the previous op's frame.
 */
export const FRAME_MAX_WIDTH = 640;
export const FRAME_QUALITY = 60;
/**
 * A capture that hangs (a renderer stuck in a script) must not hold the op's answer, nor the next
 * op. Under load a scaled capture through a Grid takes seconds; past this the frame is left out.
 */
const CAPTURE_TIMEOUT_MS = 8000;

/** A frame's file name under `logs/<session>/frames/`: the number the session gave it. */
export const FRAME_NAME = /^\d{6,9}\.jpg$/;

export function frameName(index: number): string {
  return `${String(index).padStart(6, '0')}.jpg`;
}

export interface Screen {
  jpeg: Buffer;
  viewport: { width: number; height: number };
}

/**
 * The viewport as it is now, for failure evidence and the session log alike (one capture serves
 * both). Best effort: undefined when the tab is closed, a dialog blocks it, or the capture fails.
 */
export async function captureScreen(
  tab: BrowserTab,
  maxWidth = EVIDENCE_MAX_WIDTH,
): Promise<Screen | undefined> {
  // A page showing a dialog cannot paint: a capture would wait for the dialog to be answered.
  if (tab.isClosed() || tab.crashed() || tab.pendingDialog()) return undefined;
  // One whose navigation waits for its server takes no commands: the driver refuses it at once.
  try {
    const jpeg = await within(
      tab.captureViewport({ maxWidth, quality: FRAME_QUALITY }),
      CAPTURE_TIMEOUT_MS,
      undefined,
    );
    return jpeg ? { jpeg, viewport: tab.viewport() } : undefined;
  } catch {
    return undefined;
  }
}
