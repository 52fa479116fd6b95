import { OpError } from '../core/errors.js';
import { within } from '../core/within.js';
import { STORM_DIALOGS, STORM_WINDOW_MS } from '../page/protocol.js';
import type { DialogAnswer, DialogInfo, DismissedDialogs } from './driver.js';

/** The longest a navigation waits for a storming page to be silenced. */
const SILENCE_WAIT_MS = 1000;

/**
 * Makes the page's alert, confirm and prompt answer as dismissed ones do, in the page, without
 * opening: each dialog answered from outside costs a round trip (about 90 ms in Firefox), so a
 * page looping over fifty would hold every op for seconds. `quietMs` is how long the page may
 * pause between dialogs before they are its own again; without it they stay silenced.
 */
export function silenceScript(quietMs = Infinity): string {
  return `(() => {
  const quiet = { alert: undefined, confirm: false, prompt: null };
  const own = {};
  for (const k of Object.keys(quiet)) own[k] = window[k];
  let last = Date.now();
  for (const k of Object.keys(quiet))
    window[k] = function () {
      if (Date.now() - last < ${quietMs}) { last = Date.now(); return quiet[k]; }
      for (const j of Object.keys(quiet)) window[j] = own[j];
      return own[k].apply(this, arguments);
    };
})()`;
}

interface OpenDialog {
  info: DialogInfo;
  answer(answer: DialogAnswer): Promise<void>;
}

/**
 * A tab's dialogs, by the same rules on every backend. A dialog blocks its page until answered.
 * One opened while our input was delivered is the action's outcome and stays open for the dialog
 * op; an armed answer takes the next one as it opens; one that opens under a script of ours (the
 * page's own: our reads raise none) or a navigation we sent is in their way and is dismissed at
 * once; past STORM_DIALOGS in STORM_WINDOW_MS every further one is dismissed as it opens, so the
 * page (and the op) goes on, and the page is silenced until it pauses (silenceScript). Dismissed
 * ones are reported once (takeDismissed).
 */
export class DialogGate {
  private open?: OpenDialog;
  private armed?: DialogAnswer;
  private readonly listeners = new Set<() => void>();
  private recent: number[] = [];
  private navigating = 0;
  private scripting = 0;
  private dismissed?: DismissedDialogs;

  /** `silence` runs a script in the tab's top document, even while a dialog there is open. */
  constructor(private readonly silence: (script: string) => Promise<unknown>) {}

  /** The driver heard a dialog open; `answer` answers it in the browser. */
  opened(info: DialogInfo, answer: (answer: DialogAnswer) => Promise<void>): void {
    const armed = this.armed;
    if (armed) {
      this.armed = undefined;
      void answer(armed).catch(() => undefined);
      return;
    }
    const seen = this.count();
    // Once per storm: a silenced page opens no more, so the window empties and a later storm (in
    // a new document) is silenced again. One raised in a frame goes on being dismissed here.
    if (seen === STORM_DIALOGS + 1)
      void this.silence(silenceScript(STORM_WINDOW_MS)).catch(() => undefined);
    const storm = seen > STORM_DIALOGS;
    if (storm || this.navigating > 0 || this.scripting > 0)
      return void this.dismiss({ info, answer }, storm);
    this.open = { info, answer };
    for (const listener of this.listeners) listener();
  }

  private async dismiss(dialog: OpenDialog, storm: boolean): Promise<void> {
    this.dismissed = {
      count: (this.dismissed?.count ?? 0) + 1,
      last: dialog.info,
      storm: storm || !!this.dismissed?.storm,
    };
    await dialog.answer({ accept: false }).catch(() => undefined);
  }

  /** The browser closed the open dialog (BiDi tells; a Playwright dialog closes when answered). */
  closed(): void {
    this.open = undefined;
  }

  pending(): DialogInfo | undefined {
    return this.open?.info;
  }

  async answer(answer: DialogAnswer): Promise<void> {
    const open = this.open;
    this.open = undefined;
    await open?.answer(answer).catch(() => undefined);
  }

  arm(answer: DialogAnswer): void {
    this.armed = answer;
  }

  /** Dialogs dismissed by these rules since the last call. */
  takeDismissed(): DismissedDialogs | undefined {
    const dismissed = this.dismissed;
    this.dismissed = undefined;
    return dismissed;
  }

  /** Refuses to run script in a page a dialog blocks (one our input opened, or one left open). */
  async guard(): Promise<void> {
    if (this.open) throw blocked(this.open.info, 'is open');
  }

  /** Input that opens a dialog blocks until it is answered: the dialog is its outcome. */
  input(work: Promise<void>): Promise<void> {
    return this.until(work, () => undefined);
  }

  /**
   * A script of ours: a dialog opening meanwhile is dismissed, so the script answers. One that
   * opened since the caller's guard() (the action's, heard late) is refused here, in the same
   * turn as the count: sent, the script would wait behind the open dialog to the op's deadline.
   */
  async script<T>(work: () => Promise<T>): Promise<T> {
    if (this.open) throw blocked(this.open.info, 'is open');
    this.scripting++;
    try {
      return await work();
    } finally {
      this.scripting--;
    }
  }

  /**
   * A dialog that opens under a navigation we sent is dismissed: the page is being left or
   * loaded. A page that opened dialogs lately is silenced for good first: it is being replaced.
   */
  async navigation<T>(work: () => Promise<T>): Promise<T> {
    const open = this.open;
    this.open = undefined;
    if (open) await this.dismiss(open, false);
    if (this.inWindow() > 0)
      await within(
        this.silence(silenceScript()).catch(() => undefined),
        SILENCE_WAIT_MS,
        undefined,
      );
    this.navigating++;
    try {
      return await work();
    } finally {
      this.navigating--;
    }
  }

  private async until<T>(work: Promise<T>, onOpen: () => T): Promise<T> {
    if (this.open) return work;
    let listener = () => {};
    const opened = new Promise<T>((resolve) => {
      listener = () => resolve(onOpen());
      this.listeners.add(listener);
    });
    work.catch(() => undefined);
    try {
      return await Promise.race([work, opened]);
    } finally {
      this.listeners.delete(listener);
    }
  }

  /** Whether the page raised a dialog in the last STORM_WINDOW_MS. */
  raisedRecently(): boolean {
    return this.inWindow() > 0;
  }

  /** Counts one more dialog in the window and answers how many it holds. */
  private count(): number {
    this.inWindow();
    this.recent.push(Date.now());
    return this.recent.length;
  }

  private inWindow(): number {
    const now = Date.now();
    this.recent = this.recent.filter((at) => now - at < STORM_WINDOW_MS);
    return this.recent.length;
  }
}

function blocked(info: DialogInfo, what: string): OpError {
  return new OpError(
    'not_actionable',
    `A ${info.type} dialog ${what} ("${info.message.slice(0, 80)}"); answer it with the dialog op, or send the op again to dismiss it.`,
  );
}
