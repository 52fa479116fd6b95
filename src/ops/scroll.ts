import { z } from 'zod';
import { OpError } from '../core/errors.js';
import { looseEnum } from '../core/schema.js';
import { targetSchema } from '../core/target.js';
import { callPage } from '../drivers/page-script.js';
import { defineOp } from './define.js';
import { movePointer } from './pointer.js';
import { findElement, summarise } from './element.js';

export const scroll = defineOp({
  name: 'scroll',
  summary:
    'Scroll: an element into view, the page to top or bottom, or by an offset with the wheel',
  acts: true,
  args: z.strictObject({
    target: targetSchema.optional().describe('Scroll this element into view'),
    to: looseEnum(['top', 'bottom']).optional().describe('Scroll the page to its top or bottom'),
    by_x: z.coerce.number().optional().describe('Pixels to scroll right (negative: left)'),
    by_y: z.coerce.number().optional().describe('Pixels to scroll down (negative: up)'),
  }),
  async run(ctx, args) {
    const modes = [
      args.target !== undefined,
      args.to !== undefined,
      args.by_x !== undefined || args.by_y !== undefined,
    ].filter(Boolean).length;
    if (modes !== 1)
      throw new OpError(
        'invalid_argument',
        'scroll takes exactly one of target, to ("top"|"bottom"), or by_x/by_y (pixels).',
      );
    const tab = await ctx.tab();
    if (args.target) {
      const el = await findElement(tab, ctx.elements, args.target);
      ctx.delivered();
      await callPage(tab, el.frame, 'scrollIntoView', el.handle);
      return { target: summarise(el) };
    }
    ctx.delivered();
    if (args.to) return { data: { scroll: await callPage(tab, [], 'scrollTo', args.to) } };
    // The wheel scrolls whatever is under the pointer, as a person's would; the page itself when nothing is.
    const { width, height } = tab.viewport();
    await movePointer(
      tab,
      ctx.session,
      { x: width / 2, y: height / 2 },
      { glide: false, notes: ctx.notes },
    );
    await tab.wheel(args.by_x ?? 0, args.by_y ?? 0);
    return {};
  },
});
