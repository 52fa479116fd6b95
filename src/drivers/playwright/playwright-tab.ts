import { errors } from 'playwright-core';
import type {
  CDPSession,
  ConsoleMessage,
  Dialog,
  Frame,
  JSHandle,
  Page,
  Request,
} from 'playwright-core';
import { OpError } from '../../core/errors.js';
import { within } from '../../core/within.js';
import {
  RESOURCE_TYPES,
  SECRET_FIELD_CSS,
  TITLE_WAIT_MS,
  frameScale,
  navigationTimeout,
  STOP_MS,
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
} from '../driver.js';
import { DialogGate } from '../dialog-gate.js';
import { pageState } from '../stuck-probe.js';
import { pageApiExpression } from '../page-script.js';
import { withSecretEchoesBlanked } from '../secret-echoes.js';
import { OneAtATime } from '../one-at-a-time.js';
import { TabRecord } from '../tab-record.js';
import { fromPlaywright, isPageScriptError, stripPrefix } from './errors.js';

/** Times a goto is sent when the page's own navigations keep cancelling it (a reload loop). */
const GOTO_ATTEMPTS = 4;
/**
 * A screencast's first frame comes in 20-250 ms under load, even from a page busy in script; a
 * tab that paints nothing (hidden) sends none, and the log goes without rather than wait.
 */
const PAINTED_FRAME_WAIT_MS = 2000;

/** One Playwright page as a Driver tab. */
export class PlaywrightTab implements BrowserTab {
  private readonly record = new TabRecord<Request>();
  private readonly dialogs = new DialogGate((script) => this.page.evaluate(script));
  private dead = false;
  private readonly requestEntries = new WeakMap<Request, NetworkEntry>();
  /** The main frame's CDP session: captures, liveness pings, stopping a script. */
  private cdp: Promise<CDPSession>;
  private readonly captures = new OneAtATime();
  /** The CDP session log frames are taken through, opened on the first. */
  private frameSession?: Promise<CDPSession>;
  /** The URL of the last main-frame load that failed: what Chromium's error page stands for. */
  private failedUrl?: string;

  constructor(
    readonly id: string,
    readonly page: Page,
  ) {
    this.cdp = this.openSession();
    // Listening from construction, before any navigation, catches what a page logs while loading.
    page.on('console', (m) => this.onConsole(m));
    page.on('pageerror', (e) => this.onPageError(e));
    page.on('request', (r) => {
      const navigation = r.isNavigationRequest() && r.frame() === page.mainFrame();
      this.record.requestStarted(r, navigation);
      if (navigation) this.record.navigationSent(r.url());
      this.onRequest(r);
    });
    page.on('requestfinished', (r) => {
      this.record.requestEnded(r);
      this.onRequestDone(r);
    });
    page.on('requestfailed', (r) => {
      // A body cut short after its server answered (a later navigation took over) is not a failed load.
      const answered = this.requestEntries.get(r)?.status !== undefined;
      this.record.requestEnded(r);
      this.onRequestDone(r, r.failure()?.errorText ?? 'failed');
      if (!answered && r.isNavigationRequest() && r.frame() === page.mainFrame()) {
        this.failedUrl = r.url();
        this.record.navigationFailed(r.url(), r.failure()?.errorText ?? 'failed');
      }
    });
    page.on('response', (r) => {
      const req = r.request();
      this.record.requestEnded(req);
      const entry = this.requestEntries.get(req);
      if (entry) {
        entry.status = r.status();
        const length = r.headers()['content-length'];
        if (length !== undefined && /^\d+$/.test(length)) entry.size = Number(length);
      }
      if (req.isNavigationRequest() && req.frame() === page.mainFrame()) {
        this.record.navigationAnswered(r.url(), r.status());
      }
    });
    page.on('framenavigated', (f) => {
      if (f !== page.mainFrame()) return;
      this.record.navigations++;
      this.record.navigationEnded(f.url());
    });
    page.on('dialog', (d) => this.dialogs.opened(dialogInfo(d), (a) => answer(d, a)));
    page.on('crash', () => (this.dead = true));
    page.on('download', (d) => this.record.download(d.url()));
  }

  /**
   * Opened while the page still answers: a session attached while its script spins is set up on
   * the renderer's busy main thread, so its Runtime.terminateExecution went unanswered (25 s seen).
   */
  private openSession(): Promise<CDPSession> {
    const session = this.page.context().newCDPSession(this.page);
    session.catch(() => undefined);
    return session;
  }

  url(): string {
    // The address bar, and BiDi, show the URL that failed; CDP names the error page's document.
    return this.showsErrorPage() ? (this.failedUrl ?? this.page.url()) : this.page.url();
  }

