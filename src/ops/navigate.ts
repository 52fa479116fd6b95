import { z } from 'zod';
import { millis, navigationUrl } from '../core/schema.js';
import type { BrowserTab, NavigationOutcome } from '../drivers/driver.js';
import { defineOp, type OpContext } from './define.js';
import { navigationError } from './settle.js';
import { loadTimeoutMs } from '../sessions/settings.js';

const navTimeout = millis('Give up loading after this many ms (default 30000)').optional();

/** A load that failed, even behind Chromium's own error page, is navigation_failed. */
export function checkLoaded(
  tab: BrowserTab,
  url: string,
  outcome: NavigationOutcome,
): Record<string, unknown> {
  if (outcome.error) throw navigationError(url, outcome.error);
  if (outcome.status !== undefined && outcome.status >= 400)
    throw navigationError(url, `HTTP ${outcome.status}`);
  if (tab.showsErrorPage()) throw navigationError(url, 'the browser showed its error page');
  return outcome.status !== undefined ? { status: outcome.status } : {};
}

function navTimeoutOf(ctx: OpContext, timeout: number | undefined): number {
  return timeout ?? loadTimeoutMs(ctx.session.settings);
}

export const goto = defineOp({
  name: 'goto',
  readsPage: false,
  restoresLastUrl: false,
  summary: 'Load a URL in the current tab and wait for it to settle',
  acts: true,
  args: z.strictObject({
    url: navigationUrl('Absolute URL; a bare host gets https:// (http:// for localhost and 127.x)'),
    timeout: navTimeout,
  }),
  async run(ctx, args) {
    const url = ctx.sessions.checkNavigation('goto', args.url);
    const tab = await ctx.tab();
    ctx.delivered();
    return { data: checkLoaded(tab, url, await tab.goto(url, navTimeoutOf(ctx, args.timeout))) };
  },
});

function historyOp(name: 'back' | 'forward', summary: string) {
  return defineOp({
    name,
    readsPage: false,
    summary,
    acts: true,
    args: z.strictObject({ timeout: navTimeout }),
    async run(ctx, args) {
      const tab = await ctx.tab();
      ctx.delivered();
      const outcome = await tab[name](navTimeoutOf(ctx, args.timeout));
      if (!outcome) ctx.notes.push(`no_history: there is no page to go ${name} to`);
      return { data: outcome ? checkLoaded(tab, tab.url(), outcome) : {} };
    },
  });
}

export const back = historyOp('back', 'Go back one page in the tab history');
export const forward = historyOp('forward', 'Go forward one page in the tab history');

export const reload = defineOp({
  name: 'reload',
  readsPage: false,
  rereadsWholePage: true,
  summary: 'Reload the current page',
  acts: true,
  args: z.strictObject({ timeout: navTimeout }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    ctx.delivered();
    return { data: checkLoaded(tab, tab.url(), await tab.reload(navTimeoutOf(ctx, args.timeout))) };
  },
});
