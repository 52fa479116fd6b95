import { z } from 'zod';
import { OpError } from '../core/errors.js';
import { looseEnum } from '../core/schema.js';
import { describeTarget, targetSchema } from '../core/target.js';
import type { BrowserTab, FramePath } from '../drivers/driver.js';
import { callPage } from '../drivers/page-script.js';
import type { ReadingMemory } from '../sessions/reading-memory.js';
import { defineOp } from './define.js';
import { findElement, inScope, pageTarget, scopeOf, summarise, textMatcher } from './element.js';
import { acrossFrames, DEFAULT_FRAME_LIMITS, inFrame, MAIN_FRAME, unreadNote } from './frames.js';
import type { OutlineFilter } from '../page/outline.js';
import type { TextMatcher } from '../page/protocol.js';
import { cutNote, walkBudget } from './track.js';

/** An item read in a frame: its ref carries the frame's address, and `frame` names the frame. */
function inFrameItem<T extends { ref?: string }>(frame: string, item: T): T & { frame?: string } {
  if (!frame) return item;
  return { ...item, ...(item.ref ? { ref: inFrame(frame, item.ref) } : {}), frame };
}

/** Keeps the refs handed out so they can be checked, and drops the prints from what is shown. */
async function handOut<T extends { ref?: string; print?: string }>(
  tab: BrowserTab,
  memory: ReadingMemory,
  items: T[],
): Promise<Omit<T, 'print'>[]> {
  const documentId = await callPage(tab, [], 'documentId');
  const refs = items.flatMap((i) => (i.ref && i.print ? [{ ref: i.ref, print: i.print }] : []));
  memory.rememberRefs(tab.id, documentId, refs);
  return items.map(({ print: _print, ...rest }) => rest);
}

export const find = defineOp({
  name: 'find',
  // Discovery is the author's, not a step's (DESIGN §8): it finds the target a step then names.
  step: false,
  summary:
    'List the elements a target matches: tag and attributes, own text, live value, ref, visible',
  readOnly: true,
  args: z.strictObject({
    target: targetSchema.describe('What to look for; several matches are all listed'),
    mode: looseEnum(['shell', 'full'])
      .default('shell')
      .describe(
        'shell: the element without children (default); full: also its whole text and HTML',
      ),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(500)
      .default(20)
      .describe('Most elements listed (default 20)'),
  }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    const { within: _within, frame: _frame, nth: _nth, ...own } = args.target;
    const where = await scopeOf(tab, ctx.elements, args.target, MAIN_FRAME);
    const request = pageTarget(own);
    const budget = walkBudget(ctx.deadline);
    const search = await inScope(tab, ctx.elements, where, (spot, scope) =>
      callPage(tab, spot.path, 'find', request, scope, args.mode === 'full', args.limit, budget),
    );
    const error = search.answers.find((a) => a.value.error)?.value.error;
    if (error) throw new OpError('invalid_argument', `${describeTarget(args.target)}: ${error}`);
    const all = search.answers.flatMap(({ spot, value }) =>
      value.elements.map((el) => inFrameItem(spot.address, el)),
    );
    const elements = await handOut(tab, ctx.session.reading, all.slice(0, args.limit));
    const total = search.answers.reduce((n, a) => n + a.value.total, 0);
    const data: Record<string, unknown> = { elements, total };
    const cut = search.answers.reduce((n, a) => n + (a.value.cut?.elements ?? 0), 0);
    if (cut) {
      // total counts what was looked at: there may be more past the cut.
      data.truncated = true;
      ctx.notes.push(cutNote(cut, 'narrow the search with within or a css target'));
    }
    const unread = unreadNote(search.unread);
    if (unread) ctx.notes.push(unread);
    return { data };
  },
});

