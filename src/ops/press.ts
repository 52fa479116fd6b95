import { z } from 'zod';
import { approvalError, consequentialWord } from '../core/approval.js';
import { describeTarget, targetSchema } from '../core/target.js';
import { callPage } from '../drivers/page-script.js';
import { defineOp } from './define.js';
import { actionableElement, summarise } from './element.js';
import { parseChord } from './keys.js';

export const press = defineOp({
  name: 'press',
  summary: 'Press a key or chord, in the focused element or after focusing a target',
  acts: true,
  args: z.strictObject({
    key: z
      .string()
      .min(1)
      .describe(
        'A character ("a"), a DOM key name ("Enter", "ArrowLeft", "Escape", "Tab") or a chord ("Control+a", "Shift+Tab")',
      ),
    target: targetSchema
      .optional()
      .describe('Focus this element first; default: whatever has focus'),
    approved: z
      .boolean()
      .optional()
      .describe('Your user approved this consequential Enter (a payment, a deletion…)'),
  }),
  async run(ctx, args) {
    const keys = parseChord(args.key);
    const tab = await ctx.tab();
    const el = args.target
      ? await actionableElement(tab, ctx.elements, args.target, { enabled: true, hitTest: false })
      : undefined;
    if (el) await callPage(tab, el.frame, 'focusElement', el.handle);
    if (ctx.approval && !args.approved && keys[keys.length - 1] === 'Enter') {
      const frame = el?.frame ?? [];
      const handle = el?.handle ?? (await callPage(tab, [], 'activeHandle'));
      const word =
        handle === null
          ? undefined
          : consequentialWord(
              await callPage(tab, frame, 'intentTexts', handle),
              ctx.config.consequentialWords,
            );
      if (word)
        throw approvalError(
          'press Enter',
          el ? describeTarget(el.target) : 'the focused element',
          word,
        );
    }
    ctx.delivered();
    for (const k of keys) await tab.keyDown(k);
    for (const k of [...keys].reverse()) await tab.keyUp(k);
    return el ? { target: summarise(el) } : {};
  },
});
