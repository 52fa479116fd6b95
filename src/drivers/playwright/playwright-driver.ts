import { pagePreloadScript } from '../page-script.js';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Download } from 'playwright-core';
import { OpError } from '../../core/errors.js';
import { fileNameProblem } from '../../core/names.js';
import {
  askedVersion,
  type BrowserInfo,
  type BrowserSession,
  type BrowserTab,
  type CapabilitiesReport,
  type DownloadRecord,
  type Driver,
  type OpenOptions,
  type RunningBrowser,
  type StorageState,
} from '../driver.js';
import { CHROMIUM_ARGS, findBrowser } from '../find-browser.js';
import { fromPlaywright } from './errors.js';
import { launchReport } from './launch-report.js';
import { PlaywrightTab } from './playwright-tab.js';

/** A session's browser context: its own cookies and storage, its tabs. */
class PlaywrightSession implements BrowserSession {
  private readonly open = new Map<string, PlaywrightTab>();
  private seq = 0;
  private listeners: ((tab: BrowserTab) => void)[] = [];
  private adopting = true;
  private closed = false;
  private readonly saved: DownloadRecord[] = [];
  private readonly saving = new Set<Promise<void>>();

  constructor(
    private readonly context: BrowserContext,
    private readonly version: string,
    private readonly downloadsDir: string,
    private readonly launch: CapabilitiesReport,
  ) {
    context.on('page', (page) => {
      if (this.adopting) return;
      const tab = this.adopt(page);
      for (const l of this.listeners) l(tab);
    });
    context.on('close', () => (this.closed = true));
  }

  /** `id` given: the tab takes that id and keeps its place in the list (Map.set keeps the order). */
  adopt(page: import('playwright-core').Page, id = `t${++this.seq}`): PlaywrightTab {
    const tab = new PlaywrightTab(id, page);
    this.open.set(tab.id, tab);
    page.on('close', () => {
      if (this.open.get(tab.id) === tab) this.open.delete(tab.id);
    });
    page.on('download', (d) => this.onDownload(d));
    return tab;
  }

  /** Adopts the tab a persistent profile opens with, or opens the first one. */
  async start(): Promise<void> {
    await this.context.addInitScript({ content: pagePreloadScript });
    const first = this.context.pages()[0];
    if (!first) return void (await this.newTab());
    this.adopt(first);
    this.adopting = false;
  }

  private onDownload(download: Download): void {
    // The site's own name, never rewritten; one that could leave the directory is not saved.
    const name = download.suggestedFilename();
    const record: DownloadRecord = { name, state: 'saving' };
    this.saved.push(record);
    const problem = fileNameProblem(name);
    const work = (async () => {
      if (problem) throw new Error(`the name the site gave ${problem}`);
      await mkdir(this.downloadsDir, { recursive: true });
      await download.saveAs(join(this.downloadsDir, name));
      record.state = 'saved';
    })().catch(async (e: unknown) => {
      // The state changes with its cause: a result read in between must not say failed for no reason.
      const error = (await download.failure().catch(() => null)) ?? (e as Error).message;
      Object.assign(record, { state: 'failed', error });
      await download.cancel().catch(() => undefined);
    });
    this.saving.add(work);
    void work.finally(() => this.saving.delete(work));
  }

  downloads(): readonly DownloadRecord[] {
    return this.saved;
  }

  async downloadsSettled(): Promise<void> {
    await Promise.all([...this.saving]);
  }

  tabs(): BrowserTab[] {
    return [...this.open.values()];
  }

  async newTab(id?: string): Promise<BrowserTab> {
    this.adopting = true;
    try {
      return this.adopt(await this.context.newPage(), id);
    } catch (e) {
      throw fromPlaywright(e, 'Opening a tab');
    } finally {
      this.adopting = false;
    }
  }

  async replaceTab(crashed: BrowserTab): Promise<BrowserTab> {
    // A crashed Playwright page never takes commands again: a new page in the same context.
    const tab = await this.newTab(crashed.id);
    await crashed.close();
    return tab;
  }

  onTabOpened(listener: (tab: BrowserTab) => void): void {
    this.listeners.push(listener);
  }

  async storageState(): Promise<StorageState> {
    try {
      return await this.context.storageState();
    } catch (e) {
      throw fromPlaywright(e, 'Saving the storage state');
    }
  }

  handle(): undefined {
    return undefined; // a local browser ends with this process
  }

  running(): RunningBrowser {
    return { browser: 'chromium', version: this.version };
  }

  /** For the operator's admin view: what the browser was launched with, and from where. */
  sentCapabilities(): CapabilitiesReport {
    return this.launch;
  }

  async close(): Promise<void> {
    this.closed = true;
    // A persistent profile's context owns its browser process; closing it ends both.
    await this.context.close().catch(() => undefined);
  }

  isClosed(): boolean {
    return this.closed;
  }
}

/**
 * Stops every main-frame navigation the policy refuses before it loads. Redirects never reach a
 * route handler, so a main-frame document is fetched without following them and each hop is
 * checked; the browser then follows an allowed hop as a new, again routed, request. Any other
 * request (`file:` ones included: the route sees them) meets `refuseRequest`.
 */
