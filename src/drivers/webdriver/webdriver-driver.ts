import { pagePreloadScript } from '../page-script.js';
import { readFileSync } from 'node:fs';
import { OpError } from '../../core/errors.js';
import type {
  BrowserInfo,
  BrowserLoss,
  BrowserSession,
  BrowserTab,
  DownloadRecord,
  Driver,
  FramePath,
  OpenOptions,
  RunningBrowser,
  StorageState,
} from '../driver.js';
import { Bidi } from './bidi.js';
import { buildCapabilities, type BuiltCapabilities, type SentCapability } from './capabilities.js';
import { fromNewSession, fromWebDriver, isQueueTimeout, QueueWaitExpired } from './errors.js';
import { gridStatus, nodeOfSession } from './grid-status.js';
import { chooseDownloads, downloadsOffReason } from './managed-downloads.js';
import { NavigationGuard } from './navigation-guard.js';
import { silentLiveNodes } from './node-loss.js';
import { GridControl } from './grid-control.js';
import { createSession, existingSession, type SeleniumDriver } from './selenium.js';
import type { CrashVerdict, SessionControl } from './session-control.js';
import { WebDriverTab, type BidiRequest, type TabHost } from './webdriver-tab.js';

/** How long closing a tab stuck in script may take before the tab is left behind. */
const STUCK_CLOSE_MS = 2000;

/** What the operator's admin view shows about a Grid browser; a model never sees `sent`. */
export interface SentCapabilities {
  /** What the session asked for: browser and version (`latest` when none). */
  asked: { browser: string; version: string };
  /** Every top-level capability sent, with the layers that fed it. */
  sent: SentCapability[];
  /** Vendor entries where SwiftBrowse's own value beat the caller's or the config's. */
  ignored: string[];
  /** The video `record` asked for, and whether the Grid's answer carries `se:recordVideo`. */
  video?: { name: string; accepted: boolean };
}

/** What a store keeps to find a Grid browser again. */
interface Handle {
  id: string;
  running: RunningBrowser;
  sent?: SentCapabilities;
  liveView?: boolean;
}

/** The browser was asked for with managed downloads (a handle from before the sent set says yes). */
function downloadsAsked(sent: SentCapabilities | undefined): boolean {
  return !sent || sent.sent.some((c) => c.key === 'se:downloadsEnabled');
}

export interface WebDriverSettings {
  /** Any W3C endpoint: a Selenium Grid, a standalone server, or a local ChromeDriver. */
  gridUrl: string;
  /** SESSION_CAPABILITIES: under every request. */
  capabilities?: Record<string, unknown>;
  /** SESSION_VERSION: the browser version asked for when neither client nor open names one. */
  version?: string;
  /** Longest wait for a node, in ms; 0 waits as long as the Grid queue does (seed 004 ruling 12). */
  queueWaitMs?: number;
  /** How often `onProgress` is told while the Grid queue holds the request. */
  progressEveryMs?: number;
  /** Hosts every request to which fails before it is sent (cloud metadata); `*` entries are dropped. */
  blockedHosts?: readonly string[];
}

interface ContextCreated {
  context: string;
  parent: string | null;
  url: string;
  originalOpener?: string | null;
  userContext?: string;
}

/** Where a session's browser is: on a Grid (with or without a live view), or a local Firefox's user context. */
export interface SessionPlace {
  liveView?: boolean;
  /** False for a local Firefox: its session id is no Grid's. */
  onGrid?: boolean;
  /**
   * The BiDi user context this session owns in a browser that outlives it (a local Firefox kept
   * for the next session): its tabs, cookies, storage and downloads are its own, and the
   * connection is left open when it ends.
   */
  userContext?: string;
  /** Why this browser's downloads cannot be brought here: it was opened without managed downloads. */
  downloadsOff?: string;
}
interface NavigationEvent {
  context: string;
  url: string;
  navigation?: string | null;
}

/**
 * One browser driven over WebDriver BiDi (on a Grid, or a local Firefox): its tabs are the
 * top-level browsing contexts; `control` does the little BiDi cannot.
 */
