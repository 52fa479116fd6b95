import { z } from 'zod';
import { flag } from '../core/schema.js';
import { targetSchema } from '../core/target.js';
import { callPage } from '../drivers/page-script.js';
import type { TrackRequest } from '../page/reading.js';
import { defineOp } from './define.js';
import { findElement, summarise } from './element.js';
import { MAIN_FRAME, type FrameSpot } from './frames.js';
import { OpError } from '../core/errors.js';
import {
  changesAfter,
  cutLines,
  cutNote,
  linesAfter,
  readTrack,
  restAfter,
  type RestCall,
  walkBudget,
} from './track.js';

export const snapshot = defineOp({
  name: 'snapshot',
  summary:
    'Read the page as a text track: visible text and live control values, each line with an address usable as a ref target',
  readOnly: true,
  args: z.strictObject({
    target: targetSchema
      .optional()
      .describe('Read only this element (a ref from an earlier read works)'),
    css: z
      .string()
      .min(1)
      .optional()
      .describe('Read only elements matching this selector (inside target when given)'),
    max_chars: z.coerce
      .number()
      .int()
      .min(100)
      .max(2_000_000)
      .optional()
      .describe('Stop after this many characters (default: whole page)'),
    after: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Only the lines after this address, in page order: where a cut-short read stopped (its rest)',
      ),
  }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    // With after, the budget applies to what follows it, so the page is read whole first.
    const request: TrackRequest = {
      css: args.css,
      maxChars: args.after ? undefined : args.max_chars,
    };
    let target;
    // A target inside a frame is read in that frame: its address there is relative to it.
    let at: FrameSpot = MAIN_FRAME;
    if (args.target) {
      const el = await findElement(tab, ctx.elements, args.target);
      request.address = await callPage(tab, el.frame, 'addressOf', el.handle);
      at = { path: el.frame, address: el.frameAddress };
      target = summarise(el);
    }
    request.budgetMs = walkBudget(ctx.deadline);
    const read = await readTrack(tab, request, ctx.elements.frames, at);
    const data: Record<string, unknown> = {};
    let shown = read.snapshot.lines;
    if (args.after) {
      const rest = linesAfter(shown, args.after);
      if (!rest)
        throw new OpError(
          'invalid_argument',
          `after: "${args.after}" is not a text-track address; give the address from a truncated answer's rest, e.g. {"after": "AEDBc"}.`,
        );
      const cutShort = cutLines(rest, args.max_chars ?? Number.POSITIVE_INFINITY);
      shown = cutShort.shown;
      Object.assign(data, { track: cutShort.text, lines: shown.length });
      if (cutShort.rest) Object.assign(data, { truncated: true, rest: cutShort.rest });
    } else {
      Object.assign(data, { track: read.text, lines: shown.length });
      if (read.truncated) {
        data.truncated = true;
        if (shown.length) data.rest = restAfter(shown[shown.length - 1]);
      }
    }
    ctx.session.reading.remember(read.snapshot, shown, true);
    if (!args.target && !args.css && !args.after && !read.truncated)
      ctx.session.reading.setBaseline(read.snapshot);
    if (read.cut) {
      // Past the cut nothing was read: its rest would read the same start again and stop there.
      data.truncated = true;
      delete data.rest;
      ctx.notes.push(cutNote(read.cut.elements));
    } else if (data.truncated) {
      ctx.notes.push(
        'truncated: its rest continues after the last line, or snapshot a part of the page with target or css',
      );
    }
    // The rest of a part (target, css) is the rest of that part, in pieces of the same size.
    if (data.rest) {
      const { target: t, css, max_chars: budget } = args;
      const rest = data.rest as RestCall;
      Object.assign(rest.args, { target: t, css, max_chars: budget });
      for (const k of Object.keys(rest.args)) if (rest.args[k] === undefined) delete rest.args[k];
    }
    if (read.closedShadowRoots) data.closed_shadow_roots = read.closedShadowRoots;
    if (read.skippedFrames?.length) data.skipped_frames = read.skippedFrames;
    return { data, target };
  },
});

export const diff = defineOp({
  name: 'diff',
  summary:
    'What changed on the page since it was last read (late async updates); reset starts a new baseline',
  readOnly: true,
  args: z.strictObject({
    reset: flag()
      .optional()
      .describe('Take the current page as the new baseline and report nothing'),
    include_removed: flag().optional().describe('List the strings that left the page'),
  }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    const memory = ctx.session.reading;
    const before = memory.baseline(tab.id);
    if (args.reset || !before) {
      const { snapshot: now } = await readTrack(tab, {}, ctx.elements.frames);
      memory.setBaseline(now);
      return {
        data: { changes: { note: 'baseline taken; the next diff reports changes from here' } },
      };
    }
    const changes = await changesAfter(tab, before, memory, {
      includeRemoved: args.include_removed ?? false,
      maxChars: ctx.config.changesMaxChars,
      withholdNothing: false,
      frames: ctx.elements.frames,
    });
    return { data: { changes } };
  },
});
