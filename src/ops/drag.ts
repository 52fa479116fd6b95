import { z } from 'zod';
import { flag } from '../core/schema.js';
import { OpError } from '../core/errors.js';
import { targetSchema } from '../core/target.js';
import { defineOp } from './define.js';
import { actionableElement, summarise } from './element.js';
import { arriveToPress, FRAME_MS, movePointer, sleep } from './pointer.js';

/** Several drag libraries arm only after the button has been held a moment. */
const HOLD_MS = 100;

export const drag = defineOp({
  name: 'drag',
  summary:
    'Drag an element with the pointer to another element or by an offset: sortable lists, sliders, splitters, canvases, drop zones. Fires HTML5 drag events on Chromium (not Firefox)',
  acts: true,
  args: z.strictObject({
    target: targetSchema.describe('The element to drag; it is pressed at its centre'),
    to: targetSchema.optional().describe('Drop on the centre of this element'),
    by_x: z.coerce
      .number()
      .optional()
      .describe("Pixels right of the source's centre to drop at (negative: left)"),
    by_y: z.coerce
      .number()
      .optional()
      .describe("Pixels below the source's centre to drop at (negative: up)"),
    glide: flag()
      .default(true)
      .describe(
        'Move in small eased steps, as most drag code needs to see the movement (default true); false jumps',
      ),
  }),
  async run(ctx, args) {
    const byOffset = args.by_x !== undefined || args.by_y !== undefined;
    if ((args.to !== undefined) === byOffset)
      throw new OpError(
        'invalid_argument',
        `drag takes exactly one destination: to (a target) or by_x/by_y (pixels from the source's centre); ${byOffset ? 'this call gave both' : 'this call gave neither'}.`,
      );
    const tab = await ctx.tab();
    // Found before the press so a missing destination fails (and waits) without a button held down;
    // before the source, so scrolling to it cannot move the source from under the press.
    if (args.to)
      await actionableElement(tab, ctx.elements, args.to, { enabled: false, hitTest: false });
    const source = await actionableElement(tab, ctx.elements, args.target, {
      enabled: true,
      hitTest: true,
    });
    await arriveToPress(tab, ctx, source, false);
    await tab.mouseDown('left', 1);
    let data: Record<string, unknown>;
    try {
      await sleep(HOLD_MS);
      let to: { x: number; y: number };
      if (args.to) {
        // Read again now: pressing may have moved or revealed the destination.
        const dest = await actionableElement(tab, ctx.elements, args.to, {
          enabled: false,
          hitTest: false,
        });
        to = dest.point;
        data = { to: summarise(dest) };
      } else {
        const by = { x: args.by_x ?? 0, y: args.by_y ?? 0 };
        to = { x: source.point.x + by.x, y: source.point.y + by.y };
        data = { by };
      }
      await movePointer(tab, ctx.session, to, { glide: args.glide, notes: ctx.notes });
      await sleep(FRAME_MS);
    } catch (e) {
      // Never leave the button held: the page would take every later move as part of this drag.
      await tab.mouseUp('left', 1).catch(() => undefined);
      throw e;
    }
    await tab.mouseUp('left', 1);
    return { target: summarise(source), data };
  },
});