export class WebDriverSession implements BrowserSession, TabHost {
  private readonly open = new Map<string, WebDriverTab>();
  private readonly parentOf = new Map<string, string>();
  private listeners: ((tab: BrowserTab) => void)[] = [];
  private creating: Promise<unknown> = Promise.resolve();
  private seq = 0;
  private closed = false;
  private fetched = new Set<string>();
  /** Files the node offered that could not be written here, with why (a full or read-only disk). */
  private readonly unwritten = new Map<string, string>();
  private readonly downloadList: DownloadRecord[] = [];
  private readonly pendingDownloads = new Map<string, DownloadRecord>();
  private settling: Promise<void>[] = [];
  private guard?: NavigationGuard;
  /** Set by close() and detach(): a socket closed after that is no loss. */
  private lettingGo = false;
  /** Why the browser went away, asked as its socket closed or its liveness said gone. */
  private loss?: Promise<BrowserLoss | undefined>;
  /** Stops this session's listening on a connection that may outlive it. */
  private readonly unlisten: (() => void)[] = [];
  /** Preload scripts of this session's user context, removed as it ends: the browser outlives it. */
  private readonly preloads: string[] = [];
  private readonly liveView: boolean;
  private readonly onGrid: boolean;
  private readonly userContext?: string;
  private readonly downloadsOff?: string;

  constructor(
    private readonly control: SessionControl,
    private readonly bidi: Bidi,
    private readonly id: string,
    private readonly info: RunningBrowser,
    private readonly sent: SentCapabilities | undefined,
    private readonly viewportSize: { width: number; height: number },
    private readonly downloadsDir: string,
    place: SessionPlace = {},
  ) {
    this.liveView = place.liveView ?? false;
    this.onGrid = place.onGrid ?? true;
    this.userContext = place.userContext;
    this.downloadsOff = place.downloadsOff;
    const on = <T>(event: string, listener: (params: T) => void) =>
      this.unlisten.push(bidi.on<T>(event, listener));
    this.unlisten.push(
      bidi.onClose(() => {
        this.closed = true;
        if (!this.lettingGo) this.loss ??= this.control.lossCause?.().catch(() => undefined);
      }),
    );
    bidi.setLiveness(() => control.alive());
    on<ContextCreated>('browsingContext.contextCreated', (e) => this.onCreated(e));
    on<{ context: string }>('browsingContext.contextDestroyed', (e) => {
      const tab = this.open.get(e.context);
      tab?.onClosed();
      this.open.delete(e.context);
      this.parentOf.delete(e.context);
    });
    on<NavigationEvent>('browsingContext.navigationStarted', (e) =>
      this.open.get(e.context)?.onNavigated(e.url, true, e.navigation),
    );
    // Same-document navigations commit as they start.
    for (const event of ['fragmentNavigated', 'historyUpdated'])
      on<NavigationEvent>(`browsingContext.${event}`, (e) => {
        this.open.get(e.context)?.onNavigated(e.url, true);
        this.open.get(e.context)?.onUrl(e.url);
      });
    for (const event of ['navigationAborted', 'navigationFailed'])
      on<NavigationEvent>(`browsingContext.${event}`, (e) =>
        this.open.get(e.context)?.onNavigationFailed(e.url),
      );
    on<NavigationEvent>('browsingContext.navigationCommitted', (e) =>
      this.open.get(e.context)?.onCommitted(e.url, e.navigation),
    );
    for (const event of ['domContentLoaded', 'load'])
      on<NavigationEvent>(`browsingContext.${event}`, (e) =>
        this.open.get(e.context)?.onUrl(e.url, e.navigation),
      );
    // A page's renderer crashing shows only as its window realm destroyed with none after it.
    // A sandbox (the capture's) is not the page's realm.
    on<{ realm: string; context?: string; type: string; sandbox?: string }>(
      'script.realmCreated',
      (e) => {
        if (e.type === 'window' && e.context && !e.sandbox)
          this.open.get(e.context)?.onRealmCreated(e.realm);
      },
    );
    on<{ realm: string }>('script.realmDestroyed', (e) => {
      for (const tab of this.open.values()) tab.onRealmDestroyed(e.realm);
    });
    on<BidiRequest>('network.beforeRequestSent', (e) =>
      this.tabOf(e.context)?.onRequest(e, this.open.has(e.context ?? '')),
    );
    on<BidiRequest>('network.responseStarted', (e) => this.tabOf(e.context)?.onResponseStarted(e));
    on<BidiRequest>('network.responseCompleted', (e) =>
      this.tabOf(e.context)?.onResponse(e, this.open.has(e.context ?? '')),
    );
    on<BidiRequest>('network.fetchError', (e) =>
      this.tabOf(e.context)?.onFetchError(e, this.open.has(e.context ?? '')),
    );
    on<Parameters<WebDriverTab['onLog']>[0] & { source: { context?: string } }>(
      'log.entryAdded',
      (e) => this.tabOf(e.source.context ?? null)?.onLog(e),
    );
    on<Parameters<WebDriverTab['onPromptOpened']>[0]>('browsingContext.userPromptOpened', (e) =>
      this.tabOf(e.context)?.onPromptOpened(e),
    );
    on<{ context: string }>('browsingContext.userPromptClosed', (e) =>
      this.tabOf(e.context)?.onPromptClosed(),
    );
    // Chromium names a download by `download` (its own id) and by the navigation that became it.
    on<{
      download?: string;
      navigation?: string;
      suggestedFilename?: string;
      context?: string;
      url?: string;
    }>('browsingContext.downloadWillBegin', (e) => {
      // A kept Firefox names other contexts too (its start-up tab, a former session's): not ours.
      if (this.userContext && !this.tabOf(e.context)) return;
      if (e.url) this.tabOf(e.context)?.onDownload(e.url);
      const name = e.suggestedFilename ?? 'download';
      // The file is written on the node, where nothing can fetch it: said at once, not waited for.
      if (this.downloadsOff) {
        this.downloadList.push({
          name,
          state: 'failed',
          unsupported: true,
          error: this.downloadsOff,
        });
        return;
      }
      const record: DownloadRecord = { name, state: 'saving' };
      this.downloadList.push(record);
      const key = e.download ?? e.navigation;
      if (key) this.pendingDownloads.set(key, record);
    });
    on<{ download?: string; navigation?: string; status?: string; filepath?: string }>(
      'browsingContext.downloadEnd',
      (e) => {
        if (this.downloadsOff) return;
        const key = e.download ?? e.navigation;
        const record = (key && this.pendingDownloads.get(key)) || this.savingNamed(e.filepath);
        if (!record && this.userContext) return;
        if (key) this.pendingDownloads.delete(key);
        if (e.status === 'canceled') {
          if (record)
            Object.assign(record, {
              state: 'failed',
              error: 'the site or the browser canceled it',
            });
          return;
        }
        this.settling.push(this.fetchDownload(record));
      },
    );
  }

