import { OpError } from '../core/errors.js';
import { machineLoad, saturation } from '../core/machine-load.js';
import { within } from '../core/within.js';

/** What an admitted opening holds: released once its browser opened or failed to. */
export interface Admitted {
  release(): void;
  /** Said in the op's notes when the opening waited its turn. */
  note?: string;
}

/**
 * Opening a local browser is the heaviest thing a session does (a process and its first page):
 * on a machine already saturated, sixteen opened at once starve each other and every session's
 * first op times out together. While the machine is saturated (the load per core, or the
 * server's own event-loop delay: machine-load.ts), openings go one at a time, in the order asked;
 * one that waits past `waitLimitMs` is refused with a time to come back. A machine with CPU to
 * spare opens at once, unless openings are already queued: a newcomer does not jump the queue.
 */
export class Admission {
  /** Settles when the last queued opening is released: the next one's turn. */
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;

  constructor(
    private readonly waitLimitMs: number,
    private readonly saturated: () => string | undefined = () => saturation(machineLoad()),
  ) {}

  /** Waits for this opening's turn; throws `session_limit` when the wait runs past the limit. */
  async admit(session: string): Promise<Admitted> {
    const why = this.waitLimitMs > 0 ? this.saturated() : undefined;
    if (!why && this.queued === 0) return { release: () => {} };
    const ahead = this.queued++;
    const turn = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    const done = () => {
      this.queued--;
      release();
    };
    const started = Date.now();
    const admitted = await within(
      turn.then(() => true),
      this.waitLimitMs,
      false,
    );
    if (!admitted) {
      // Its place in the line passes to the next as soon as its own turn would have come.
      void turn.then(done);
      const retryAfterS = Math.max(1, Math.ceil(this.waitLimitMs / 1000 / Math.max(ahead, 1)));
      throw new OpError(
        'session_limit',
        `Session "${session}" could not open a browser: ${why ?? 'the machine was saturated'}, so browsers open one at a time, and ${ahead} were still ahead of this one after ${(this.waitLimitMs / 1000).toFixed(1)} s (ADMISSION_WAIT). Try again in about ${retryAfterS} s, or close sessions you no longer need.`,
        { details: { retry_after_s: retryAfterS, queued_ahead: ahead } },
      );
    }
    const waitedMs = Date.now() - started;
    return {
      release: done,
      note:
        waitedMs >= 100
          ? `admission_queued: ${why ?? 'the machine was saturated'}, so browsers open one at a time; this session waited ${(waitedMs / 1000).toFixed(1)} s for its turn (not counted against the op's timeout)`
          : undefined,
    };
  }
}
