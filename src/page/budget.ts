/**
 * The time a walk may take: the op's remaining milliseconds, counted on the page's own clock (the
 * server's and the page's clocks need not agree). A walk asks `spent()` once per element and stops
 * when it answers true; the clock is read every few calls, so asking costs almost nothing.
 */
export class Budget {
  private readonly end: number;
  private calls = 0;
  /** True once the time ran out: what the walk answers is cut short. */
  cut = false;

  constructor(ms?: number) {
    this.end = ms === undefined || !Number.isFinite(ms) ? Infinity : performance.now() + ms;
  }

  /** Milliseconds left (Infinity without a deadline), for a second walk sharing this one's time. */
  left(): number {
    return Math.max(this.end - performance.now(), 0);
  }

  /** What a cut answer says: how big the page is (its elements, frames and shadow trees aside). */
  report(): { elements: number } {
    return { elements: document.getElementsByTagName('*').length };
  }

  spent(): boolean {
    if (this.cut) return true;
    if (++this.calls < 32) return false;
    this.calls = 0;
    if (performance.now() >= this.end) this.cut = true;
    return this.cut;
  }
}

/** No deadline: a walk that must finish (a test, a caller that bounds it otherwise). */
export const unbounded = (): Budget => new Budget();