  showsErrorPage(): boolean {
    return this.page.url().startsWith('chrome-error://');
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
    // A page behind a dialog (or crashed) cannot run script; the title it had is the honest answer.
    if (this.dialogs.pending() || this.dead) return this.record.title;
    try {
      const title = this.held(() => this.page.title());
      this.record.title = await within(title, TITLE_WAIT_MS, this.record.title);
    } catch {
      // closed or navigating: keep the last one
    }
    return this.record.title;
  }

  async goto(url: string, timeoutMs: number): Promise<NavigationOutcome> {
    const deadline = Date.now() + timeoutMs;
    const earlier = this.record.lastSent;
    // Ours queued behind a navigation held by its server goes on after it; not sent again then.
    const attempts = this.activity().awaitingServer ? 1 : GOTO_ATTEMPTS;
    const load = (ms: number) =>
      this.navigation(`Loading ${url}`, timeoutMs, () =>
        this.page.goto(url, { timeout: ms, waitUntil: 'domcontentloaded' }),
      );
    for (let attempt = 0; ; attempt++) {
      try {
        const outcome = await load(Math.max(deadline - Date.now(), 1));
        // Aborted by the page's own reload of itself (a loop): sent again while time is left.
        const cancelled =
          /ERR_ABORTED/.test(outcome.error ?? '') && earlier !== url && this.page.url() === earlier;
        if (!cancelled || attempt >= attempts - 1 || Date.now() >= deadline) return outcome;
      } catch (e) {
        // Chromium queues our navigation behind commands held by an earlier one that waits for
        // its server; answered, that one commits first and Playwright calls ours interrupted,
        // though ours still goes on after it.
        const stale =
          earlier !== undefined &&
          earlier !== url &&
          `interrupted by another navigation to "${earlier}"`;
        if (!stale || !(e instanceof OpError) || !e.message.includes(stale)) throw e;
        const left = () => Math.max(deadline - Date.now(), 1);
        const away = (u: URL) => u.href !== earlier;
        // A page that reloads itself in a loop cancels ours instead: it is sent again.
        if (attempt < attempts - 1 && left() > 1) {
          const moved = await this.page
            .waitForURL(away, { timeout: Math.min(left(), 1000), waitUntil: 'domcontentloaded' })
            .then(
              () => true,
              () => false,
            );
          const ours = this.record.lastNavigation;
          if (moved && ours && ours.url !== earlier) return ours;
          if (!moved) continue;
        }
        const outcome = await this.navigation(`Loading ${url}`, timeoutMs, async () => {
          await this.page.waitForURL(away, { timeout: left(), waitUntil: 'domcontentloaded' });
          return null;
        });
        const ours = this.record.lastNavigation;
        return outcome.error || !ours || ours.url === earlier ? outcome : ours;
      }
    }
  }

  async back(timeoutMs: number): Promise<NavigationOutcome | null> {
    return this.historyStep('Going back', timeoutMs, () =>
      this.page.goBack({ timeout: timeoutMs, waitUntil: 'domcontentloaded' }),
    );
  }

  async forward(timeoutMs: number): Promise<NavigationOutcome | null> {
    return this.historyStep('Going forward', timeoutMs, () =>
      this.page.goForward({ timeout: timeoutMs, waitUntil: 'domcontentloaded' }),
    );
  }

  async reload(timeoutMs: number): Promise<NavigationOutcome> {
    return this.navigation('Reloading', timeoutMs, () =>
      this.page.reload({ timeout: timeoutMs, waitUntil: 'domcontentloaded' }),
    );
  }

  private async historyStep(
    doing: string,
    timeoutMs: number,
    go: () => ReturnType<Page['goBack']>,
  ): Promise<NavigationOutcome | null> {
    const before = this.record.navigations;
    const outcome = await this.navigation(doing, timeoutMs, go);
    return this.record.navigations === before && outcome.status === undefined ? null : outcome;
  }

  private async navigation(
    doing: string,
    timeoutMs: number,
    go: () => ReturnType<Page['goto']>,
  ): Promise<NavigationOutcome> {
    try {
      const response = await this.dialogs.navigation(go);
      return response ? { status: response.status() } : {};
    } catch (e) {
      if (e instanceof errors.TimeoutError) throw navigationTimeout(doing, timeoutMs);
      const err = fromPlaywright(e, doing);
      if (err.kind === 'navigation_failed')
        return { error: String(err.details?.error ?? err.message) };
      throw err;
    }
  }

