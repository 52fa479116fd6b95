import { OpError } from '../../core/errors.js';
import { within } from '../../core/within.js';
import { TabRecord } from '../tab-record.js';
import {
  RESOURCE_TYPES,
  TITLE_WAIT_MS,
  type BrowserTab,
  type InterruptOutcome,
  type ConsoleEntry,
  type ConsoleLevel,
  type DialogAnswer,
  type DialogInfo,
  type DismissedDialogs,
  type EntryBuffer,
  type FramePath,
  type MouseButton,
  type NavigationOutcome,
  type NetworkEntry,
  type ResourceType,
  type ScreenshotOptions,
  type TabActivity,
  SECRET_FIELD_CSS,
  frameScale,
  navigationTimeout,
} from '../driver.js';
import { DialogGate } from '../dialog-gate.js';
import { pageState } from '../stuck-probe.js';
import { pageApiExpression } from '../page-script.js';
import { withSecretEchoesBlanked } from '../secret-echoes.js';
import { OneAtATime } from '../one-at-a-time.js';
import { BidiError, fromRemote, type Bidi, type RemoteValue } from './bidi.js';
import { fromWebDriver, netError } from './errors.js';
import { textKeys, webdriverKey } from './keys.js';
import { scaleToJpeg } from './scaled-capture.js';

/** What the session needs from a tab's owner: file input may go through classic WebDriver. */
export interface TabHost {
  /** False when the files are this tab's to set (over BiDi). */
  setInputFiles(
    context: string,
    frames: FramePath,
    handle: number,
    paths: string[],
  ): Promise<boolean>;
  /**
   * Whether the tab's page crashed: BiDi has no event for it, classic WebDriver says "tab crashed";
   * `unanswered` when classic WebDriver did not say within a second.
   */
  pageCrashed(context: string): Promise<'crashed' | 'alive' | 'unanswered'>;
}

/** A window realm gone this long with none after it is not a navigation (they swap at once). */
const REALM_GAP_MS = 300;
/** How long after a navigation or a dialog a slow classic crash check is asked again. */
const CRASH_BUSY_MS = 2000;

/** Firefox's error for an exception it could not build details for (it had no stack). */
const UNDESCRIBED_EXCEPTION = /Missing stack, unable to build exceptionDetails for exception: (.*)/;

/** BiDi events this tab is told about (the session routes them by context). */
export interface BidiRequest {
  request: {
    request: string;
    url: string;
    method: string;
    destination?: string;
    initiatorType?: string;
  };
  navigation: string | null;
  context: string | null;
  redirectCount?: number;
  timestamp?: number;
  response?: {
    status: number;
    statusText?: string;
    bytesReceived?: number;
    headersSize?: number | null;
    bodySize?: number | null;
    content?: { size?: number | null };
    headers?: { name: string; value: { type: string; value: string } }[];
    url?: string;
  };
  errorText?: string;
}
interface LogEntry {
  level: string;
  text: string | null;
  type: string;
  method?: string;
  timestamp?: number;
  stackTrace?: { callFrames: { url: string; lineNumber: number }[] };
}
interface PromptOpened {
  context: string;
  type: DialogInfo['type'];
  message: string;
  defaultValue?: string;
}
interface EvaluateResult {
  type: 'success' | 'exception';
  result?: RemoteValue;
  exceptionDetails?: { text: string; exception?: RemoteValue };
}

const TEXT_LIMIT = 10_000;
/** Frames in frames input is routed through, at most (a page nesting deeper is its own problem). */
const FRAME_DEPTH = 8;
/** Navigation ids a tab remembers for ordering its load events. */
const NAVIGATIONS_KEPT = 32;
/** How long a finished navigation's own events may trail its answer (Firefox). */
const NAVIGATION_EVENT_WAIT_MS = 1000;
const BUTTONS: Record<MouseButton, number> = { left: 0, middle: 1, right: 2 };

/** One top-level browsing context (a tab) of a WebDriver BiDi session. */
export class WebDriverTab implements BrowserTab {
  /** The URL of the document the tab shows: a navigation moves it once it commits, as on CDP. */
  private currentUrl = 'about:blank';
  /** Navigation ids in the order they started, and the order of the one currentUrl came from. */
  private readonly started = new Map<string, number>();
  private startedCount = 0;
  private urlFrom = 0;
  private closed = false;
  private size: { width: number; height: number };
  private pointer = { x: 0, y: 0 };
  /** The context and point the last pointer move went to (on Firefox: maybe a frame's). */
  private pointerFrame?: { context: string; x: number; y: number };
  private readonly record = new TabRecord<string>();
  private readonly entries = new Map<string, NetworkEntry>();
  /** Requests whose failed load is already in the console (headers said 404, then it ended). */
  private readonly loggedFailures = new Set<string>();
  private readonly dialogs = new DialogGate((script) => this.rawEvaluate(this.context, script));
  /** The main document's script realm; a crash destroys it and none follows. */
  private realm?: string;
  /** A popup that keeps its opener, before its first page committed (see onCommitted). */
  private openerPopupLoading = false;
  private dead = false;
  private died?: (error: OpError) => void;
  /** Rejects every command in flight once the page crashed: BiDi would leave them unanswered. */
  private readonly death = new Promise<never>((_, reject) => (this.died = reject));
  private readonly captures = new OneAtATime();

