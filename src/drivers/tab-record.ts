import { BoundedLog } from './bounded-log.js';
import {
  AwaitingServerError,
  type ConsoleEntry,
  type NavigationOutcome,
  type NetworkEntry,
  requestFailed,
  type TabActivity,
} from './driver.js';

/** Entries kept per tab and per kind; older ones are dropped and counted. */
const LOG_LIMIT = 500;

/** A page call SwiftBrowse made: when it started, and a promise that settles when it does. */
export interface OwnCall {
  readonly startedAt: number;
  readonly settled: Promise<void>;
}

interface PageCall extends OwnCall {
  fail(error: AwaitingServerError): void;
}

const noop = () => undefined;

/**
 * What a tab has seen, kept by the same rules on every backend: requests in flight (what settling
 * waits for), main-frame navigations and how the last load ended, console and network entries.
 * `K` is how the driver names a request (Playwright's Request, a BiDi request id).
 */
export class TabRecord<K> {
  /** The document's title as last read. */
  title = '';
  /** When the page call that read it was sent, and the URL the tab showed when it came back. */
  private titleAt?: { sentAt: number; url: string };
  readonly console = new BoundedLog<ConsoleEntry>(LOG_LIMIT);
  // A failed request is what a report lists: hundreds of loads that worked must not push it out.
  readonly network = new BoundedLog<NetworkEntry>(LOG_LIMIT, requestFailed);
  navigations = 0;
  lastNavigation?: NavigationOutcome & { url: string };
  /** The URL of the last main-frame navigation sent, answered or not, and when. */
  lastSent?: string;
  lastSentAt = 0;
  private requestSeq = 0;
  private resources = 0;
  private readonly inFlight = new Map<K, number>();
  /** URLs that turned into downloads: the browser aborts their navigation, the page stays. */
  private readonly downloadUrls = new Set<string>();
  /** A main-frame navigation sent and not yet answered by its server. */
  private awaiting?: string;
  private sent = 0;
  /** Page calls in flight, oldest first: failed at once when a navigation starts to wait for its server. */
  private readonly calls = new Set<PageCall>();
  /** The awaited URL a probe was last sent for, and the one whose page answered it anyway. */
  private probed?: string;
  private answers?: string;

  titleRead(title: string, sentAt: number, url: string): void {
    this.title = title;
    this.titleAt = { sentAt, url };
  }

  /** The title read by a call sent at or after `since`, while the tab still shows that URL. */
  titleReadSince(since: number, url: string): string | undefined {
    const at = this.titleAt;
    return at && at.sentAt >= since && at.url === url ? this.title : undefined;
  }

  /** `navigation`: the main frame's own document (or a redirect of it), not one of its resources. */
  requestStarted(key: K, navigation = false): void {
    this.inFlight.set(key, ++this.requestSeq);
    if (!navigation) this.resources++;
  }

  /** Answered is settled: a body nobody reads, or a stream, must not hold a settle open. */
  requestEnded(key: K): void {
    this.inFlight.delete(key);
  }

  /** A main-frame navigation started, or its request went out. */
  navigationSent(url: string): void {
    if (this.awaiting !== url) {
      this.sent++;
      this.probed = this.answers = undefined;
    }
    this.awaiting = url;
    this.lastSent = url;
    this.lastSentAt = Date.now();
    // A same-document navigation (BiDi's historyUpdated) ends in the same task: it holds nothing.
    queueMicrotask(() => {
      if (this.awaiting !== url || this.answers === url) return;
      for (const call of this.calls) call.fail(new AwaitingServerError(url));
    });
  }

  /**
   * Runs a page call (script, capture) by what the driver knows of the main frame: Chromium holds
   * every command to a page whose navigation waits for its server, so a call made then, or in
   * flight when one starts, fails at once with AwaitingServerError instead of hanging until the
   * server answers. `probe` (the page's `location.href`) is sent once per awaited URL: the new
   * document answering it at that URL shows the driver missed the navigation's end, and calls go
   * through again; settling still waits for it. An answer from the old document is not trusted.
   */
  async pageCall<T>(call: () => Promise<T>, probe: () => Promise<unknown>): Promise<T> {
    const url = this.awaiting;
    if (url !== undefined && url !== this.answers) {
      if (this.probed !== url) {
        this.probed = url;
        probe().then(
          (href) => {
            // The old document answers until Chromium starts holding it (BiDi reports the
            // navigation just before its request goes out): only the new one, at the awaited
            // URL, shows the driver missed the end. Another call asks again.
            if (typeof href === 'string' && withoutFragment(href) === withoutFragment(url)) {
              if (this.awaiting === url) this.answers = url;
            } else if (this.probed === url) this.probed = undefined;
          },
          () => undefined,
        );
      }
      throw new AwaitingServerError(url);
    }
    let fail = (_: AwaitingServerError) => {};
    const held = new Promise<never>((_, reject) => (fail = reject));
    const work = call();
    const entry: PageCall = { startedAt: Date.now(), settled: work.then(noop, noop), fail };
    this.calls.add(entry);
    try {
      return await Promise.race([work, held]);
    } finally {
      this.calls.delete(entry);
    }
  }

  /** The oldest page call still in flight: a probe of the page runs only after it. */
  oldestCall(): OwnCall | undefined {
    for (const call of this.calls) return call;
    return undefined;
  }

  /**
   * A main-frame navigation to `url` committed, failed or was aborted: the page takes commands
   * again. Only the one awaited ends it: the previous document's late load event must not.
   */
  navigationEnded(url: string): void {
    if (this.awaiting !== undefined && withoutFragment(url) === withoutFragment(this.awaiting))
      this.awaiting = undefined;
  }

  /** The server answered a main-frame navigation. */
  navigationAnswered(url: string, status?: number): void {
    this.awaiting = undefined;
    this.lastNavigation = { url, status };
  }

  /**
   * A main-frame load that failed. An aborted one is not a failed load: Chromium aborts a navigation
   * that became a download (whose event WebDriver BiDi may send after this one), was answered 204,
   * or was replaced by another, and the tab keeps a page of its own, never an error page.
   */
  navigationFailed(url: string, error: string): void {
    this.navigationEnded(url);
    if (this.downloadUrls.has(url) || /\bERR_ABORTED\b/.test(error)) return;
    this.lastNavigation = { url, error };
  }

  download(url: string): void {
    this.navigationEnded(url);
    this.downloadUrls.add(url);
    if (this.lastNavigation?.url === url && this.lastNavigation.error)
      this.lastNavigation = { url };
  }

  activity(since = 0): TabActivity {
    let inFlight = 0;
    for (const seq of this.inFlight.values()) if (seq > since) inFlight++;
    return {
      requestsStarted: this.requestSeq,
      resourcesStarted: this.resources,
      requestsInFlight: inFlight,
      navigations: this.navigations,
      lastNavigation: this.lastNavigation,
      awaitingServer: this.awaiting,
      navigationsSent: this.sent,
    };
  }
}

/** A request never carries the fragment its navigation was given. */
function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}