  /** A download still saving whose file is the one at `filepath` on the node (an end event not matched by id). */
  private savingNamed(filepath: string | undefined): DownloadRecord | undefined {
    const name = filepath?.split(/[\\/]/).pop();
    return this.downloadList.find((d) => d.state === 'saving' && d.name === name);
  }

  /** The tab a context belongs to: itself, or the top-level context above a frame. */
  private tabOf(context: string | null | undefined): WebDriverTab | undefined {
    let c = context ?? undefined;
    for (let depth = 0; c && depth < 32; depth++) {
      const tab = this.open.get(c);
      if (tab) return tab;
      c = this.parentOf.get(c);
    }
    return undefined;
  }

  private onCreated(e: ContextCreated): void {
    if (e.parent) {
      // Firefox names no user context on a frame: its parent says whose it is.
      if (!this.userContext || this.owns(e.parent)) this.parentOf.set(e.context, e.parent);
      return;
    }
    if (this.userContext && e.userContext !== this.userContext) return;
    // A tab this server is creating is adopted by newTab(); any other was opened by the page.
    this.guard?.watchPopup(e.context, e.url);
    void this.creating.then(() => {
      if (this.open.has(e.context) || this.closed) return;
      const tab = this.adopt(e.context, e.url);
      if (e.originalOpener) tab.markOpenerPopup();
      void tab
        .setViewport(this.viewportSize.width, this.viewportSize.height)
        .catch(() => undefined);
      for (const l of this.listeners) l(tab);
    });
  }

  private adopt(context: string, url: string, id = `t${++this.seq}`): WebDriverTab {
    const tab = new WebDriverTab(
      id,
      context,
      this.bidi,
      this,
      this.viewportSize,
      this.info.browser === 'firefox',
    );
    tab.onUrl(url);
    this.open.set(context, tab);
    return tab;
  }

  /** Whether a context is one of this session's tabs or frames (a kept Firefox has others). */
  private owns(context: string): boolean {
    return !!this.tabOf(context);
  }

