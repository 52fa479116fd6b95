import type { BrowserInfo, BrowserSession, Driver, OpenOptions } from './driver.js';

/**
 * A driver whose module, and the browser library under it, loads on first use: start-up and
 * /health do not wait for playwright-core, and a server that never opens a browser never loads it.
 */
export class LazyDriver implements Driver {
  private loading?: Promise<Driver>;

  constructor(
    readonly backend: Driver['backend'],
    private readonly load: () => Promise<Driver>,
  ) {}

  private driver(): Promise<Driver> {
    return (this.loading ??= this.load());
  }

  async open(options: OpenOptions): Promise<BrowserSession> {
    return (await this.driver()).open(options);
  }

  async check(options: OpenOptions): Promise<void> {
    const driver = await this.driver();
    await driver.check?.(options);
  }

  async attach(handle: string, options: OpenOptions): Promise<BrowserSession | undefined> {
    return (await this.driver()).attach(handle, options);
  }

  async info(): Promise<BrowserInfo> {
    return (await this.driver()).info();
  }

  async shutdown(): Promise<void> {
    // Nothing was opened through a driver never loaded.
    if (this.loading) await (await this.loading).shutdown();
  }
}
