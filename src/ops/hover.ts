import { z } from 'zod';
import { targetSchema } from '../core/target.js';
import { defineOp } from './define.js';
import { actionableElement, summarise } from './element.js';

export const hover = defineOp({
  name: 'hover',
  summary:
    'Move the pointer over an element. The pointer stays there, so a hover menu stays open for the next call',
  acts: true,
  args: z.strictObject({ target: targetSchema }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    const el = await actionableElement(tab, args.target, { enabled: false, hitTest: true });
    ctx.delivered();
    await tab.mouseMove(el.point.x, el.point.y);
    return { target: summarise(el) };
  },
});
