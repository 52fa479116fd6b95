import { STORM_DIALOGS, STORM_WINDOW_MS } from './protocol.js';

/** What a dismissed dialog answers: what the page gets from a quieted one. */
const QUIET = { alert: undefined, confirm: false, prompt: null } as const;

/**
 * Quiets a dialog storm inside the page, at the document's start: once the server has heard more
 * than STORM_DIALOGS dialogs open within STORM_WINDOW_MS (so it names the storm), further ones
 * answer as dismissed without opening until the page pauses that long. The server's own silencing
 * (drivers/dialog-gate.ts) needs a script to run in the page, which a loop of 100,000 `alert()`s
 * during a load never lets in: each went to the browser and back, and `goto` ran out its 30 s.
 */
export function quietDialogStorms(): void {
  const now = Date.now.bind(Date);
  let opened: number[] = [];
  let last = -Infinity;
  let quiet = false;
  for (const name of Object.keys(QUIET) as (keyof typeof QUIET)[]) {
    const own = window[name] as (...args: unknown[]) => unknown;
    if (typeof own !== 'function') continue;
    window[name] = function (this: unknown, ...args: unknown[]) {
      const at = now();
      // A pause that long ends the storm: the page's dialogs are its own again.
      if (at - last >= STORM_WINDOW_MS) quiet = false;
      last = at;
      if (quiet) return QUIET[name];
      opened = [...opened.filter((t) => at - t < STORM_WINDOW_MS), at];
      quiet = opened.length > STORM_DIALOGS;
      return own.apply(this, args);
    } as never;
  }
}
