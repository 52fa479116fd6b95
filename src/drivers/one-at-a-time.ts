import { within } from '../core/within.js';

/**
 * Runs tasks one after another. A tab's captures and viewport changes go through one: Chromium
 * takes a clipped or scaled capture by swapping the page's emulated metrics and restoring them
 * after, so a resize landing mid-capture is undone, and two overlapping captures can each shoot
 * the other's layout or show a secret field the other had blanked.
 */
export class OneAtATime {
  private last: Promise<unknown> = Promise.resolve();

  /** @param patienceMs how long a task waits for the one before it: a hung renderer holds no one. */
  constructor(private readonly patienceMs = 15_000) {}

  run<T>(task: () => Promise<T>): Promise<T> {
    const next = within(this.last, this.patienceMs, undefined).then(task);
    this.last = next.catch(() => undefined);
    return next;
  }
}