  constructor(
    readonly id: string,
    readonly context: string,
    private readonly bidi: Bidi,
    private readonly host: TabHost,
    viewport: { width: number; height: number },
    /**
     * Firefox dispatches input into the document of the context it is sent to, never on into a
     * frame another process holds (a cross-origin frame): there input goes to the frame under the
     * pointer, or the one holding the focus, in that frame's coordinates. Its BiDi network module
     * sees no `file:` load either, so no file page's links and frames can be held to the policy.
     */
    private readonly firefox = false,
  ) {
    this.size = { ...viewport };
    this.death.catch(() => undefined);
  }

  // --- events, routed here by the session -------------------------------------------------

  onNavigated(url: string, committed: boolean, navigation?: string | null): void {
    if (committed) this.record.navigations++;
    if (navigation && !this.started.has(navigation)) {
      this.started.set(navigation, ++this.startedCount);
      // Only the latest few can still send events that matter.
      if (this.started.size > NAVIGATIONS_KEPT)
        this.started.delete(this.started.keys().next().value!);
    }
    // Heard before its request: until it commits, the page being left is not a quiet one.
    this.record.navigationSent(url);
  }

  onUrl(url: string, navigation?: string | null): void {
    const order = navigation ? (this.started.get(navigation) ?? 0) : 0;
    // Firefox sends an error page's late load after the next navigation started, even under that
    // navigation's id: an older navigation never wins, and the error page shown is not news.
    if (order && order < this.urlFrom) return;
    if (order > this.urlFrom && url === this.currentUrl && firefoxFailedUrl(url) !== undefined)
      return;
    if (order) this.urlFrom = order;
    this.currentUrl = url;
    this.record.navigationEnded(url);
  }

  /** A navigation that never committed (refused by the URL policy, aborted): the page stayed. */
  onNavigationFailed(url: string): void {
    this.record.navigationEnded(url);
  }

  onRequest(e: BidiRequest, topLevel: boolean): void {
    const id = e.request.request;
    if (topLevel && e.navigation) this.record.navigationSent(e.request.url);
    // A redirect reuses the request id: the entry it started stays one entry.
    if (this.entries.has(id)) return;
    this.record.requestStarted(id, topLevel && !!e.navigation);
    const entry: NetworkEntry = {
      method: e.request.method,
      url: e.request.url,
      resource_type: resourceType(e),
      at: e.timestamp ?? Date.now(),
    };
    this.entries.set(id, entry);
    this.record.network.push(entry);
  }

  /** Headers arrived: the status is known, and a body nobody reads (it may never complete) holds no settle. */
  onResponseStarted(e: BidiRequest): void {
    this.record.requestEnded(e.request.request);
    const entry = this.entries.get(e.request.request);
    if (entry && e.response) entry.status = e.response.status;
    this.logLoadFailure(e);
  }

  onResponse(e: BidiRequest, topLevel: boolean): void {
    const id = e.request.request;
    this.record.requestEnded(id);
    const entry = this.entries.get(id);
    this.entries.delete(id);
    const status = e.response?.status;
    if (entry) {
      entry.status = status;
      const size = bodySize(e.response);
      if (size !== undefined) entry.size = size;
      entry.duration_ms = Math.max(0, Date.now() - entry.at);
    }
    this.logLoadFailure(e);
    this.loggedFailures.delete(id);
    if (topLevel && e.navigation) this.record.navigationAnswered(e.request.url, status);
  }

  /**
   * Chromium logs a load that failed into the page's console (CDP Log.entryAdded, which the
   * Playwright backend reads); BiDi's log.entryAdded carries only script's messages, so the same
   * line is written here: an HTTP error for any request, a network error for all but a cancelled
   * request or a main-frame document (that one becomes the error page).
   */
  private logLoadFailure(e: BidiRequest, failure?: string, mainDocument = false): void {
    const id = e.request.request;
    const status = e.response?.status;
    let text: string;
    if (failure !== undefined) {
      if (/\bERR_ABORTED\b/.test(failure) || mainDocument) return;
      text = `Failed to load resource: ${failure}`;
    } else if (status !== undefined && status >= 400) {
      text = `Failed to load resource: the server responded with a status of ${status} (${e.response?.statusText ?? ''})`;
    } else return;
    if (this.loggedFailures.has(id)) return;
    this.loggedFailures.add(id);
    this.record.console.push({
      level: 'error',
      text,
      source: 'console',
      url: e.request.url,
      at: Date.now(),
    });
  }

