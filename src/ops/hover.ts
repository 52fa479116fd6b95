import { z } from 'zod';
import { targetSchema } from '../core/target.js';
import { defineOp } from './define.js';
import { actionableElement, summarise } from './element.js';
import { glideArg, inside, movePointer, pointerOn, pointOutside } from './pointer.js';

export const hover = defineOp({
  name: 'hover',
  summary:
    'Move the pointer over an element. The pointer stays there, so a hover menu stays open for the next call',
  acts: true,
  args: z.strictObject({ target: targetSchema, glide: glideArg }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    const el = await actionableElement(tab, ctx.elements, args.target, {
      enabled: false,
      hitTest: true,
    });
    ctx.delivered();
    const at = pointerOn(tab, ctx.session);
    // A pointer already inside gets no mouseover from a move within: step out so this is an entry.
    const out = at && inside(at, el.box) ? pointOutside(el.box, tab.viewport()) : undefined;
    if (out) await movePointer(tab, ctx.session, out, { glide: false, notes: ctx.notes });
    await movePointer(tab, ctx.session, el.point, { glide: args.glide, notes: ctx.notes });
    return { target: summarise(el) };
  },
});
