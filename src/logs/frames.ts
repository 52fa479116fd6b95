import type { BrowserTab } from '../drivers/driver.js';

/** Frames are JPEGs at most this wide, at this quality: a long session stays in megabytes. */
export const FRAME_MAX_WIDTH = 1280;
export const FRAME_QUALITY = 60;
/** A capture that hangs (a renderer stuck in a script) must not hold the op's answer. */
const CAPTURE_TIMEOUT_MS = 3000;

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
export async function captureScreen(tab: BrowserTab): Promise<Screen | undefined> {
  // A page showing a dialog cannot paint: a capture would wait for the dialog to be answered.
  if (tab.isClosed() || tab.pendingDialog()) return undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const jpeg = await Promise.race([
      tab.captureViewport({ maxWidth: FRAME_MAX_WIDTH, quality: FRAME_QUALITY }),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), CAPTURE_TIMEOUT_MS);
      }),
    ]);
    return jpeg ? { jpeg, viewport: tab.viewport() } : undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