  /** A script every page of this session runs first; one of a user context goes when the session does. */
  private async addPreloadScript(functionDeclaration: string): Promise<void> {
    const { script } = await this.bidi.call<{ script: string }>('script.addPreloadScript', {
      functionDeclaration,
      ...this.mine(),
    });
    if (this.userContext) this.preloads.push(script);
  }

  /** Commands that reach every context name this session's user context, when it has one. */
  private mine(): { userContexts?: string[] } {
    return this.userContext ? { userContexts: [this.userContext] } : {};
  }

  private partition(): { partition?: { type: 'storageKey'; userContext: string } } {
    return this.userContext
      ? { partition: { type: 'storageKey', userContext: this.userContext } }
      : {};
  }

  /** Adopts the tabs the browser already has (one after open, any number after attach). */
  async start(options: {
    setViewport: boolean;
    storageStatePath?: string;
    refuseNavigation?: OpenOptions['refuseNavigation'];
    refuseRequest?: OpenOptions['refuseRequest'];
    blockedHosts?: readonly string[];
    /**
     * Opens the first tab instead of adopting the browser's own: a local Firefox's start-up tab
     * never holds the focus (its page fires no focus events), a tab opened over BiDi does.
     */
    freshTab?: boolean;
  }): Promise<void> {
    await this.addPreloadScript(`() => { ${pagePreloadScript} }`).catch((e) => {
      throw fromWebDriver(e, 'Preparing the page script');
    });
    if (options.refuseNavigation || options.blockedHosts?.length)
      this.guard = await NavigationGuard.start(this.bidi, {
        refuseNavigation: options.refuseNavigation,
        refuseRequest: options.refuseRequest,
        blockedHosts: options.blockedHosts ?? [],
        isFrame: (c) => this.parentOf.has(c),
        owns: this.userContext ? (c) => this.owns(c) : undefined,
      });
    if (options.freshTab) await this.newTab();
    const tree = await this.bidi.call<{
      contexts: { context: string; url: string; userContext?: string }[];
    }>('browsingContext.getTree', { maxDepth: 0 });
    for (const c of tree.contexts) {
      if (this.userContext && c.userContext !== this.userContext) continue;
      if (this.open.has(c.context)) continue;
      if (options.freshTab) {
        await this.bidi
          .call('browsingContext.close', { context: c.context, promptUnload: false })
          .catch(() => undefined);
        continue;
      }
      const tab = this.adopt(c.context, c.url);
      if (options.setViewport)
        await tab.setViewport(this.viewportSize.width, this.viewportSize.height);
      else await tab.readViewport();
    }
    if (this.open.size === 0) await this.newTab();
    if (options.storageStatePath) await this.loadStorageState(options.storageStatePath);
  }

  tabs(): BrowserTab[] {
    return [...this.open.values()].filter((t) => !t.isClosed());
  }

  async newTab(id?: string): Promise<BrowserTab> {
    const creating = this.bidi.call<{ context: string }>('browsingContext.create', {
      type: 'tab',
      ...(this.userContext ? { userContext: this.userContext } : {}),
    });
    this.creating = creating.catch(() => undefined);
    try {
      const { context } = await creating;
      const tab = this.open.get(context) ?? this.adopt(context, 'about:blank', id);
      await tab.setViewport(this.viewportSize.width, this.viewportSize.height);
      return tab;
    } catch (e) {
      throw fromWebDriver(e, 'Opening a tab');
    }
  }

  /**
   * A crashed tab's browsing context takes a navigation (Chromium starts a new renderer for it):
   * the same context, so the same place among the tabs, with a new tab object's empty record.
   */
  async replaceTab(crashed: BrowserTab): Promise<BrowserTab> {
    const old = [...this.open.values()].find((t) => t === crashed);
    if (!old) return this.newTab();
    if (!old.crashed()) {
      // A page stuck in script takes no navigation: a new context takes its id, then it goes
      // (first, since closing a browser's last tab ends the browser).
      const tab = await this.newTab(old.id);
      await old.abandon(
        new OpError('timeout', `Tab ${old.id} was closed: its page's script did not stop.`),
        STUCK_CLOSE_MS,
      );
      this.open.delete(old.context);
      return tab;
    }
    try {
      await this.bidi.call('browsingContext.navigate', {
        context: old.context,
        url: 'about:blank',
        wait: 'complete',
      });
    } catch (e) {
      throw fromWebDriver(e, `Reopening tab ${old.id}`);
    }
    const tab = this.adopt(old.context, 'about:blank', old.id);
    await tab.setViewport(old.viewport().width, old.viewport().height);
    return tab;
  }