export const extract = defineOp({
  name: 'extract',
  summary: "Read one element's text, value, an attribute, its HTML, or a table as rows",
  readOnly: true,
  args: z.strictObject({
    target: targetSchema,
    what: looseEnum(['text', 'value', 'attribute', 'html', 'table'])
      .default('text')
      .describe('What to read (default text)'),
    attribute: z.string().min(1).optional().describe('The attribute name, with what: attribute'),
    max_chars: z.coerce
      .number()
      .int()
      .min(10)
      .max(2_000_000)
      .default(20_000)
      .describe('Cut text and HTML past this many characters'),
  }),
  async run(ctx, args) {
    if (args.what === 'attribute' && !args.attribute)
      throw new OpError(
        'invalid_argument',
        'extract: what "attribute" needs attribute, e.g. {"what": "attribute", "attribute": "href"}.',
      );
    const tab = await ctx.tab();
    const el = await findElement(tab, ctx.elements, args.target);
    const target = summarise(el);
    if (args.what === 'table') {
      const rows = await callPage(tab, el.frame, 'tableRows', el.handle);
      if (!rows)
        throw new OpError(
          'invalid_argument',
          `extract: ${describeTarget(args.target)} is not a table and holds none.`,
        );
      return { target, data: { rows, row_count: rows.length } };
    }
    const value = await callPage(tab, el.frame, 'extractOf', el.handle, args.what, args.attribute);
    const cut = value !== null && value.length > args.max_chars;
    return {
      target,
      data: {
        result: cut ? value!.slice(0, args.max_chars) : value,
        ...(cut ? { truncated: true } : {}),
      },
    };
  },
});

export const outline = defineOp({
  name: 'outline',
  // Discovery is the author's, not a step's (DESIGN §8): it finds the target a step then names.
  step: false,
  summary:
    'The usable elements, main content first: role, name, region, one checked durable target each, whether it is expanded, and why any is unusable now (hidden and what reveals it, covered, disabled)',
  readOnly: true,
  args: z.strictObject({
    target: targetSchema
      .optional()
      .describe('List only the elements inside this one (a menu, a form, a dialog)'),
    css: z
      .string()
      .min(1)
      .optional()
      .describe(
        'List only the elements inside what this selector matches (inside target when given)',
      ),
    text: z
      .string()
      .min(1)
      .optional()
      .describe(
        'List only elements whose name contains this text (any case), or matches /regex/flags',
      ),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(2000)
      .default(100)
      .describe('Most elements listed (default 100); total says how many there are'),
  }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    const filter: OutlineFilter = { css: args.css };
    if (args.text) filter.text = containsMatcher(args.text);
    const budget = walkBudget(ctx.deadline);
    const outlineIn = (path: FramePath) =>
      callPage(tab, path, 'outline', args.limit, budget, filter);
    let target;
    let search;
    if (args.target) {
      // A scope is one element: its own document is outlined, below it only.
      const el = await findElement(tab, ctx.elements, args.target);
      filter.scope = el.handle;
      target = summarise(el);
      const spot = { path: el.frame, address: el.frameAddress };
      search = { answers: [{ spot, value: await outlineIn(el.frame) }], unread: [] };
    } else {
      search = await acrossFrames(ctx.elements.frames ?? DEFAULT_FRAME_LIMITS, (spot) =>
        outlineIn(spot.path),
      );
    }
    const failed = search.answers.find((a) => a.value.error)?.value.error;
    if (failed?.kind === 'invalid_argument')
      throw new OpError(
        'invalid_argument',
        `outline: ${failed.message}; give a CSS selector such as "nav" or "#menu".`,
      );
    if (failed)
      throw new OpError('stale_element', `outline: ${failed.message}; run outline again.`);
    // The main frame's elements first, then each frame's, in the order the frames were read.
    const all = search.answers.flatMap(({ spot, value }) =>
      value.items.map((item) => inFrameItem(spot.address, item)),
    );
    const items = await handOut(tab, ctx.session.reading, all.slice(0, args.limit));
    const total = search.answers.reduce((n, a) => n + a.value.total, 0);
    const data: Record<string, unknown> = { elements: items, total };
    const cut = search.answers.reduce((n, a) => n + (a.value.cut?.elements ?? 0), 0);
    const unread = unreadNote(search.unread);
    if (unread) ctx.notes.push(unread);
    if (cut) {
      data.truncated = true;
      ctx.notes.push(cutNote(cut, 'the first found are listed; find with within lists a part'));
    } else if (total > items.length)
      ctx.notes.push(`limited: ${items.length} of ${total} listed; raise limit for the rest`);
    return { data, target };
  },
});

/** A filter's text: /regex/flags as written, plain text as a case-insensitive part of the name. */
function containsMatcher(text: string): TextMatcher {
  const matcher = textMatcher(text);
  if ('regex' in matcher) return matcher;
  return { regex: text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags: 'i' };
}
