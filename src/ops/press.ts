import { z } from 'zod';
import { flag } from '../core/schema.js';
import { targetSchema } from '../core/target.js';
import type { BrowserTab } from '../drivers/driver.js';
import { callPage } from '../drivers/page-script.js';
import { needsApproval, requireApproval } from './approval.js';
import { defineOp } from './define.js';
import { actionableElement, summarise } from './element.js';
import { parseChord } from './keys.js';

/**
 * Presses a parsed chord: keys go down in order and come up in reverse. Every key that went down
 * comes up, also when a key fails half-way, so no modifier stays held for the next op.
 */
export async function pressChord(tab: BrowserTab, keys: readonly string[]): Promise<void> {
  const down: string[] = [];
  try {
    for (const k of keys) {
      await tab.keyDown(k);
      down.push(k);
    }
  } finally {
    let failed: unknown;
    for (const k of down.reverse()) await tab.keyUp(k).catch((e: unknown) => (failed ??= e));
    if (failed) throw failed;
  }
}

export const press = defineOp({
  name: 'press',
  summary: 'Press a key or chord, in the focused element or after focusing a target',
  acts: true,
  args: z.strictObject({
    key: z
      .string()
      .min(1)
      .describe(
        'A character ("a"), a DOM key name ("Enter", "ArrowLeft", "Escape", "Tab", "F5") or a chord ("Control+a", "Shift+Tab"); a chord naming an unknown key is refused before any key goes down',
      ),
    target: targetSchema
      .optional()
      .describe('Focus this element first; default: whatever has focus'),
    approved: flag()
      .optional()
      .describe(
        'Your user approved this consequential Enter (it submits a form whose button says pay, delete…)',
      ),
  }),
  async run(ctx, args) {
    const keys = parseChord(args.key);
    const tab = await ctx.tab();
    const el = args.target
      ? // Keys go to the focused element, not to a point: its box need not hold still.
        await actionableElement(tab, ctx.elements, args.target, {
          enabled: true,
          hitTest: false,
          stable: false,
        })
      : undefined;
    if (el) await callPage(tab, el.frame, 'focusElement', el.handle);
    if (keys[keys.length - 1] === 'Enter' && needsApproval(ctx, args.approved)) {
      const handle = el?.handle ?? (await callPage(tab, [], 'activeHandle'));
      if (handle !== null)
        await requireApproval(
          ctx,
          tab,
          { frame: el?.frame ?? [], handle, target: el?.target },
          args.approved,
          'enter',
        );
    }
    ctx.delivered('queued');
    await pressChord(tab, keys);
    return el ? { target: summarise(el) } : {};
  },
});
