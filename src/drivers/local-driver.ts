import type { BrowserInfo, BrowserSession, Driver, OpenOptions } from './driver.js';

/**
 * This machine's browsers: Chromium through Playwright, Firefox over its own WebDriver BiDi.
 * A session's `browser` picks one; both are the local backend (`playwright` in settings).
 */
export class LocalDriver implements Driver {
  readonly backend = 'playwright' as const;

  constructor(
    private readonly chromium: Driver,
    private readonly firefox: Driver,
  ) {}

  private pick(options: OpenOptions): Driver {
    return options.browser === 'firefox' ? this.firefox : this.chromium;
  }

  open(options: OpenOptions): Promise<BrowserSession> {
    return this.pick(options).open(options);
  }

  async check(options: OpenOptions): Promise<void> {
    await this.pick(options).check?.(options);
  }

  attach(handle: string, options: OpenOptions): Promise<BrowserSession | undefined> {
    return this.pick(options).attach(handle, options);
  }

  info(): Promise<BrowserInfo> {
    return this.chromium.info();
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.chromium.shutdown(), this.firefox.shutdown()]);
  }
}
