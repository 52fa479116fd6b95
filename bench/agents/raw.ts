// Raw playwright-core: the floor. Acts return nothing to read; a read waits for what it needs and
// takes document.body.innerText, what a script that checks its outcome would look at.
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findBrowser } from '../../src/drivers/find-browser.js';
import type { Act, Target } from '../tasks.js';
import { timed, type Agent, type Call, type Started } from './agent.js';

export class RawAgent implements Agent {
  readonly name = 'raw-playwright';
  toolsChars = 0;
  calls: Call[] = [];
  private browser?: Browser;
  private page?: Page;

  async start(warmUrl: string): Promise<Started> {
    const t0 = performance.now();
    this.browser = await chromium.launch({ executablePath: findBrowser(), args: CHROMIUM_ARGS });
    this.page = await this.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await this.page.goto(warmUrl);
    return { connectMs: 0, firstNavigateMs: performance.now() - t0 };
  }

  roots() {
    // The driver runs inside the bench process; the browser is its child tree.
    return [{ pid: process.pid, includeRoot: false }];
  }

  private get p(): Page {
    if (!this.page) throw new Error('start the agent first');
    return this.page;
  }

  private locator(t: Target): Locator {
    const scope = t.frame ? this.p.frameLocator(t.frame) : this.p;
    if (t.byLabel) return scope.getByLabel(t.name, { exact: true });
    return scope.getByRole(t.role as Parameters<Page['getByRole']>[0], {
      name: t.name,
      exact: true,
    });
  }

  private async step(tool: string, kind: Call['kind'], fn: () => Promise<string>) {
    return (await timed(this.calls, tool, kind, undefined, fn, (text) => ({ text, ok: true })))
      .text;
  }

  act(act: Act, base: string): Promise<string> {
    const done = async (p: Promise<unknown>) => (await p, '');
    switch (act.do) {
      case 'goto':
        return this.step('goto', 'act', () => done(this.p.goto(`${base}${act.path}`)));
      case 'click':
        return this.step('click', 'act', () => done(this.locator(act.target).click()));
      case 'fill':
        return this.step('fill', 'act', () => done(this.locator(act.target).fill(act.value)));
      case 'select':
        return this.step('select', 'act', () =>
          done(this.locator(act.target).selectOption({ label: act.value })),
        );
      case 'check':
        return this.step('check', 'act', () => done(this.locator(act.target).check()));
      case 'hover':
        return this.step('hover', 'act', () => done(this.locator(act.target).hover()));
      case 'press':
        return this.step('press', 'act', () => done(this.locator(act.target).press(act.key)));
    }
  }

  read(): Promise<string> {
    return this.step('innerText', 'read', () => this.p.locator('body').innerText());
  }

  waitFor(needle: string): Promise<string> {
    return this.step('wait_for_text', 'wait', async () => {
      await this.p.waitForFunction((n) => document.body.innerText.includes(n), needle);
      return '';
    });
  }

  /** A script knows what it waits for: wait for the text in any frame, then read that frame once. */
  readFor(needle: string): Promise<string> {
    return this.step('innerText', 'read', async () => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        for (const frame of this.p.frames()) {
          const text = await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '');
          if (text.includes(needle)) return text;
        }
        if (Date.now() > deadline) return '';
        await new Promise((r) => setTimeout(r, 50));
      }
    });
  }

  async stop(): Promise<void> {
    await this.browser?.close();
  }
}
