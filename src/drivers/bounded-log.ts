import type { EntryBuffer } from './driver.js';

/**
 * A per-tab ring of entries (console, network) any driver can keep; reading returns copies, so
 * later updates do not show through.
 */
export class BoundedLog<T extends object> {
  private items: T[] = [];
  private dropped = 0;

  constructor(private readonly limit: number) {}

  push(item: T): void {
    this.items.push(item);
    if (this.items.length > this.limit) {
      this.items.shift();
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