  pageCrashed(context: string): Promise<CrashVerdict> {
    return this.control.pageCrashed(context);
  }

  onTabOpened(listener: (tab: BrowserTab) => void): void {
    this.listeners.push(listener);
  }

  /** Cookies of every origin and the local storage of the origins open in tabs, as Playwright writes them. */
  async storageState(): Promise<StorageState> {
    try {
      const { cookies } = await this.bidi.call<{ cookies: BidiCookie[] }>(
        'storage.getCookies',
        this.partition(),
      );
      const origins = new Map<string, { name: string; value: string }[]>();
      for (const tab of this.tabs()) {
        const read = await tab
          .evaluate(
            [],
            `JSON.stringify({ origin: location.origin, items: Object.entries(localStorage).map(([name, value]) => ({ name, value })) })`,
          )
          .catch(() => undefined);
        if (typeof read !== 'string') continue;
        const { origin, items } = JSON.parse(read) as {
          origin: string;
          items: { name: string; value: string }[];
        };
        if (origin && origin !== 'null' && items.length) origins.set(origin, items);
      }
      return {
        cookies: cookies.map((c) => ({ ...toPlaywrightCookie(c) })),
        origins: [...origins].map(([origin, localStorage]) => ({ origin, localStorage })),
      };
    } catch (e) {
      throw fromWebDriver(e, 'Saving the storage state');
    }
  }

  private async loadStorageState(path: string): Promise<void> {
    const state = JSON.parse(readFileSync(path, 'utf8')) as {
      cookies?: PlaywrightCookie[];
      origins?: { origin: string; localStorage: { name: string; value: string }[] }[];
    };
    for (const c of state.cookies ?? []) {
      await this.bidi
        .call('storage.setCookie', { cookie: fromPlaywrightCookie(c), ...this.partition() })
        .catch((e) => {
          throw fromWebDriver(e, `Restoring cookie ${c.name}`);
        });
    }
    // Local storage can only be written by a page of its origin: a preload script seeds it once.
    const seeds = (state.origins ?? []).filter((o) => o.localStorage.length);
    if (seeds.length)
      await this.addPreloadScript(
        `() => { const seeds = ${JSON.stringify(seeds)}; const o = seeds.find((s) => s.origin === location.origin); if (!o) return; for (const { name, value } of o.localStorage) if (localStorage.getItem(name) === null) localStorage.setItem(name, value); }`,
      );
  }

  handle(): string {
    const handle: Handle = {
      id: this.id,
      running: this.info,
      sent: this.sent,
      liveView: this.liveView,
    };
    return JSON.stringify(handle);
  }

  running(): RunningBrowser {
    return { ...this.info };
  }

  /** For the operator's admin view: what was asked, every capability sent with its sources, what was ignored. */
  sentCapabilities(): SentCapabilities | undefined {
    return this.sent;
  }

  /** The Grid session id and its live view (for the operator; never shown to a model). */
  gridSession(): { id: string; liveView: boolean } | undefined {
    return this.onGrid ? { id: this.id, liveView: this.liveView } : undefined;
  }

  /** False when the browser reads this machine's disk: the tab then sets the files over BiDi. */
  async setInputFiles(
    context: string,
    frames: FramePath,
    handle: number,
    paths: string[],
  ): Promise<boolean> {
    if (!this.control.setInputFiles) return false;
    await this.control.setInputFiles(context, frames, handle, paths);
    return true;
  }

  /** Downloads the pages started, oldest first; they land in the session's downloads folder. */
  downloads(): readonly DownloadRecord[] {
    return this.downloadList.map((d) => ({ ...d }));
  }

