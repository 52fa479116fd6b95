import { BoundValues } from '../core/redact.js';
import type { BrowserSession, BrowserTab } from '../drivers/driver.js';
import { ReadingMemory } from './reading-memory.js';

export interface SessionSettings {
  headless: boolean;
  viewport: { width: number; height: number };
  timeoutMs: number;
}

/** Who is calling: their settings, their browser if they have one, their tabs and counters. */
export class Session {
  browser?: BrowserSession;
  activeTabId?: string;
  lastUrl?: string;
  lastActiveAt = Date.now();
  /**
   * Where the last pointer move this server sent left the pointer, in main-viewport coordinates,
   * and on which tab (each tab has its own). Undefined until a move, and again with a new browser.
   */
  pointer?: { x: number; y: number; tab: string };
  /** Ids of tabs the pages opened themselves, in order; ops report the new ones. */
  readonly openedTabs: string[] = [];
  /** What this caller has been shown; cleared with the browser. */
  reading = new ReadingMemory();
  /** Values typed from secrets in this session, scrubbed from all it emits; memory only. */
  readonly bound = new BoundValues();
  private counter = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private running = 0;

  constructor(
    readonly name: string,
    public settings: SessionSettings,
  ) {}

  nextActionId(): string {
    return `${this.name}-${++this.counter}`;
  }

  get busy(): boolean {
    return this.running > 0;
  }

  /** Runs ops on this session one at a time, in arrival order. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      this.running++;
      try {
        return await work();
      } finally {
        this.running--;
        this.lastActiveAt = Date.now();
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  hasBrowser(): boolean {
    return !!this.browser && !this.browser.isClosed();
  }

  /** The tab ops act on; falls back to the last open one if the active tab was closed. */
  activeTab(): BrowserTab | undefined {
    const tabs = this.browser?.tabs() ?? [];
    const tab = tabs.find((t) => t.id === this.activeTabId) ?? tabs[tabs.length - 1];
    this.activeTabId = tab?.id;
    return tab;
  }
}