  private async frameAt(path: FramePath): Promise<Frame> {
    let frame = this.page.mainFrame();
    for (const handle of path) {
      const h: JSHandle = await frame.evaluateHandle(`${pageApiExpression}.element(${handle})`);
      const child = await h.asElement()?.contentFrame();
      await h.dispose();
      if (!child)
        throw new OpError('stale_element', 'The iframe the target was in is gone or was replaced.');
      frame = child;
    }
    return frame;
  }

  async evaluate(path: FramePath, expression: string): Promise<unknown> {
    await this.dialogs.guard();
    try {
      return await this.held(() => this.evaluateIn(path, expression));
    } catch (e) {
      if (e instanceof OpError) throw e;
      if (isPageScriptError(e)) {
        throw new OpError(
          'invalid_argument',
          `The script threw in the page: ${stripPrefix((e as Error).message).split('\n')[0]}`,
          {
            details: { page_error: true },
          },
        );
      }
      throw fromPlaywright(e, 'Running script in the page');
    }
  }

  private async evaluateIn(path: FramePath, expression: string): Promise<unknown> {
    const frame = await this.frameAt(path);
    return this.dialogs.script(() => frame.evaluate(expression));
  }

  /** A page call, failed at once while a main-frame navigation waits for its server (TabRecord). */
  private held<T>(call: () => Promise<T>): Promise<T> {
    return this.record.pageCall(call, () => this.page.mainFrame().evaluate('location.href'));
  }

  private async input(doing: string, send: () => Promise<void>): Promise<void> {
    try {
      await this.dialogs.input(send());
    } catch (e) {
      throw fromPlaywright(e, doing);
    }
  }

  mouseMove(x: number, y: number): Promise<void> {
    return this.input('Moving the pointer', () => this.page.mouse.move(x, y));
  }
  mouseDown(button: MouseButton, clickCount: number): Promise<void> {
    return this.input('Pressing the mouse button', () =>
      this.page.mouse.down({ button, clickCount }),
    );
  }
  mouseUp(button: MouseButton, clickCount: number): Promise<void> {
    return this.input('Releasing the mouse button', () =>
      this.page.mouse.up({ button, clickCount }),
    );
  }
  wheel(dx: number, dy: number): Promise<void> {
    return this.input('Scrolling', () => this.page.mouse.wheel(dx, dy));
  }
  keyDown(key: string): Promise<void> {
    return this.input(`Pressing ${key}`, () => this.page.keyboard.down(key));
  }
  keyUp(key: string): Promise<void> {
    return this.input(`Releasing ${key}`, () => this.page.keyboard.up(key));
  }
  insertText(text: string): Promise<void> {
    return this.input('Typing', () => this.page.keyboard.insertText(text));
  }
  typeText(text: string): Promise<void> {
    return this.input('Typing', () => this.page.keyboard.type(text));
  }

  async screenshot(options: ScreenshotOptions): Promise<Buffer> {
    try {
      return await this.held(() => this.capturePage(options));
    } catch (e) {
      throw fromPlaywright(e, 'Taking a screenshot');
    }
  }

  private capturePage({ onEchoes, ...options }: ScreenshotOptions): Promise<Buffer> {
    return this.captures.run(() =>
      withSecretEchoesBlanked(
        this,
        () =>
          this.page.screenshot({
            ...options,
            animations: 'disabled',
            caret: 'hide',
            // Applied for this capture only, into frames and shadow roots too.
            style: SECRET_FIELD_CSS,
            timeout: 15_000,
          }),
        onEchoes,
      ),
    );
  }

  captureViewport(options: { maxWidth: number; quality: number }): Promise<Buffer> {
    return this.held(() => this.captureCompositor(options));
  }

  private captureCompositor(options: { maxWidth: number; quality: number }): Promise<Buffer> {
    return this.captures.run(async () => {
      try {
        const cdp = await this.cdp;
        // Straight from the compositor: page.screenshot would finish CSS transitions and inject a
        // caret-hiding style, which the page can observe.
        const css = (await cdp.send('Page.getLayoutMetrics')).cssVisualViewport;
        // clip.scale counts CSS pixels, so the image is CSS-sized whatever the device scale factor.
        const scale = frameScale(css.clientWidth, options.maxWidth);
        const { data } = await this.withSecretsBlanked(() =>
          cdp.send('Page.captureScreenshot', {
            format: 'jpeg',
            quality: options.quality,
            clip: {
              x: css.pageX,
              y: css.pageY,
              width: css.clientWidth,
              height: css.clientHeight,
              scale,
            },
          }),
        );
        return Buffer.from(data, 'base64');
      } catch (e) {
        throw fromPlaywright(e, 'Capturing the viewport');
      }
    });
  }

