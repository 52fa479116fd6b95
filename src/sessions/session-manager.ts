import { rm } from 'node:fs/promises';
import type { Config } from '../config.js';
import { OpError } from '../core/errors.js';
import { checkName } from '../core/names.js';
import type { BrowserSession, Driver } from '../drivers/driver.js';
import { sessionFilesDir } from '../files/file-store.js';
import { Session, type SessionSettings } from './session.js';

/** Holds every session by name and opens browsers for them within the limit. */
export class SessionManager {
  private readonly sessions = new Map<string, Session>();

  constructor(
    readonly config: Config,
    readonly driver: Driver,
  ) {}

  defaults(): SessionSettings {
    return {
      headless: this.config.headless,
      viewport: { width: this.config.viewportWidth, height: this.config.viewportHeight },
      timeoutMs: this.config.timeoutMs,
    };
  }

  /** The session of this name, created on first use. `_stdio` is the one private name allowed. */
  get(name: string): Session {
    if (name !== '_stdio') checkName('session', name);
    let session = this.sessions.get(name);
    if (!session) {
      session = new Session(name, this.defaults());
      this.sessions.set(name, session);
    }
    return session;
  }

  find(name: string): Session | undefined {
    return this.sessions.get(name);
  }

  list(): Session[] {
    return [...this.sessions.values()];
  }

  liveBrowsers(): number {
    return this.list().filter((s) => s.hasBrowser()).length;
  }

  downloadsDir(session: Session): string {
    return sessionFilesDir(this.config.dataDir, session.name);
  }

  /** Opens the session's browser if it has none; never closes another to make room. */
  async ensureBrowser(session: Session): Promise<{ browser: BrowserSession; opened: boolean }> {
    if (session.browser && !session.browser.isClosed())
      return { browser: session.browser, opened: false };
    if (this.liveBrowsers() >= this.config.maxSessions) {
      throw new OpError(
        'session_limit',
        `All ${this.config.maxSessions} browsers (MAX_SESSIONS) are in use, so session "${session.name}" cannot open one. Close a session you no longer need, or ask the operator to raise MAX_SESSIONS.`,
      );
    }
    const browser = await this.driver.open({
      headless: session.settings.headless,
      viewport: session.settings.viewport,
      downloadsDir: this.downloadsDir(session),
    });
    browser.onTabOpened((tab) => session.openedTabs.push(tab.id));
    session.browser = browser;
    session.activeTabId = browser.tabs()[0]?.id;
    // A new browser's pointer is somewhere this server did not put it.
    session.pointer = undefined;
    return { browser, opened: true };
  }

  async closeBrowser(session: Session): Promise<boolean> {
    const had = session.hasBrowser();
    const browser = session.browser;
    session.browser = undefined;
    session.activeTabId = undefined;
    session.pointer = undefined;
    session.reading.forgetPages();
    await browser?.close();
    // Browser files (downloads, screenshots) go with the browser; kept copies live elsewhere.
    if (browser) await rm(this.downloadsDir(session), { recursive: true, force: true });
    return had;
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.list().map((s) => this.closeBrowser(s)));
    await this.driver.shutdown();
  }
}