  onFetchError(e: BidiRequest, topLevel: boolean): void {
    const id = e.request.request;
    this.record.requestEnded(id);
    const entry = this.entries.get(id);
    this.entries.delete(id);
    const text = e.errorText ?? 'failed';
    const net = netError(text);
    // Chromium's own text is `net::ERR_…`; another browser's is said in those words too.
    const failure = net && !text.startsWith('net::') ? `net::${net}` : text;
    if (entry) {
      entry.failure = failure;
      entry.duration_ms = Math.max(0, Date.now() - entry.at);
    }
    this.logLoadFailure(e, failure, topLevel && !!e.navigation);
    this.loggedFailures.delete(id);
    if (topLevel && e.navigation) this.record.navigationFailed(e.request.url, failure);
  }

  /** A navigation that became a download is aborted by the browser: not a failed load. */
  onDownload(url: string): void {
    this.record.download(url);
  }

  onLog(e: LogEntry): void {
    const frame = e.stackTrace?.callFrames?.[0];
    const where = frame?.url ? { url: frame.url, line: frame.lineNumber + 1 } : {};
    if (e.type === 'javascript') {
      this.record.console.push({
        level: 'error',
        text: clip(e.text ?? ''),
        source: 'pageerror',
        ...where,
        at: Date.now(),
      });
      return;
    }
    this.record.console.push({
      level: consoleLevel(e.method, e.level),
      text: clip(e.text ?? ''),
      source: 'console',
      ...where,
      at: Date.now(),
    });
  }

  onPromptOpened(e: PromptOpened): void {
    const info: DialogInfo = { type: e.type, message: e.message };
    if (e.type === 'prompt') info.default_value = e.defaultValue ?? '';
    this.dialogs.opened(info, (answer) => this.handlePrompt(answer));
  }

  onPromptClosed(): void {
    this.dialogs.closed();
  }

  onClosed(): void {
    this.closed = true;
  }

  /** The page opened this tab with window.open and kept its opener. */
  markOpenerPopup(): void {
    this.openerPopupLoading = true;
  }

  onRealmCreated(realm: string): void {
    this.realm = realm;
  }

  /**
   * A navigation committed. A realm still there from before it means a popup that keeps its
   * opener committed its first page into the window of its initial about:blank: Chromium's BiDi
   * then answers no script, sandbox or screenshot sent to the tab, so it is reloaded once.
   */
  onCommitted(url: string, navigation?: string | null): void {
    this.onUrl(url, navigation);
    if (!this.openerPopupLoading) return;
    this.openerPopupLoading = false;
    if (this.realm === undefined) return;
    void this.bidi
      .call('browsingContext.reload', { context: this.context, wait: 'none' })
      .catch(() => undefined);
  }

  onRealmDestroyed(realm: string): void {
    if (realm !== this.realm) return;
    this.realm = undefined;
    this.checkCrashed();
  }

  /** A main realm gone with none after it is a crash, unless a navigation is still on its way. */
  private checkCrashed(): void {
    setTimeout(() => {
      if (this.realm || this.closed || this.dead) return;
      // No document yet is what a navigation waiting for its server looks like: look again later.
      if (this.activity().awaitingServer) return this.checkCrashed();
      void this.host.pageCrashed(this.context).then((verdict) => {
        if (verdict === 'crashed') return this.onCrashed();
        // Classic WebDriver waits for a navigation under way and behind a page's dialogs: no
        // answer then is no sign of a crash (a storming page left at load 20 was taken for one).
        if (verdict === 'unanswered')
          return this.busyLately() ? this.checkCrashed() : this.onCrashed();
      });
    }, REALM_GAP_MS);
  }

  /** A navigation sent or a dialog raised in the last CRASH_BUSY_MS. */
  private busyLately(): boolean {
    return this.dialogs.raisedRecently() || Date.now() - this.record.lastSentAt < CRASH_BUSY_MS;
  }

  private onCrashed(): void {
    this.dead = true;
    this.died?.(
      new OpError(
        'backend',
        `Tab ${this.id} crashed (its page's renderer process died) on ${this.currentUrl}. The next op reopens it on that URL.`,
      ),
    );
  }

  /** A BiDi command on this tab's page; it fails at once when the page crashed. */
  private call<T = Record<string, unknown>>(method: string, params: unknown): Promise<T> {
    return this.dead ? this.death : this.bidi.call<T>(method, params, this.death);
  }

  // --- BrowserTab -------------------------------------------------------------------------

  url(): string {
    return firefoxFailedUrl(this.currentUrl) ?? this.currentUrl;
  }

