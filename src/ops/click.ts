import { z } from 'zod';
import { OpError } from '../core/errors.js';
import { flag, looseEnum } from '../core/schema.js';
import { describeTarget, targetSchema } from '../core/target.js';
import { callPage } from '../drivers/page-script.js';
import { needsApproval, requireApproval } from './approval.js';
import { defineOp } from './define.js';
import { actionableElement, findElement, probeOrRefuse, summarise } from './element.js';
import { clickAt, glideArg, MODIFIERS } from './pointer.js';
import { loadTimeoutMs } from '../sessions/settings.js';

export const click = defineOp({
  name: 'click',
  summary: 'Click an element; waits until it is visible, enabled and not covered',
  acts: true,
  args: z.strictObject({
    target: targetSchema,
    button: looseEnum(['left', 'right', 'middle'])
      .default('left')
      .describe('Mouse button (default left)'),
    count: z.coerce.number().int().min(1).max(3).default(1).describe('2 for a double click'),
    modifiers: z
      .array(looseEnum(['alt', 'control', 'meta', 'shift']))
      .optional()
      .describe('Keys held during the click'),
    force: flag()
      .optional()
      .describe(
        'Dispatch the click to the element itself, past an overlay covering it; never to a hidden or disabled element',
      ),
    new_tab: flag().optional().describe("Open the link's href in a new tab instead of clicking"),
    activate: flag().optional().describe('With new_tab: switch to the new tab (default true)'),
    glide: glideArg,
    approved: flag()
      .optional()
      .describe('Your user approved this consequential action (delete, pay, send…)'),
  }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    if (args.new_tab) {
      const found = await findElement(tab, ctx.elements, args.target);
      const href = await callPage(tab, found.frame, 'hrefOf', found.handle);
      if (!href)
        throw new OpError(
          'invalid_argument',
          `new_tab needs a link; ${describeTarget(args.target)} is a <${found.info.tag}> with no href.`,
        );
      const opened = await (
        await ctx.sessions.ensureBrowser(ctx.session, { restore: false })
      ).browser.newTab();
      // A new tab opens in front of the one ops act on.
      ctx.session.frontTabId = undefined;
      ctx.delivered();
      await opened.goto(href, loadTimeoutMs(ctx.session.settings));
      // Left in the background, the new tab goes behind the one ops act on, as a middle click's
      // does: a hidden tab paints no frames, so every read and capture of it would crawl.
      const front = args.activate === false ? tab : opened;
      if (front === opened) ctx.session.activeTabId = opened.id;
      await ctx.session.bringToFront(front);
      ctx.notes.push(`new_tab ${opened.id}`);
      return { target: summarise(found), data: { tab: opened.id, url: opened.url() } };
    }
    if (args.force) {
      const el = await findElement(tab, ctx.elements, args.target);
      await requireApproval(ctx, tab, el, args.approved);
      // Past an overlay only: a hidden or disabled element still refuses (DESIGN §3.4).
      await probeOrRefuse(tab, ctx.elements, el, { enabled: true, hitTest: false });
      ctx.delivered();
      await callPage(tab, el.frame, 'domClick', el.handle);
      return { target: summarise(el), data: { forced: true } };
    }
    const el = await actionableElement(
      tab,
      ctx.elements,
      args.target,
      { enabled: true, hitTest: true },
      { intent: needsApproval(ctx, args.approved), popup: true },
    );
    await requireApproval(ctx, tab, el, args.approved, 'click', el.intent);
    const modifiers = (args.modifiers ?? []).map((m) =>
      MODIFIERS.find((k) => k.toLowerCase() === m)!,
    );
    const popup = el.popup ?? (await callPage(tab, el.frame, 'opensNewTab', el.handle));
    const opened = ctx.events.openedTabs.length;
    await clickAt(tab, ctx, el, {
      button: args.button,
      count: args.count,
      modifiers,
      glide: args.glide,
    });
    if (popup)
      await waitFor(() => ctx.events.openedTabs.length > opened, ctx.config.settleTimeoutMs);
    return { target: summarise(el) };
  },
});

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}
