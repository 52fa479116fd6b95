import type { Bidi } from './bidi.js';
import type { BidiRequest } from './webdriver-tab.js';

interface BlockedRequest extends BidiRequest {
  isBlocked?: boolean;
}

export interface GuardOptions {
  /** The URL policy for main-frame navigations; unset, only `blockedHosts` are held. */
  refuseNavigation?: (url: string) => string | undefined;
  /** The policy for every other request (`file:` outside FILE_URL_DIRS, metadata addresses). */
  refuseRequest?: (url: string) => string | undefined;
  /** Hosts no request may reach (cloud metadata); `*` entries are dropped (BiDi patterns have none). */
  blockedHosts: readonly string[];
  /** Whether a context is an iframe (not a tab or popup). */
  isFrame: (context: string) => boolean;
  /**
   * In a kept Firefox (handed from session to session), whether a context is this session's: the
   * guard decides its own session's requests only. A request of no context (a worker's) gets the
   * request policy.
   */
  owns?: (context: string) => boolean;
}

interface HeldRequest extends BlockedRequest {
  intercepts?: string[];
}

/**
 * The URL policy on WebDriver BiDi: with a policy every request is held at `beforeRequestSent`, and a main-frame
 * navigation the policy refuses is answered with a 204 before it is sent. Each redirect hop arrives as its own
 * event, so a hop into a refused origin is never requested; a popup's first navigation is a new
 * top-level context's, held the same way. Everything else continues at once. Without one, only
 * requests to the blocked hosts are held (the browser matches them), and failed.
 */
export class NavigationGuard {
  private intercept?: string;
  private readonly popups = new Set<string>();
  private readonly unlisten: (() => void)[];

  private constructor(
    private readonly bidi: Bidi,
    private readonly options: GuardOptions,
  ) {
    this.unlisten = [
      bidi.on<HeldRequest>('network.beforeRequestSent', (e) => {
        if (e.isBlocked && this.holds(e)) void this.decide(e);
      }),
      bidi.on<{ context: string; url: string }>('browsingContext.navigationStarted', (e) => {
        if (this.popups.delete(e.context)) this.checkPopup(e.context, e.url);
      }),
    ];
  }

  /** Whether this guard is the one to answer a held request (always, in a browser of its own). */
  private holds(e: HeldRequest): boolean {
    const { owns } = this.options;
    if (!owns) return true;
    if (e.intercepts && this.intercept && !e.intercepts.includes(this.intercept)) return false;
    return e.context ? owns(e.context) : true;
  }

  /**
   * A tab the page opened (window.open, target=_blank). Chromium issues its first request before
   * the intercept covers the new context, so that navigation is checked as it starts and a
   * refused popup is closed before its page is shown.
   */
  watchPopup(context: string, url: string): void {
    if (!this.options.refuseNavigation) return;
    if (url && url !== 'about:blank') this.checkPopup(context, url);
    else this.popups.add(context);
  }

  private checkPopup(context: string, url: string): void {
    if (!this.options.refuseNavigation?.(url)) return;
    void this.bidi
      .call('browsingContext.close', { context, promptUnload: false })
      .catch(() => undefined);
  }

  /** Starts holding requests: all of them under a policy, else those to the blocked hosts. */
  static async start(bidi: Bidi, options: GuardOptions): Promise<NavigationGuard> {
    const guard = new NavigationGuard(bidi, options);
    const hosts = options.blockedHosts.filter((h) => !h.includes('*'));
    const r = await bidi.call<{ intercept: string }>('network.addIntercept', {
      phases: ['beforeRequestSent'],
      ...(options.refuseNavigation
        ? {}
        : { urlPatterns: hosts.map((hostname) => ({ type: 'pattern', hostname })) }),
    });
    guard.intercept = r.intercept;
    return guard;
  }

  private async decide(e: BlockedRequest): Promise<void> {
    const request = e.request.request;
    const { refuseNavigation, refuseRequest, isFrame } = this.options;
    const mainFrame = !!e.navigation && !!e.context && !isFrame(e.context);
    const refused = mainFrame ? refuseNavigation?.(e.request.url) : refuseRequest?.(e.request.url);
    // Held without a policy: only a blocked host's request is, so it fails.
    if (!refuseNavigation || (refused && !mainFrame)) {
      await this.bidi.call('network.failRequest', { request }).catch(() => undefined);
      return;
    }
    // A command on a request the browser already dropped (tab closed) fails: nothing to hold then.
    if (!refused) {
      await this.bidi.call('network.continueRequest', { request }).catch(() => undefined);
      return;
    }
    // A 204 cancels a navigation and leaves the tab on its page, as Playwright's `aborted` does;
    // failRequest would commit the browser's error page instead. Without a body Chromium sends
    // the request after all.
    await this.bidi
      .call('network.provideResponse', {
        request,
        statusCode: 204,
        reasonPhrase: 'No Content',
        headers: [],
        body: { type: 'string', value: '' },
      })
      .catch(() => this.bidi.call('network.failRequest', { request }))
      .catch(() => undefined);
  }

  /** Stops holding requests: a browser left for a later re-attach must not wait on this process. */
  async stop(): Promise<void> {
    for (const stop of this.unlisten) stop();
    if (!this.intercept || this.bidi.isClosed()) return;
    const intercept = this.intercept;
    this.intercept = undefined;
    await this.bidi.call('network.removeIntercept', { intercept }).catch(() => undefined);
  }
}
