import { z } from 'zod';
import { OpError } from '../core/errors.js';
import { navigationUrl } from '../core/schema.js';
import type { BrowserTab } from '../drivers/driver.js';
import type { Session } from '../sessions/session.js';
import { defineOp, type OpContext } from './define.js';
import { checkLoaded } from './navigate.js';
import { loadTimeoutMs } from '../sessions/settings.js';

async function listTabs(session: Session) {
  const active = session.activeTab();
  return Promise.all(
    (session.browser?.tabs() ?? []).map(async (t) => ({
      id: t.id,
      url: t.url(),
      title: await t.title(),
      active: t === active,
      // Until the next op reopens it (DESIGN §6), a crashed tab is no page to act on.
      ...(t.crashed() ? { crashed: true } : {}),
    })),
  );
}

async function tabById(ctx: OpContext, id: string | undefined): Promise<BrowserTab> {
  await ctx.tab();
  const tabs = ctx.session.browser?.tabs() ?? [];
  const tab = id === undefined ? ctx.session.activeTab() : tabs.find((t) => t.id === id);
  if (!tab) {
    const list = tabs.map((t) => `${t.id} (${t.url()})`).join(', ');
    throw new OpError('invalid_argument', `There is no tab ${JSON.stringify(id)}. Tabs: ${list}.`, {
      details: { tabs: tabs.map((t) => t.id) },
    });
  }
  return tab;
}

const tabArg = z.string().min(1).describe('Tab id from tab_list, e.g. "t2"');

export const tabNew = defineOp({
  name: 'tab_new',
  readsPage: false,
  summary: 'Open a new tab (optionally at a URL) and make it the active one',
  acts: true,
  args: z.strictObject({
    url: navigationUrl('URL to load in the new tab').optional(),
  }),
  async run(ctx, args) {
    const url = args.url ? ctx.sessions.checkNavigation('tab_new', args.url) : undefined;
    await ctx.tab();
    const browser = ctx.session.browser!;
    ctx.delivered();
    const tab = await browser.newTab();
    ctx.session.frontTabId = undefined;
    ctx.session.activeTabId = tab.id;
    if (url) checkLoaded(tab, url, await tab.goto(url, loadTimeoutMs(ctx.session.settings)));
    return { data: { tab: tab.id, tabs: await listTabs(ctx.session) } };
  },
});

export const tabList = defineOp({
  name: 'tab_list',
  readsPage: false,
  summary: 'List the open tabs with their ids, URLs and titles',
  readOnly: true,
  args: z.strictObject({}),
  async run(ctx) {
    await ctx.tab();
    return { data: { tabs: await listTabs(ctx.session) } };
  },
});

export const tabSelect = defineOp({
  name: 'tab_select',
  readsPage: false,
  summary: 'Make a tab the active one; later ops act on it',
  acts: true,
  args: z.strictObject({ tab: tabArg }),
  async run(ctx, args) {
    const tab = await tabById(ctx, args.tab);
    ctx.session.activeTabId = tab.id;
    await ctx.session.bringToFront(tab);
    return { data: { tab: tab.id } };
  },
});

export const tabClose = defineOp({
  name: 'tab_close',
  readsPage: false,
  summary: 'Close a tab (default the active one); the last tab cannot be closed — use close',
  acts: true,
  args: z.strictObject({ tab: tabArg.optional() }),
  async run(ctx, args) {
    const tab = await tabById(ctx, args.tab);
    const tabs = ctx.session.browser!.tabs();
    if (tabs.length === 1) {
      throw new OpError(
        'invalid_argument',
        `${tab.id} is the last tab (${tab.url()}); use close to end the browser instead.`,
        { details: { tabs: [tab.id] } },
      );
    }
    ctx.delivered();
    await tab.close();
    ctx.session.frontTabId = undefined;
    const next = ctx.session.activeTab();
    if (next) await ctx.session.bringToFront(next);
    return { data: { closed: tab.id, tabs: await listTabs(ctx.session) } };
  },
});

export { listTabs };
