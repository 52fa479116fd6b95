import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Download } from 'playwright-core';
import { OpError } from '../../core/errors.js';
import { fileNameProblem } from '../../core/names.js';
import type {
  BrowserInfo,
  BrowserSession,
  BrowserTab,
  DownloadRecord,
  Driver,
  OpenOptions,
} from '../driver.js';
import { CHROMIUM_ARGS, findBrowser } from '../find-browser.js';
import { fromPlaywright } from './errors.js';
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
    private readonly downloadsDir: string,
  ) {
    context.on('page', (page) => {
      if (this.adopting) return;
      const tab = this.adopt(page);
      for (const l of this.listeners) l(tab);
    });
    context.on('close', () => (this.closed = true));
  }

  adopt(page: import('playwright-core').Page): PlaywrightTab {
    const tab = new PlaywrightTab(`t${++this.seq}`, page);
    this.open.set(tab.id, tab);
    page.on('close', () => this.open.delete(tab.id));
    page.on('download', (d) => this.onDownload(d));
    return tab;
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
      record.state = 'failed';
      record.error = (await download.failure().catch(() => null)) ?? (e as Error).message;
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

  async newTab(): Promise<BrowserTab> {
    this.adopting = true;
    try {
      return this.adopt(await this.context.newPage());
    } catch (e) {
      throw fromPlaywright(e, 'Opening a tab');
    } finally {
      this.adopting = false;
    }
  }

  onTabOpened(listener: (tab: BrowserTab) => void): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.context.close().catch(() => undefined);
  }

  isClosed(): boolean {
    return this.closed;
  }
}

/** Local Chromium through playwright-core: one browser process per launch setting, a context per session. */
export class PlaywrightDriver implements Driver {
  readonly backend = 'playwright' as const;
  private readonly browsers = new Map<string, Promise<Browser>>();

  constructor(private readonly executablePath?: string) {}

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
        args: CHROMIUM_ARGS,
      });
      launching.then(
        (b) => b.on('disconnected', () => this.browsers.delete(key)),
        () => this.browsers.delete(key),
      );
      this.browsers.set(key, launching);
    }
    return launching;
  }

  async open(options: OpenOptions): Promise<BrowserSession> {
    try {
      const browser = await this.browser(options.headless);
      const context = await browser.newContext({
        viewport: options.viewport,
        acceptDownloads: true,
      });
      const session = new PlaywrightSession(context, options.downloadsDir);
      await session.newTab();
      return session;
    } catch (e) {
      throw fromPlaywright(e, 'Starting the browser');
    }
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
