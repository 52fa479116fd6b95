import type { EntryBuffer } from './driver.js';

/**
 * A per-tab ring of entries (console, network) any driver can keep; reading returns copies, so
 * later updates do not show through.
 */
export class BoundedLog<T extends object> {
  private items: T[] = [];
  private dropped = 0;

  constructor(
    private readonly limit: number,
    /** Entries dropped only when nothing older is left to drop: failures outlive the chatter. */
    private readonly keep?: (item: T) => boolean,
  ) {}

  push(item: T): void {
    this.items.push(item);
    if (this.items.length > this.limit) {
      // The oldest entry not kept goes, never the one just pushed (it may yet fail).
      const keep = this.keep;
      const older = keep
        ? this.items.findIndex((e, i) => i < this.items.length - 1 && !keep(e))
        : 0;
      this.items.splice(Math.max(older, 0), 1);
      this.dropped++;
    }
  }

  read(clear: boolean): EntryBuffer<T> {
    const out = { entries: this.items.map((e) => ({ ...e })), dropped: this.dropped };
    if (clear) {
      this.items = [];
      this.dropped = 0;
    }
    return out;
  }
}