  paintedFrame(options: { maxWidth: number; quality: number }): Promise<Buffer | undefined> {
    return this.captures.run(async () => {
      try {
        // Its own CDP session: a capture that fails resets the shared one.
        const cdp = await (this.frameSession ??= this.page.context().newCDPSession(this.page));
        const painted = new Promise<Buffer>((resolve) =>
          cdp.once('Page.screencastFrame', (f) => {
            cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }).catch(() => undefined);
            resolve(Buffer.from(f.data, 'base64'));
          }),
        );
        // A screencast's first frame is the surface as last painted, sent without a new paint.
        // The width binds: frames are at most maxWidth CSS pixels wide, like captureViewport's.
        await cdp.send('Page.startScreencast', {
          format: 'jpeg',
          quality: options.quality,
          maxWidth: options.maxWidth,
          maxHeight: options.maxWidth * 8,
        });
        try {
          return await within(painted, PAINTED_FRAME_WAIT_MS, undefined);
        } finally {
          await cdp.send('Page.stopScreencast').catch(() => undefined);
        }
      } catch {
        this.frameSession = undefined;
        return undefined;
      }
    });
  }

  /** Runs a capture with fields holding a secret blanked; pages without one are not touched. */
  private withSecretsBlanked<T>(capture: () => Promise<T>): Promise<T> {
    return withSecretEchoesBlanked(this, async (fields) => {
      const blank = fields ? await this.page.addStyleTag({ content: SECRET_FIELD_CSS }) : undefined;
      try {
        return await capture();
      } finally {
        await blank
          ?.evaluate((el) => (el as unknown as { remove(): void }).remove())
          .catch(() => undefined);
      }
    });
  }

  async pdf(): Promise<Buffer> {
    try {
      return await this.captures.run(() =>
        this.withSecretsBlanked(() => this.page.pdf({ printBackground: true })),
      );
    } catch (e) {
      const err = fromPlaywright(e, 'Printing to PDF');
      if (/headless/i.test(err.message))
        throw new OpError(
          'unsupported',
          'PDF needs a headless browser; open the session with headless: true.',
        );
      throw err;
    }
  }

  viewport(): { width: number; height: number } {
    return this.page.viewportSize() ?? { width: 0, height: 0 };
  }

  async setViewport(width: number, height: number): Promise<void> {
    await this.captures.run(() => this.page.setViewportSize({ width, height }));
  }

  async setInputFiles(path: FramePath, handle: number, paths: string[]): Promise<void> {
    const frame = await this.frameAt(path);
    const h: JSHandle = await frame.evaluateHandle(`${pageApiExpression}.element(${handle})`);
    const el = h.asElement();
    try {
      if (!el) throw new OpError('stale_element', 'The file input was removed from the page.');
      await el.setInputFiles(paths);
    } catch (e) {
      throw fromPlaywright(e, 'Setting the files');
    } finally {
      await h.dispose();
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

  private onConsole(m: ConsoleMessage): void {
    const level = CONSOLE_LEVEL[m.type()];
    if (!level) return;
    const { url, lineNumber, columnNumber } = m.location();
    // What Chromium logs itself (a failed load, CDP Log.entryAdded) has no arguments and names
    // the resource, not a line of script: Playwright's 0:0 is no place in it.
    const own = m.args().length === 0 && lineNumber === 0 && columnNumber === 0;
    this.record.console.push({
      level,
      text: clip(m.text()),
      source: 'console',
      ...(url ? { url } : {}),
      ...(url && !own ? { line: lineNumber + 1 } : {}),
      at: Date.now(),
    });
  }

  private onPageError(e: Error): void {
    this.record.console.push({
      level: 'error',
      text: clip(`${e.name || 'Error'}: ${e.message}`),
      source: 'pageerror',
      ...stackLocation(e.stack),
      at: Date.now(),
    });
  }

  private onRequest(r: Request): void {
    const entry: NetworkEntry = {
      method: r.method(),
      url: r.url(),
      resource_type: resourceType(r.resourceType()),
      at: Date.now(),
    };
    this.requestEntries.set(r, entry);
    this.record.network.push(entry);
  }

  private onRequestDone(r: Request, failure?: string): void {
    const entry = this.requestEntries.get(r);
    if (!entry) return;
    this.requestEntries.delete(r);
    if (failure) entry.failure = failure;
    // A Content-Length (read at the response) is exact; the count otherwise holds chunk framing.
    // Playwright already holds the byte counts once the request finished: no browser round trip.
    else if (entry.size === undefined)
      void r
        .sizes()
        .then((sizes) => {
          // Chromium's count less its header estimate comes out below zero for some error bodies.
          if (sizes.responseBodySize >= 0) entry.size = sizes.responseBodySize;
        })
        .catch(() => undefined);
    const { responseEnd } = r.timing();
    entry.duration_ms = Math.round(
      !failure && responseEnd >= 0 ? responseEnd : Date.now() - entry.at,
    );
  }

  pendingDialog(): DialogInfo | undefined {
    return this.dialogs.pending();
  }

  answerDialog(answer: DialogAnswer): Promise<void> {
    return this.dialogs.answer(answer);
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
    if (this.dead || this.page.isClosed() || this.activity().awaitingServer) return 'answering';
    // The main frame's renderer and each out-of-process iframe's run script on threads of their
    // own; a same-process iframe has no session of its own and stops with its parent's.
    const main = this.page.mainFrame();
    const browserSession = () => this.cdp;
    const states = await Promise.all(
      this.page.frames().map(async (frame) => {
        // An out-of-process iframe has a session of its own, opened only for a page that is held.
        let own: Promise<CDPSession> | undefined;
        const session = () =>
          frame === main ? browserSession() : (own ??= this.page.context().newCDPSession(frame));
        const state = await pageState({
          probe: () => frame.evaluate('1'),
          // The browser process answers this without the page's renderer.
          ping: async () => (await browserSession()).send('Browser.getVersion'),
          busy: this.dialogs.raisedRecently() ? undefined : this.record.oldestCall(),
          // Chromium answers this between two steps of a running script, not during layout.
          inScript: async () => (await session()).send('Performance.getMetrics'),
          due,
        });
        // Without a due time the stop still gets a bound: a timer of Infinity fires at once.
        const stopBy = (due ?? Date.now()) + (due === undefined ? 1000 : STOP_MS);
        // Too late: the caller has answered that nothing was stopped (a starved machine).
        const cdp =
          state === 'script' ? await within(session(), stopBy - Date.now(), undefined) : undefined;
        if (cdp && Date.now() <= stopBy) {
          // Stops the script running now: the calls waiting on it fail and the page answers
          // again. Sent is what the caller needs to know; the op's own wait covers it taking hold.
          const stopped = cdp.send('Runtime.terminateExecution').catch(() => undefined);
          if (own) void stopped.then(() => cdp.detach()).catch(() => undefined);
          return 'stopped' as const;
        }
        void own?.then((cdp) => cdp.detach()).catch(() => undefined);
        return state === 'script' ? ('answering' as const) : state;
      }),
    );
    if (states.includes('stopped')) return 'stopped';
    if (states.includes('rendering')) return 'rendering';
    return states.includes('unanswered') ? 'unanswered' : 'answering';
  }

  async bringToFront(): Promise<void> {
    await this.page.bringToFront();
  }

  async close(): Promise<void> {
    await this.page.close({ runBeforeUnload: false }).catch(() => undefined);
  }

  isClosed(): boolean {
    return this.page.isClosed();
  }
}

function answer(d: Dialog, a: DialogAnswer): Promise<void> {
  return a.accept ? d.accept(a.text) : d.dismiss();
}

function dialogInfo(d: Dialog): DialogInfo {
  const info: DialogInfo = { type: d.type() as DialogInfo['type'], message: d.message() };
  if (d.type() === 'prompt') info.default_value = d.defaultValue();
  return info;
}

/** A console message longer than this is cut, so one huge log cannot hold the memory. */
const TEXT_LIMIT = 10_000;

/** Playwright's console types onto ours; grouping and timer bookkeeping are left out. */
const CONSOLE_LEVEL: Partial<Record<string, ConsoleLevel>> = {
  error: 'error',
  assert: 'error',
  warning: 'warning',
  info: 'info',
  log: 'log',
  dir: 'log',
  dirxml: 'log',
  table: 'log',
  count: 'log',
  timeEnd: 'log',
  startGroup: 'log',
  startGroupCollapsed: 'log',
  debug: 'debug',
  trace: 'trace',
};

function clip(text: string): string {
  return text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}…` : text;
}

function resourceType(type: string): ResourceType {
  return (RESOURCE_TYPES as readonly string[]).includes(type) ? (type as ResourceType) : 'other';
}

/** The first stack frame with a URL: where an uncaught error was thrown. */
function stackLocation(stack: string | undefined): { url?: string; line?: number } {
  const m = /^\s*at (?:.*?\()?([a-z][\w+.-]*:\/\/[^\s()]+?):(\d+):\d+\)?\s*$/m.exec(stack ?? '');
  return m ? { url: m[1], line: Number(m[2]) } : {};
}
