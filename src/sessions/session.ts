import { BoundValues, scrub } from '../core/redact.js';
import type { BrowserSession, BrowserTab } from '../drivers/driver.js';
import type { LayoutStreak } from '../drivers/stuck-probe.js';
import type { BrowserRecord } from './browser-record.js';
import { SessionEvents } from './op-events.js';
import { ReadingMemory } from './reading-memory.js';
import type { SessionSettings } from './settings.js';
import type { BrowserState, SessionRecord } from './store.js';

export type { SessionSettings } from './settings.js';

/** Who is calling: their settings, their browser if they have one, their tabs and counters. */
export class Session {
  browser?: BrowserSession;
  /** What happened to the browser last; decides whether the next op brings it back. */
  browserState: BrowserState = 'closed';
  activeTabId?: string;
  /** The tab last brought to the front; unknown (undefined) once a tab opened since. */
  frontTabId?: string;
  lastUrl?: string;
  /** The page this session's caller was last answered with: a compact answer repeats it only on a change. */
  shownPage?: { url: string; title: string; tab?: string };
  createdAt = Date.now();
  lastActiveAt = Date.now();
  /** Ops run in this session, over its whole life. */
  ops = 0;
  /** The driver's handle on a browser that can outlive this process (a Grid session id). */
  handle?: string;
  /** The last browser as asked, sent, ran and ended, kept after it is gone (admin API). */
  browserRecord?: BrowserRecord;
  /** Refused navigations and tabs the pages opened, handed to the ops running when they happen. */
  readonly events = new SessionEvents();
  /**
   * The deadlines of the ops running now, outermost first (ops/deadline.ts): a batch or flow whose
   * steps run under deadlines of their own is marked composite, so it is not cut itself. `cut`
   * makes the op answer now, its browser having been closed under it.
   */
  readonly deadlines: { composite: boolean; cut: () => void }[] = [];
  /**
   * Where the last pointer move this server sent left the pointer, in main-viewport coordinates,
   * and on which tab (each tab has its own). Undefined until a move, and again with a new browser.
   */
  pointer?: { x: number; y: number; tab: string };
  /**
   * A stuck tab's replacement still under way after the op that started it answered (a slow
   * Grid); the next op waits for it as opening time.
   */
  replacingTab?: Promise<void>;
  /** Since when the active tab has been found laying out at every op's deadline (LAYOUT_LIMIT). */
  layingOut?: LayoutStreak;
  /** The tab the last deadline could not question on a saturated machine (unansweredVerdict). */
  unanswered?: string;
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

  static fromRecord(record: SessionRecord): Session {
    const session = new Session(record.name, record.settings);
    session.browserState = record.browserState;
    session.lastUrl = record.lastUrl;
    session.pointer = record.pointer;
    session.counter = record.counter;
    session.handle = record.handle;
    session.ops = record.ops;
    session.createdAt = record.createdAt;
    session.lastActiveAt = record.lastActiveAt;
    session.browserRecord = record.browserRecord;
    return session;
  }

  record(): SessionRecord {
    return {
      name: this.name,
      settings: this.settings,
      browserState: this.browserState,
      lastUrl: this.lastUrl === undefined ? undefined : this.storableUrl(this.lastUrl),
      pointer: this.pointer,
      counter: this.counter,
      handle: this.handle,
      ops: this.ops,
      createdAt: this.createdAt,
      lastActiveAt: this.lastActiveAt,
      browserRecord: this.browserRecord,
    };
  }

  /** Remembers the page an op left, to reopen on (never an error page); not a URL `storableUrl` refuses. */
  rememberUrl(url: string): void {
    const storable = this.storableUrl(url);
    if (storable !== undefined) this.lastUrl = storable;
  }

  /**
   * A URL as the session may keep it (store, admin API, reopen): URL credentials stripped, and
   * none at all when it carries a value typed from a secret (a GET login form): a marker in its
   * place would reopen on a wrong page.
   */
  private storableUrl(url: string): string | undefined {
    return this.bound.taints(url) ? undefined : scrub(url);
  }

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

  /**
   * Puts the tab ops act on in front, once: a browser throttles a background tab's timers to one a
   * second and paints it no frames, so every page call on it would crawl. A failure leaves it slow,
   * not wrong.
   */
  async bringToFront(tab: BrowserTab): Promise<void> {
    if (this.frontTabId === tab.id) return;
    await tab.bringToFront().then(
      () => (this.frontTabId = tab.id),
      () => undefined,
    );
  }

  /** The tab ops act on; falls back to the last open one if the active tab was closed. */
  activeTab(): BrowserTab | undefined {
    const tabs = this.browser?.tabs() ?? [];
    const tab = tabs.find((t) => t.id === this.activeTabId) ?? tabs[tabs.length - 1];
    this.activeTabId = tab?.id;
    return tab;
  }
}