  /**
   * Resolves once every download started so far has been fetched from the node or has failed. A
   * record whose end event never came settles when its file is in the Grid's listing.
   */
  async downloadsSettled(): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (this.downloadList.some((d) => d.state === 'saving') && Date.now() < deadline) {
      await Promise.all(this.settling);
      await this.syncDownloads();
      for (const d of this.downloadList)
        if (d.state === 'saving' && this.fetched.has(d.name)) d.state = 'saved';
      if (this.downloadList.some((d) => d.state === 'saving'))
        await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The node finished writing a file: copy it here, retrying while the Grid has not listed it yet. */
  private async fetchDownload(record: DownloadRecord | undefined): Promise<void> {
    for (let i = 0; i < 50; i++) {
      await this.syncDownloads();
      if (!record || this.fetched.has(record.name) || this.unwritten.has(record.name)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!record) return;
    if (this.fetched.has(record.name)) record.state = 'saved';
    else
      Object.assign(record, {
        state: 'failed',
        error: this.unwritten.get(record.name) ?? 'the Grid node did not offer the file',
      });
  }

  /** Brings the files the browser finished downloading into the session's files. */
  async syncDownloads(): Promise<string[]> {
    if (this.downloadsOff) return [];
    const { got, unwritten } = await this.control.collectDownloads(this.downloadsDir, this.fetched);
    for (const [name, why] of unwritten) this.unwritten.set(name, why);
    for (const name of got) {
      this.unwritten.delete(name);
      this.fetched.add(name);
    }
    return got;
  }

  lossCause(): Promise<BrowserLoss | undefined> {
    return this.loss ?? Promise.resolve(undefined);
  }

  async close(): Promise<void> {
    this.lettingGo = true;
    if (this.closed && this.bidi.isClosed()) return;
    this.closed = true;
    await this.syncDownloads();
    if (this.userContext) {
      await this.guard?.stop();
      for (const script of this.preloads)
        await this.bidi.call('script.removePreloadScript', { script }).catch(() => undefined);
    }
    // A local Firefox is asked to close over this socket, so it goes last.
    await this.control.end();
    for (const stop of this.unlisten) stop();
    // A kept Firefox's connection serves the next session.
    if (!this.userContext) await this.bidi.close();
  }

  isClosed(): boolean {
    return this.closed || this.bidi.isClosed();
  }

  /** Lets go of the browser without ending it: the Grid keeps it for a re-attach after a restart. */
  async detach(): Promise<void> {
    this.lettingGo = true;
    await this.guard?.stop();
    await this.bidi.close();
  }
}

interface BidiCookie {
  name: string;
  value: { type: 'string' | 'base64'; value: string };
  domain: string;
  path: string;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'strict' | 'lax' | 'none';
  expiry?: number;
}
interface PlaywrightCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
}

/**
 * SameSite=None without Secure: Chromium refuses to store such a cookie, and its BiDi reports a
 * cookie set without SameSite this way. Chromium treats that cookie as Lax, so it is saved and
 * restored as Lax (what Playwright writes for it), not silently dropped on restore.
 */
function insecureNone(sameSite: string | undefined, secure: boolean): boolean {
  return sameSite?.toLowerCase() === 'none' && !secure;
}

function toPlaywrightCookie(c: BidiCookie): PlaywrightCookie {
  const sameSite = { strict: 'Strict', lax: 'Lax', none: 'None' } as const;
  return {
    name: c.name,
    value:
      c.value.type === 'base64' ? Buffer.from(c.value.value, 'base64').toString() : c.value.value,
    domain: c.domain,
    path: c.path,
    expires: c.expiry ?? -1,
    httpOnly: c.httpOnly,
    secure: c.secure,
    sameSite: insecureNone(c.sameSite, c.secure) ? 'Lax' : (sameSite[c.sameSite] ?? 'Lax'),
  };
}

function fromPlaywrightCookie(c: PlaywrightCookie): Record<string, unknown> {
  return {
    name: c.name,
    value: { type: 'string', value: c.value },
    domain: c.domain,
    path: c.path,
    httpOnly: c.httpOnly,
    secure: c.secure,
    sameSite: insecureNone(c.sameSite, c.secure) ? 'lax' : (c.sameSite ?? 'Lax').toLowerCase(),
    ...(c.expires > 0 ? { expiry: Math.round(c.expires) } : {}),
  };
}

/**
 * The WebDriver backend (DESIGN §7.3): browsers on a Selenium Grid or any W3C endpoint, driven
 * over WebDriver BiDi (console, network, dialogs, tabs, input, screenshots, PDF) with classic
 * WebDriver for what BiDi lacks here (file upload through the node, the Grid's downloads).
 */
export class WebDriverDriver implements Driver {
  readonly backend = 'webdriver' as const;
  private readonly sessions = new Set<WebDriverSession>();