  showsErrorPage(): boolean {
    if (firefoxFailedUrl(this.currentUrl) !== undefined) return true;
    // Chromium's BiDi reports its error page at the URL that failed: the load's error says it is one.
    const last = this.record.lastNavigation;
    return last?.error !== undefined && last.url === this.currentUrl.split('#')[0];
  }

  knownTitle(): string {
    return this.record.title;
  }

  titleRead(title: string, sentAt: number): void {
    this.record.titleRead(title, sentAt, this.url());
  }

  titleReadSince(since: number): string | undefined {
    return this.record.titleReadSince(since, this.url());
  }

  async title(): Promise<string> {
    if (this.dialogs.pending() || this.dead) return this.record.title;
    try {
      const title = await within(this.evaluate([], 'document.title'), TITLE_WAIT_MS, undefined);
      if (typeof title === 'string') this.record.title = title;
    } catch {
      // navigating or closed: keep the last one
    }
    return this.record.title;
  }

  goto(url: string, timeoutMs: number): Promise<NavigationOutcome> {
    if (this.firefox && url.startsWith('file:'))
      return Promise.reject(
        new OpError(
          'unsupported',
          `Firefox cannot open ${url} here: its WebDriver BiDi shows no file: load, so the links and frames of a file page could not be held to FILE_URL_DIRS. Open file pages on Chromium (browser "chromium"), or serve the files over http.`,
        ),
      );
    return this.navigation(`Loading ${url}`, timeoutMs, async () => {
      const sent = await this.call<{ navigation?: string | null }>('browsingContext.navigate', {
        context: this.context,
        url,
        wait: 'interactive',
      });
      // Firefox can answer before its events for the new document: the error page of the load
      // before would still stand for this one.
      if (sent.navigation && firefoxFailedUrl(this.currentUrl) !== undefined)
        await this.untilShown(sent.navigation);
    });
  }

  /** Waits (briefly: the document is there) for the events of `navigation` to reach this tab. */
  private async untilShown(navigation: string): Promise<void> {
    const until = Date.now() + NAVIGATION_EVENT_WAIT_MS;
    const shown = () => {
      const order = this.started.get(navigation);
      return order !== undefined && order <= this.urlFrom;
    };
    while (!shown() && Date.now() < until) await sleep(20);
  }

  reload(timeoutMs: number): Promise<NavigationOutcome> {
    return this.navigation('Reloading', timeoutMs, () =>
      this.call('browsingContext.reload', { context: this.context, wait: 'interactive' }),
    );
  }

  back(timeoutMs: number): Promise<NavigationOutcome | null> {
    return this.historyStep(-1, 'Going back', timeoutMs);
  }

  forward(timeoutMs: number): Promise<NavigationOutcome | null> {
    return this.historyStep(1, 'Going forward', timeoutMs);
  }

  private async historyStep(
    delta: number,
    doing: string,
    timeoutMs: number,
  ): Promise<NavigationOutcome | null> {
    const beforeUrl = this.currentUrl;
    const beforeNav = this.record.navigations;
    const beforeOutcome = this.record.lastNavigation;
    try {
      await withTimeout(
        this.call('browsingContext.traverseHistory', { context: this.context, delta }),
        timeoutMs,
        doing,
      );
    } catch (e) {
      if (e instanceof BidiError && /no such history entry/i.test(e.message)) return null;
      throw fromWebDriver(e, doing);
    }
    // Traversal answers before the page it reached has loaded: wait for its document.
    await this.untilLoaded(timeoutMs, doing);
    if (this.record.navigations === beforeNav && this.currentUrl === beforeUrl) return null;
    const outcome = this.record.lastNavigation;
    return outcome && outcome !== beforeOutcome
      ? { status: outcome.status, error: outcome.error }
      : {};
  }

