/** A main-frame navigation the URL policy refused. */
export interface RefusedNavigation {
  url: string;
  reason: string;
}

/** Refusals one op keeps: it reports the first, and a page retrying in a loop must not grow it. */
const MAX_REFUSED = 20;

/**
 * What happened in the session while one op ran, for that op to report: opened by `watch()` at
 * the op's start, drained by `take()` at its end. A nested op (a batch step) has its own, and its
 * events are also its parent's.
 */
export class OpEvents {
  readonly refusedNavigations: RefusedNavigation[] = [];
  /** Ids of tabs the pages opened themselves, in order. */
  readonly openedTabs: string[] = [];

  constructor(private readonly onTake: (events: OpEvents) => void) {}

  /** Stops collecting and returns what the op saw. */
  take(): { refusedNavigations: RefusedNavigation[]; openedTabs: string[] } {
    this.onTake(this);
    return { refusedNavigations: this.refusedNavigations, openedTabs: this.openedTabs };
  }
}

/** The session's event source: the browser and the URL policy report here, each running op listens. */
export class SessionEvents {
  private readonly watching = new Set<OpEvents>();

  /** Starts collecting for one op. */
  watch(): OpEvents {
    const events = new OpEvents((e) => this.watching.delete(e));
    this.watching.add(events);
    return events;
  }

  navigationRefused(url: string, reason: string): void {
    for (const e of this.watching)
      if (e.refusedNavigations.length < MAX_REFUSED) e.refusedNavigations.push({ url, reason });
  }

  tabOpened(id: string): void {
    for (const e of this.watching) e.openedTabs.push(id);
  }
}