  constructor(private readonly settings: WebDriverSettings) {}

  get gridUrl(): string {
    return this.settings.gridUrl.replace(/\/+$/, '');
  }

  /** The capabilities an open would send; raises `invalid_argument` before anything is ended. */
  check(options: OpenOptions): void {
    if (options.profileDir)
      throw new OpError(
        'unsupported',
        'A persistent profile lives on this machine, and a Grid browser runs on a node: open without profile, or save and reuse a storage state instead.',
      );
    this.capabilitiesFor(options);
  }

  /** `downloads: false` leaves out managed downloads (no node that would take the browser offers them). */
  capabilitiesFor(options: OpenOptions, downloads = true): BuiltCapabilities {
    return buildCapabilities({
      session: options.session,
      browser: options.browser,
      version: options.version,
      clientVersion: options.clientVersion,
      browserFrom: options.browserFrom,
      serverVersion: this.settings.version,
      headless: options.headless,
      insecure: options.insecure ?? false,
      record: options.webdriver?.record,
      locale: options.locale,
      userAgent: options.userAgent,
      config: this.settings.capabilities,
      raw: options.webdriver?.capabilities,
      downloads,
    });
  }

  async open(options: OpenOptions): Promise<BrowserSession> {
    this.check(options);
    // Read at every open, so a node that joined since is found: one request, 2 s at most.
    const downloads = chooseDownloads(
      await gridStatus(this.gridUrl, 2000),
      this.capabilitiesFor(options).capabilities,
    );
    const built = this.capabilitiesFor(options, downloads.ask);
    const started = Date.now();
    // The Grid queue may hold the request for minutes (a node scaling up): wait as long as it does.
    const progress = setInterval(
      () =>
        options.onProgress?.(
          `Waiting for a Grid node to start ${options.browser} (${Math.round((Date.now() - started) / 1000)} s)`,
        ),
      this.settings.progressEveryMs ?? 5000,
    );
    let driver: SeleniumDriver;
    try {
      driver = await this.newSession(built, options.signal);
    } catch (e) {
      // What the Grid holds now tells a lost node from a caller's capabilities that match none.
      const grid = e instanceof OpError ? undefined : await gridStatus(this.gridUrl, 2000);
      const silent = grid && isQueueTimeout(e) ? await silentLiveNodes(grid) : [];
      throw fromNewSession(e, built, this.gridUrl, grid, silent);
    } finally {
      clearInterval(progress);
    }
    try {
      const caps = await driver.getCapabilities();
      const ws = caps.get('webSocketUrl');
      if (typeof ws !== 'string')
        throw new OpError(
          'backend',
          'The browser the Grid started offers no WebDriver BiDi (webSocketUrl); SwiftBrowse needs it for console, network and dialogs. Use a Selenium 4.x Grid and a browser with BiDi (Chrome 115+, Firefox 119+).',
        );
      const id = (await driver.getSession()).getId();
      const version = String(caps.get('browserVersion') ?? '');
      const browser = String(caps.get('browserName') ?? options.browser);
      const node = await nodeOfSession(this.gridUrl, id);
      const running: RunningBrowser = node ? { browser, version, node } : { browser, version };
      const sent: SentCapabilities = {
        asked: { browser: options.browser, version: built.version ?? 'latest' },
        sent: built.sent,
        ignored: built.ignored,
      };
      const videoName = built.capabilities['se:videoName'];
      // A Grid that drops se:recordVideo makes no video; one that keeps it may still have no recorder.
      if (built.capabilities['se:recordVideo'] === true && typeof videoName === 'string')
        sent.video = { name: videoName, accepted: caps.get('se:recordVideo') === true };
      // Selenium's docker nodes say so when they serve the session over VNC.
      const liveView = caps.get('se:vncEnabled') === true || typeof caps.get('se:vnc') === 'string';
      const { bidi } = await Bidi.connect(ws.replace('://localhost', '://127.0.0.1'));
      const session = new WebDriverSession(
        new GridControl(driver, this.gridUrl, node),
        bidi,
        id,
        running,
        sent,
        options.viewport,
        options.downloadsDir,
        { liveView, downloadsOff: downloads.ask ? undefined : downloadsOffReason(node) },
      );
      await this.applyTimeouts(driver, options);
      await session.start({
        setViewport: true,
        storageStatePath: options.storageStatePath,
        refuseNavigation: options.refuseNavigation,
        refuseRequest: options.refuseRequest,
        blockedHosts: this.settings.blockedHosts,
      });
      this.track(session);
      return session;
    } catch (e) {
      await driver.quit().catch(() => undefined);
      throw fromWebDriver(e, 'Starting the browser');
    }
  }

