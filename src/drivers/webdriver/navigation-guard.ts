import type { Bidi } from './bidi.js';
import type { BidiRequest } from './webdriver-tab.js';

interface BlockedRequest extends BidiRequest {
  isBlocked?: boolean;
}

/**
 * The URL policy on WebDriver BiDi: every request is held at `beforeRequestSent`, and a main-frame
 * navigation the policy refuses is answered with a 204 before it is sent. Each redirect hop arrives as its own
 * event, so a hop into a refused origin is never requested; a popup's first navigation is a new
 * top-level context's, held the same way. Everything else continues at once.
 */
export class NavigationGuard {
  private intercept?: string;
  private readonly popups = new Set<string>();

  private constructor(
    private readonly bidi: Bidi,
    private readonly refuse: (url: string) => string | undefined,
    private readonly isFrame: (context: string) => boolean,
  ) {
    bidi.on<BlockedRequest>('network.beforeRequestSent', (e) => {
      if (e.isBlocked) void this.decide(e);
    });
    bidi.on<{ context: string; url: string }>('browsingContext.navigationStarted', (e) => {
      if (this.popups.delete(e.context)) this.checkPopup(e.context, e.url);
    });
  }

  /**
   * A tab the page opened (window.open, target=_blank). Chromium issues its first request before
   * the intercept covers the new context, so that navigation is checked as it starts and a
   * refused popup is closed before its page is shown.
   */
  watchPopup(context: string, url: string): void {
    if (url && url !== 'about:blank') this.checkPopup(context, url);
    else this.popups.add(context);
  }

  private checkPopup(context: string, url: string): void {
    if (!this.refuse(url)) return;
    void this.bidi
      .call('browsingContext.close', { context, promptUnload: false })
      .catch(() => undefined);
  }

  /** Starts holding requests; `isFrame` says whether a context is an iframe (not a tab or popup). */
  static async start(
    bidi: Bidi,
    refuse: (url: string) => string | undefined,
    isFrame: (context: string) => boolean,
  ): Promise<NavigationGuard> {
    const guard = new NavigationGuard(bidi, refuse, isFrame);
    const r = await bidi.call<{ intercept: string }>('network.addIntercept', {
      phases: ['beforeRequestSent'],
    });
    guard.intercept = r.intercept;
    return guard;
  }

  private async decide(e: BlockedRequest): Promise<void> {
    const request = e.request.request;
    const mainFrame = !!e.navigation && !!e.context && !this.isFrame(e.context);
    // A command on a request the browser already dropped (tab closed) fails: nothing to hold then.
    if (!mainFrame || !this.refuse(e.request.url)) {
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
    if (!this.intercept || this.bidi.isClosed()) return;
    const intercept = this.intercept;
    this.intercept = undefined;
    await this.bidi.call('network.removeIntercept', { intercept }).catch(() => undefined);
  }
}
