import { z } from 'zod';
import type { SessionSettings } from '../sessions/session.js';
import { defineOp } from './define.js';
import { checkLoaded } from './navigate.js';
import { listTabs } from './tabs.js';

export const open = defineOp({
  name: 'open',
  summary: 'Open the session browser with options; ops open one with defaults on demand',
  step: false,
  args: z.strictObject({
    width: z.coerce
      .number()
      .int()
      .min(200)
      .max(8000)
      .optional()
      .describe('Viewport width (default 1280)'),
    height: z.coerce
      .number()
      .int()
      .min(200)
      .max(8000)
      .optional()
      .describe('Viewport height (default 800)'),
    headless: z.boolean().optional().describe('Run without a window (default: server setting)'),
    url: z.string().min(1).optional().describe('Load this URL once open'),
  }),
  async run(ctx, args) {
    const s = ctx.session;
    const wanted = {
      ...s.settings,
      viewport: {
        width: args.width ?? s.settings.viewport.width,
        height: args.height ?? s.settings.viewport.height,
      },
      headless: args.headless ?? s.settings.headless,
    };
    const relaunch = s.hasBrowser() && wanted.headless !== s.settings.headless;
    s.settings = wanted;
    if (relaunch) {
      await ctx.sessions.closeBrowser(s);
      ctx.notes.push(
        'reopened: headless changed, so the browser was restarted (cookies of the old one are gone)',
      );
    }
    const tab = await ctx.tab();
    const { width, height } = tab.viewport();
    if (width !== wanted.viewport.width || height !== wanted.viewport.height)
      await tab.setViewport(wanted.viewport.width, wanted.viewport.height);
    if (args.url)
      checkLoaded(tab, args.url, await tab.goto(args.url, ctx.config.navigationTimeoutMs));
    return { data: { settings: settingsView(s.settings), tabs: await listTabs(s) } };
  },
});

export const close = defineOp({
  name: 'close',
  summary: "End the session's browser; the session and its settings remain",
  step: false,
  args: z.strictObject({}),
  async run(ctx) {
    const had = await ctx.sessions.closeBrowser(ctx.session);
    if (!had) ctx.notes.push('no_browser: the session had no browser open');
    return { data: { closed: had } };
  },
});

export const status = defineOp({
  name: 'status',
  summary:
    'The session: browser open or not, tabs, URL, settings, busy; never waits behind other ops',
  browser: false,
  step: false,
  readOnly: true,
  args: z.strictObject({}),
  async run(ctx) {
    const s = ctx.session;
    const data: Record<string, unknown> = {
      session: s.name,
      browser: s.hasBrowser() ? 'open' : 'closed',
      busy: s.busy,
      settings: settingsView(s.settings),
    };
    if (s.hasBrowser()) data.tabs = await listTabs(s);
    if (s.lastUrl) data.last_url = s.lastUrl;
    const flowsHere = await ctx.flows.namesHere(s.name, s.lastUrl);
    if (flowsHere.length) data.flows_here = flowsHere;
    return { data };
  },
});

/** Settings as a caller sees them: snake_case, like every other field. */
function settingsView(settings: SessionSettings) {
  return {
    headless: settings.headless,
    viewport: settings.viewport,
    timeout_ms: settings.timeoutMs,
  };
}