async function guardNavigations(
  context: BrowserContext,
  refuse: (url: string) => string | undefined,
  refuseRequest?: (url: string) => string | undefined,
): Promise<void> {
  await context.route(
    () => true,
    async (route) => {
      const request = route.request();
      let mainFrame = request.isNavigationRequest();
      try {
        mainFrame &&= request.frame().parentFrame() === null;
      } catch {
        // A popup's first navigation is issued before its frame exists: a main frame all the same.
      }
      if (!mainFrame)
        return refuseRequest?.(request.url()) ? route.abort('blockedbyclient') : route.fallback();
      // `aborted` leaves the tab on the page it was on, where `blockedbyclient` shows an error page.
      if (refuse(request.url())) return route.abort('aborted');
      try {
        const response = await route.fetch({ maxRedirects: 0 });
        const location = response.headers()['location'];
        if (response.status() >= 300 && response.status() < 400 && location) {
          if (refuse(new URL(location, request.url()).href)) return route.abort('aborted');
        }
        return route.fulfill({ response });
      } catch {
        // Unreachable from here too: let the browser fail it with its own error text.
        return route.continue().catch(() => undefined);
      }
    },
  );
}

/**
 * Chromium's own resolver refuses these hosts (IP literals included, in any spelling the URL
 * parser normalises): no request to them leaves the browser, and other requests pay nothing.
 */
function hostResolverRules(hosts: readonly string[]): string[] {
  if (!hosts.length) return [];
  // Chromium's rules name an IPv6 address without its brackets.
  const rules = hosts.map((h) => `MAP ${h.replace(/^\[|\]$/g, '')} ~NOTFOUND`);
  return [`--host-resolver-rules=${rules.join(', ')}`];
}

/** The local backend runs the installed Chromium only: asking for another version is unsupported. */
function versionRefusal(options: OpenOptions, installed: string): void {
  const asked = askedVersion(options);
  if (!asked || asked.value === installed || installed.startsWith(`${asked.value}.`)) return;
  throw new OpError(
    'unsupported',
    `This machine's Chromium is ${installed}; the local backend cannot run version ${asked.value} (asked by ${asked.by}). Leave ${asked.by} out, or use a Selenium Grid that offers it.`,
  );
}

/** Local Chromium through playwright-core: one browser process per launch setting, a context per session. */

export class PlaywrightDriver implements Driver {
  readonly backend = 'playwright' as const;
  private readonly browsers = new Map<string, Promise<Browser>>();

  private readonly args: string[];
  private readonly configArgs: string[];

  /** `blockedHosts` never resolve in this browser: every request to them fails before it is sent. */
  constructor(
    private readonly executablePath?: string,
    blockedHosts: readonly string[] = [],
  ) {
    this.configArgs = hostResolverRules(blockedHosts);
    this.args = [...CHROMIUM_ARGS, ...this.configArgs];
  }

  private executable(): string {
    const path = findBrowser(this.executablePath);
    if (!path) {
      throw new OpError(
        'backend',
        this.executablePath
          ? `BROWSER_PATH is ${this.executablePath}, which is not an executable. Point it at a Chromium binary.`
          : 'No Chromium found. Install it (Debian: apt-get install chromium) or set BROWSER_PATH.',
      );
    }
    return path;
  }

  private browser(headless: boolean): Promise<Browser> {
    const key = String(headless);
    let launching = this.browsers.get(key);
    if (!launching) {
      launching = chromium.launch({
        executablePath: this.executable(),
        headless,
        args: this.args,
      });
      launching.then(
        (b) => b.on('disconnected', () => this.browsers.delete(key)),
        () => this.browsers.delete(key),
      );
      this.browsers.set(key, launching);
    }
    return launching;
  }

  /** The browser and version this machine cannot run are refused before the held one is ended. */
  async check(options: OpenOptions): Promise<void> {
    if (options.browser !== 'chromium' && options.browser !== 'chrome') {
      throw new OpError(
        'unsupported',
        `The local Playwright backend runs Chromium only, not ${options.browser}. Ask for browser "chromium", or use a Selenium Grid (GRID_URL, backend "grid") for ${options.browser}.`,
      );
    }
    if (askedVersion(options)) versionRefusal(options, (await this.info()).version);
  }

  async open(options: OpenOptions): Promise<BrowserSession> {
    await this.check(options);
    const contextOptions = {
      viewport: options.viewport,
      acceptDownloads: true,
      locale: options.locale,
      userAgent: options.userAgent,
      ignoreHTTPSErrors: options.insecure ?? false,
    };
    try {
      let context: BrowserContext;
      let version: string;
      if (options.profileDir) {
        context = await chromium.launchPersistentContext(options.profileDir, {
          ...contextOptions,
          executablePath: this.executable(),
          headless: options.headless,
          args: this.args,
        });
        version = context.browser()?.version() ?? (await this.info()).version;
      } else {
        const browser = await this.browser(options.headless);
        version = browser.version();
        context = await browser.newContext({
          ...contextOptions,
          storageState: options.storageStatePath,
        });
      }
      if (askedVersion(options)) {
        try {
          versionRefusal(options, version);
        } catch (e) {
          await context.close().catch(() => undefined);
          throw e;
        }
      }
      if (options.refuseNavigation)
        await guardNavigations(context, options.refuseNavigation, options.refuseRequest);
      const launch = launchReport({
        executablePath: this.executable(),
        executableFromConfig: !!this.executablePath,
        flowArgs: CHROMIUM_ARGS,
        configArgs: this.configArgs,
        options,
      });
      const session = new PlaywrightSession(context, version, options.downloadsDir, launch);
      await session.start();
      return session;
    } catch (e) {
      throw fromPlaywright(e, 'Starting the browser');
    }
  }

  async attach(): Promise<undefined> {
    return undefined; // nothing of a local browser survives a restart
  }

  async info(): Promise<BrowserInfo> {
    const browser = await this.browser(true);
    return { backend: 'playwright', browser: 'chromium', version: browser.version() };
  }

  async shutdown(): Promise<void> {
    const all = [...this.browsers.values()];
    this.browsers.clear();
    await Promise.all(
      all.map(async (b) => (await b.catch(() => null))?.close().catch(() => undefined)),
    );
  }
}