  private async untilLoaded(timeoutMs: number, doing: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const state = await this.evaluate([], 'document.readyState');
        if (state !== 'loading') return;
      } catch (e) {
        if (!(e instanceof OpError) || e.kind === 'backend') throw e;
      }
      if (Date.now() > deadline) throw navigationTimeout(doing, timeoutMs);
      await sleep(50);
    }
  }

  private async navigation(
    doing: string,
    timeoutMs: number,
    go: () => Promise<unknown>,
  ): Promise<NavigationOutcome> {
    const before = this.record.lastNavigation;
    try {
      await withTimeout(this.dialogs.navigation(go), timeoutMs, doing);
    } catch (e) {
      if (e instanceof OpError) throw e;
      const net = netError(e instanceof Error ? e.message : String(e));
      if (net) return { error: net };
      throw fromWebDriver(e, doing);
    }
    const outcome = this.record.lastNavigation;
    if (!outcome || outcome === before) return {};
    if (outcome.error) return { error: outcome.error.replace(/^net::/, '') };
    return outcome.status === undefined ? {} : { status: outcome.status };
  }

  /** The BiDi context of a frame path: each handle is an iframe element in its parent frame. */
  private async contextAt(path: FramePath): Promise<string> {
    let context = this.context;
    for (const handle of path) {
      const r = await this.rawEvaluate(
        context,
        `${pageApiExpression}.element(${handle})?.contentWindow ?? null`,
      );
      const v = r.result as { type: string; value?: { context?: string } } | undefined;
      const child = v?.type === 'window' ? v.value?.context : undefined;
      if (!child)
        throw new OpError('stale_element', 'The iframe the target was in is gone or was replaced.');
      context = child;
    }
    return context;
  }

  private async rawEvaluate(context: string, expression: string): Promise<EvaluateResult> {
    try {
      return await this.call<EvaluateResult>('script.evaluate', {
        expression,
        target: { context },
        awaitPromise: true,
        resultOwnership: 'none',
        userActivation: true,
      });
    } catch (e) {
      if (e instanceof BidiError && /no such frame|Cannot find context|detached/i.test(e.message))
        throw new OpError(
          'stale_element',
          'Running script in the page was interrupted: the page navigated or the frame was removed.',
        );
      // Firefox with a preload script fails to describe a thrown error, but names it: the
      // script's exception, as any other browser reports it.
      const thrown = e instanceof BidiError ? UNDESCRIBED_EXCEPTION.exec(e.message) : null;
      if (thrown) return { type: 'exception', exceptionDetails: { text: thrown[1] } };
      throw fromWebDriver(e, 'Running script in the page');
    }
  }

  async evaluate(path: FramePath, expression: string): Promise<unknown> {
    await this.dialogs.guard();
    const r = await this.held(async () => {
      const context = await this.contextAt(path);
      return this.dialogs.script(() => this.rawEvaluate(context, expression));
    });
    if (r.type === 'exception') {
      const text = r.exceptionDetails?.text ?? 'error';
      if (/Execution context was destroyed|Inspected target navigated/i.test(text))
        throw new OpError(
          'stale_element',
          'Running script in the page was interrupted: the page navigated or the frame was removed.',
        );
      throw new OpError(
        'invalid_argument',
        `The script threw in the page: ${text.replace(/^Uncaught /, '').split('\n')[0]}`,
        { details: { page_error: true } },
      );
    }
    return fromRemote(r.result);
  }

  /** A page call, failed at once while a main-frame navigation waits for its server (TabRecord). */
  private held<T>(call: () => Promise<T>): Promise<T> {
    return this.record.pageCall(call, async () => {
      const r = await this.rawEvaluate(this.context, 'location.href');
      return r.type === 'exception' ? undefined : fromRemote(r.result);
    });
  }

  private async actions(doing: string, sources: unknown[], context = this.context): Promise<void> {
    try {
      await this.dialogs.input(this.call('input.performActions', { context, actions: sources }));
    } catch (e) {
      throw fromWebDriver(e, doing);
    }
  }

  private pointerActions(actions: unknown[]): unknown {
    return { type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' }, actions };
  }

  async mouseMove(x: number, y: number): Promise<void> {
    // WebDriver refuses a move outside the viewport where CDP allows it: the nearest point inside.
    const to = {
      x: Math.min(Math.max(Math.round(x), 0), Math.max(this.size.width - 1, 0)),
      y: Math.min(Math.max(Math.round(y), 0), Math.max(this.size.height - 1, 0)),
    };
    this.pointer = to;
    const at = await this.frameAt(to.x, to.y);
    this.pointerFrame = at;
    // A jump is one move with no duration: one pointermove on Chromium and on Firefox (seed 000 §F2.11).
    return this.actions(
      'Moving the pointer',
      [this.pointerActions([{ type: 'pointerMove', x: at.x, y: at.y, duration: 0 }])],
      at.context,
    );
  }

  mouseDown(button: MouseButton): Promise<void> {
    return this.actions(
      'Pressing the mouse button',
      [this.pointerActions([{ type: 'pointerDown', button: BUTTONS[button] }])],
      this.pointerFrame?.context,
    );
  }

  mouseUp(button: MouseButton): Promise<void> {
    return this.actions(
      'Releasing the mouse button',
      [this.pointerActions([{ type: 'pointerUp', button: BUTTONS[button] }])],
      this.pointerFrame?.context,
    );
  }

  wheel(dx: number, dy: number): Promise<void> {
    const at = this.pointerFrame ?? { context: this.context, ...this.pointer };
    return this.actions(
      'Scrolling',
      [
        {
          type: 'wheel',
          id: 'wheel',
          actions: [
            {
              type: 'scroll',
              x: at.x,
              y: at.y,
              deltaX: Math.round(dx),
              deltaY: Math.round(dy),
              duration: 0,
            },
          ],
        },
      ],
      at.context,
    );
  }

  /** Where input at viewport point (x, y) goes: this tab, or (on Firefox) the frame under it. */
  private async frameAt(x: number, y: number): Promise<{ context: string; x: number; y: number }> {
    let at = { context: this.context, x, y };
    if (!this.firefox) return at;
    for (let depth = 0; depth < FRAME_DEPTH; depth++) {
      const inner = await this.innerFrame(
        at.context,
        `(() => { const el = document.elementFromPoint(${at.x}, ${at.y}); if (!el || !/^I?FRAME$/.test(el.tagName)) return null; const r = el.getBoundingClientRect(), cs = getComputedStyle(el); return [el.contentWindow, ${at.x} - r.left - el.clientLeft - parseFloat(cs.paddingLeft), ${at.y} - r.top - el.clientTop - parseFloat(cs.paddingTop)]; })()`,
      );
      if (!inner) return at;
      at = { context: inner.context, x: Math.round(inner.x), y: Math.round(inner.y) };
    }
    return at;
  }

  /** Where key input goes: this tab, or (on Firefox) the frame holding the focus. */
  private async focusedFrame(): Promise<string> {
    let context = this.context;
    if (!this.firefox) return context;
    for (let depth = 0; depth < FRAME_DEPTH; depth++) {
      const inner = await this.innerFrame(
        context,
        `(() => { const el = document.activeElement; return el && /^I?FRAME$/.test(el.tagName) ? [el.contentWindow, 0, 0] : null; })()`,
      );
      if (!inner) return context;
      context = inner.context;
    }
    return context;
  }

  /** The frame an expression names as [window, x, y] in `context`, or undefined. */
  private async innerFrame(
    context: string,
    expression: string,
  ): Promise<{ context: string; x: number; y: number } | undefined> {
    const r = await this.rawEvaluate(context, expression).catch(() => undefined);
    const parts =
      r?.type === 'success' ? (r.result?.value as RemoteValue[] | undefined) : undefined;
    const window = parts?.[0] as { type: string; value?: { context?: string } } | undefined;
    if (!parts || window?.type !== 'window' || !window.value?.context) return undefined;
    return {
      context: window.value.context,
      x: Number(fromRemote(parts[1])),
      y: Number(fromRemote(parts[2])),
    };
  }

  private keyActions(actions: unknown[]): unknown {
    return { type: 'key', id: 'keyboard', actions };
  }

  async keyDown(key: string): Promise<void> {
    const value = webdriverKey(key);
    return this.actions(
      `Pressing ${key}`,
      [this.keyActions([{ type: 'keyDown', value }])],
      await this.focusedFrame(),
    );
  }

  async keyUp(key: string): Promise<void> {
    const value = webdriverKey(key);
    return this.actions(
      `Releasing ${key}`,
      [this.keyActions([{ type: 'keyUp', value }])],
      await this.focusedFrame(),
    );
  }

  insertText(text: string): Promise<void> {
    // WebDriver has no "insert text": each character is typed, in one action sequence.
    return this.typeText(text);
  }

  async typeText(text: string): Promise<void> {
    const keys = textKeys(text).flatMap((value) => [
      { type: 'keyDown', value },
      { type: 'keyUp', value },
    ]);
    if (keys.length === 0) return;
    return this.actions('Typing', [this.keyActions(keys)], await this.focusedFrame());
  }

  /** Runs a capture with fields holding a secret blanked; pages without one are not touched. */
  private withSecretsBlanked<T>(
    capture: () => Promise<T>,
    onEchoes?: (count: number) => void,
  ): Promise<T> {
    return withSecretEchoesBlanked(
      this,
      async (fields) => {
        const added =
          fields &&
          (await this.evaluate(
            [],
            `(() => { const s = document.createElement('style'); s.id = '__swiftbrowse_blank'; s.textContent = ${JSON.stringify(SECRET_FIELD_CSS)}; document.documentElement.appendChild(s); return true; })()`,
          ).catch(() => false));
        try {
          return await capture();
        } finally {
          if (added)
            await this.evaluate(
              [],
              `document.getElementById('__swiftbrowse_blank')?.remove()`,
            ).catch(() => undefined);
        }
      },
      onEchoes,
    );
  }

  async captureViewport(options: { maxWidth: number; quality: number }): Promise<Buffer> {
    if (frameScale(this.size.width, options.maxWidth) === 1)
      return this.screenshot({ type: 'jpeg', quality: options.quality });
    // BiDi captures only at full size: a lossless capture is scaled and encoded once, in the browser.
    const png = await this.screenshot({ type: 'png' });
    return scaleToJpeg(this.bidi, this.context, png, options);
  }

  screenshot(options: ScreenshotOptions): Promise<Buffer> {
    return this.captures.run(() =>
      this.withSecretsBlanked(() => this.captureScreenshot(options), options.onEchoes),
    );
  }

  private async captureScreenshot(options: ScreenshotOptions): Promise<Buffer> {
    await this.dialogs.guard();
    const format =
      options.type === 'jpeg'
        ? { type: 'image/jpeg', quality: (options.quality ?? 80) / 100 }
        : { type: 'image/png' };
    const params: Record<string, unknown> = {
      context: this.context,
      origin: options.fullPage ? 'document' : 'viewport',
      format,
    };
    if (options.clip) params.clip = { type: 'box', ...options.clip };
    try {
      const r = await this.held(() =>
        this.call<{ data: string }>('browsingContext.captureScreenshot', params),
      );
      return Buffer.from(r.data, 'base64');
    } catch (e) {
      throw fromWebDriver(e, 'Taking a screenshot');
    }
  }

  async pdf(): Promise<Buffer> {
    await this.dialogs.guard();
    try {
      const r = await this.captures.run(() =>
        this.withSecretsBlanked(() =>
          this.call<{ data: string }>('browsingContext.print', {
            context: this.context,
            background: true,
          }),
        ),
      );
      return Buffer.from(r.data, 'base64');
    } catch (e) {
      throw fromWebDriver(e, 'Printing to PDF');
    }
  }

  viewport(): { width: number; height: number } {
    return { ...this.size };
  }

  async setViewport(width: number, height: number): Promise<void> {
    try {
      await this.captures.run(() =>
        this.call('browsingContext.setViewport', {
          context: this.context,
          viewport: { width, height },
        }),
      );
      this.size = { width, height };
    } catch (e) {
      if (e instanceof BidiError && /unsupported operation/i.test(e.message))
        throw new OpError(
          'unsupported',
          'This browser cannot set its viewport size over WebDriver BiDi.',
        );
      throw fromWebDriver(e, 'Resizing the viewport');
    }
  }

  /** Reads the viewport a re-attached tab already has. */
  async readViewport(): Promise<void> {
    const size = await this.evaluate([], '[innerWidth, innerHeight]').catch(() => undefined);
    if (Array.isArray(size)) this.size = { width: Number(size[0]), height: Number(size[1]) };
  }

  async setInputFiles(path: FramePath, handle: number, paths: string[]): Promise<void> {
    await this.dialogs.guard();
    if (await this.host.setInputFiles(this.context, path, handle, paths)) return;
    try {
      const context = await this.contextAt(path);
      const r = await this.call<EvaluateResult>('script.evaluate', {
        expression: `${pageApiExpression}.element(${handle})`,
        target: { context },
        awaitPromise: false,
        resultOwnership: 'root',
      });
      const element = r.result as { type: string; sharedId?: string } | undefined;
      if (r.type !== 'success' || !element?.sharedId)
        throw new OpError('stale_element', 'The file input was removed from the page.');
      await this.call('input.setFiles', {
        context,
        element: { sharedId: element.sharedId },
        files: paths,
      });
    } catch (e) {
      throw fromWebDriver(e, 'Setting the files');
    }
  }

  activity(since = 0): TabActivity {
    return this.record.activity(since);
  }

  consoleEntries(options: { clear?: boolean } = {}): EntryBuffer<ConsoleEntry> {
    return this.record.console.read(options.clear ?? false);
  }

  networkEntries(options: { clear?: boolean } = {}): EntryBuffer<NetworkEntry> {
    return this.record.network.read(options.clear ?? false);
  }

  pendingDialog(): DialogInfo | undefined {
    return this.dialogs.pending();
  }

  answerDialog(answer: DialogAnswer): Promise<void> {
    return this.dialogs.answer(answer);
  }

  private async handlePrompt(answer: DialogAnswer): Promise<void> {
    const params: Record<string, unknown> = { context: this.context, accept: answer.accept };
    if (answer.accept && answer.text !== undefined) params.userText = answer.text;
    await this.bidi.call('browsingContext.handleUserPrompt', params).catch(() => undefined);
  }

  armDialog(answer: DialogAnswer): void {
    this.dialogs.arm(answer);
  }

  takeDismissedDialogs(): DismissedDialogs | undefined {
    return this.dialogs.takeDismissed();
  }

  crashed(): boolean {
    return this.dead;
  }

  async interrupt(due?: number): Promise<InterruptOutcome> {
    // A navigation waiting for its server holds every command, yet no script runs to stop.
    if (this.dead || this.isClosed() || this.activity().awaitingServer) return 'answering';
    const state = await pageState({
      probe: () => this.rawEvaluate(this.context, '1'),
      // The browser answers this without the page.
      ping: () => this.bidi.call('browsingContext.getTree', { maxDepth: 0 }),
      busy: this.dialogs.raisedRecently() ? undefined : this.record.oldestCall(),
      // BiDi has no command that tells a running script from a layout: a held page is stuck.
      due,
    });
    // WebDriver has no way to stop a page's script: the session replaces the tab.
    return state === 'answering' || state === 'unanswered' ? state : 'stuck';
  }

  /** Ends a tab stuck in script: the calls waiting on its page fail with `error` at once. */
  async abandon(error: OpError, waitMs: number): Promise<void> {
    this.closed = true;
    this.died?.(error);
    await within(this.close(), waitMs, undefined);
  }

  async bringToFront(): Promise<void> {
    await this.bidi.call('browsingContext.activate', { context: this.context }).catch((e) => {
      throw fromWebDriver(e, 'Bringing the tab to the front');
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.bidi
      .call('browsingContext.close', { context: this.context, promptUnload: false })
      .catch(() => undefined);
  }

  isClosed(): boolean {
    return this.closed || this.bidi.isClosed();
  }
}

/** Firefox's error pages stand for the URL that failed (`u`), as Chromium's does. */
const FIREFOX_ERROR_PAGE = /^about:(?:neterror|certerror)\?/;

function firefoxFailedUrl(url: string): string | undefined {
  if (!FIREFOX_ERROR_PAGE.test(url)) return undefined;
  return new URLSearchParams(url.slice(url.indexOf('?') + 1)).get('u') ?? undefined;
}

const LATE = Symbol('late');

async function withTimeout<T>(work: Promise<T>, ms: number, doing: string): Promise<T> {
  const answer = await within(work, ms, LATE);
  if (answer === LATE) throw navigationTimeout(doing, ms);
  return answer;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function clip(text: string): string {
  return text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}…` : text;
}

/** BiDi console methods and levels onto ours. */
function consoleLevel(method: string | undefined, level: string): ConsoleLevel {
  switch (method) {
    case 'error':
    case 'assert':
      return 'error';
    case 'warn':
      return 'warning';
    case 'info':
      return 'info';
    case 'debug':
      return 'debug';
    case 'trace':
      return 'trace';
    case 'log':
    case 'dir':
    case 'dirxml':
    case 'table':
    case 'count':
    case 'timeEnd':
    case 'group':
    case 'groupCollapsed':
      return 'log';
  }
  return level === 'warn'
    ? 'warning'
    : level === 'error'
      ? 'error'
      : level === 'debug'
        ? 'debug'
        : 'info';
}

/**
 * Response body bytes as sent (compressed if the server compressed), Playwright's
 * `responseBodySize`: the Content-Length when there is one, else the body's own size when nothing
 * encoded it (Chromium says it in `content.size`, Firefox in `bodySize`; Chromium's `bodySize`
 * counts the headers too), else what arrived less BiDi's count of the headers.
 */
function bodySize(response: BidiRequest['response']): number | undefined {
  if (!response) return undefined;
  const length = headerValue(response, 'content-length');
  if (length !== undefined && /^\d+$/.test(length)) return Number(length);
  const { bytesReceived, headersSize, bodySize: body } = response;
  const own =
    (response.content?.size ?? 0) > 0
      ? response.content?.size
      : typeof body === 'number' && typeof bytesReceived === 'number' && body < bytesReceived
        ? body
        : undefined;
  if (own !== undefined && own !== null && headerValue(response, 'content-encoding') === undefined)
    return own;
  if (typeof bytesReceived !== 'number' || typeof headersSize !== 'number') return undefined;
  return bytesReceived >= headersSize ? bytesReceived - headersSize : undefined;
}

function headerValue(
  response: NonNullable<BidiRequest['response']>,
  name: string,
): string | undefined {
  const header = response.headers?.find((h) => h.name.toLowerCase() === name);
  return header?.value.type === 'string' ? header.value.value : undefined;
}

/** Fetch metadata's destination (what BiDi reports) onto the resource types Playwright names. */
const DESTINATION: Record<string, ResourceType> = {
  document: 'document',
  iframe: 'document',
  frame: 'document',
  style: 'stylesheet',
  script: 'script',
  worker: 'script',
  sharedworker: 'script',
  serviceworker: 'script',
  image: 'image',
  audio: 'media',
  video: 'media',
  track: 'texttrack',
  font: 'font',
  manifest: 'manifest',
};

function resourceType(e: BidiRequest): ResourceType {
  if (e.navigation) return 'document';
  const initiator = e.request.initiatorType;
  if (initiator === 'fetch' || initiator === 'xmlhttprequest')
    return initiator === 'fetch' ? 'fetch' : 'xhr';
  const d = e.request.destination;
  if (d && DESTINATION[d]) return DESTINATION[d];
  if (d === '' || d === undefined) return 'fetch';
  return (RESOURCE_TYPES as readonly string[]).includes(d) ? (d as ResourceType) : 'other';
}