  /**
   * Creates the session. It gives up when the queue wait runs out or the caller goes away, and ends
   * at once the browser that arrives after that: nobody would drive it, and it would hold a slot.
   */
  private async newSession(
    built: BuiltCapabilities,
    signal: AbortSignal | undefined,
  ): Promise<SeleniumDriver> {
    const creating = createSession(this.gridUrl, built.capabilities);
    const wait = this.settings.queueWaitMs ?? 0;
    if (wait <= 0 && !signal) return creating;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const gaveUp = new Promise<never>((_, reject) => {
      const giveUp = (error: Error) => {
        void creating.then((late) => late.quit()).catch(() => undefined);
        reject(error);
      };
      if (wait > 0) timer = setTimeout(() => giveUp(new QueueWaitExpired(wait)), wait);
      onAbort = () =>
        giveUp(
          new OpError(
            'timeout',
            'Not opened: the caller went away (the HTTP client disconnected or the MCP request was cancelled) while the Grid queue held the request; a browser the Grid starts for it is ended at once. Send open again if it is still wanted.',
          ),
        );
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([creating, gaveUp]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  private async applyTimeouts(driver: SeleniumDriver, options: OpenOptions): Promise<void> {
    const t = options.webdriver;
    if (!t?.pageLoadTimeoutMs && !t?.scriptTimeoutMs) return;
    await driver.manage().setTimeouts({
      ...(t.pageLoadTimeoutMs ? { pageLoad: t.pageLoadTimeoutMs } : {}),
      ...(t.scriptTimeoutMs ? { script: t.scriptTimeoutMs } : {}),
    });
  }

  private track(session: WebDriverSession): void {
    this.sessions.add(session);
  }

  async attach(handle: string, options: OpenOptions): Promise<BrowserSession | undefined> {
    let parsed: Handle;
    try {
      parsed = JSON.parse(handle) as Handle;
      if (typeof parsed.id !== 'string') return undefined;
    } catch {
      return undefined;
    }
    const driver = existingSession(this.gridUrl, parsed.id);
    let bidi: Bidi;
    try {
      await driver.getWindowHandle().catch((e: Error) => {
        // A closed current window still means a live session; only a gone session is gone.
        if (!/no such window/i.test(e.message)) throw e;
      });
      ({ bidi } = await Bidi.connect(
        `${this.gridUrl.replace(/^http/, 'ws')}/session/${parsed.id}/se/bidi`,
      ));
    } catch {
      return undefined; // reaped by the Grid, or ended
    }
    const node = parsed.running.node;
    const session = new WebDriverSession(
      new GridControl(driver, this.gridUrl, node),
      bidi,
      parsed.id,
      parsed.running,
      parsed.sent,
      options.viewport,
      options.downloadsDir,
      {
        liveView: parsed.liveView ?? false,
        downloadsOff: downloadsAsked(parsed.sent) ? undefined : downloadsOffReason(node),
      },
    );
    try {
      await session.start({
        setViewport: false,
        refuseNavigation: options.refuseNavigation,
        refuseRequest: options.refuseRequest,
        blockedHosts: this.settings.blockedHosts,
      });
    } catch {
      await bidi.close();
      return undefined;
    }
    this.track(session);
    return session;
  }

  async info(): Promise<BrowserInfo> {
    const status = await gridStatus(this.gridUrl, 5000);
    const first = status.stereotypes[0];
    return {
      backend: 'webdriver',
      browser: first?.browserName ?? 'unknown',
      version: first?.browserVersion ?? 'unknown',
    };
  }

  async shutdown(): Promise<void> {
    // Grid browsers outlive this process on purpose (a restart re-attaches); only close BiDi sockets.
    await Promise.all(
      [...this.sessions].map(async (s) => {
        this.sessions.delete(s);
        await s.detach();
      }),
    );
  }
}
