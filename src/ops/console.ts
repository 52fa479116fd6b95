import { z } from 'zod';
import { flag, looseEnum } from '../core/schema.js';
import { CONSOLE_LEVELS, type ConsoleEntry, type EntryBuffer } from '../drivers/driver.js';
import { defineOp } from './define.js';
import { textMatcher } from './element.js';

/** A console text cut past this in results; the buffer keeps more. */
const SHOWN_TEXT = 1000;

/** `/regex/flags` (the syntax targets use), else a case-insensitive substring. */
export function patternTest(pattern: string): (text: string) => boolean {
  const m = textMatcher(pattern);
  if ('regex' in m) {
    const re = new RegExp(m.regex, m.flags);
    return (text) => re.test(text);
  }
  const needle = m.exact.toLowerCase();
  return (text) => text.toLowerCase().includes(needle);
}

export const patternArg = (what: string) =>
  z
    .string()
    .min(1)
    .superRefine((p, ctx) => {
      try {
        patternTest(p);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
      }
    })
    .describe(
      `Keep only entries whose ${what} contains this text (any case) or matches /regex/flags`,
    );

export const limitArg = z.coerce
  .number()
  .int()
  .min(1)
  .max(500)
  .optional()
  .describe('Return at most this many entries, the newest, oldest first (default 50)');

export const clearArg = flag()
  .optional()
  .describe(
    'Empty this tab’s buffer after reading (every entry, not only those returned), so the next call shows only what is new',
  );

/** Filters a buffer, keeps the newest `limit`, and says how many matched and were dropped. */
export function newest<T, R>(
  buffer: EntryBuffer<T>,
  keep: (entry: T) => boolean,
  limit: number | undefined,
  show: (entry: T) => R,
): { shown: R[]; total: number; dropped?: number } {
  const matched = buffer.entries.filter(keep);
  const shown = matched.slice(-(limit ?? 50)).map(show);
  return {
    shown,
    total: matched.length,
    ...(buffer.dropped ? { dropped: buffer.dropped } : {}),
  };
}

/** A list given as one string ("error,warning") is split; "warn" means warning. */
const levelsArg = z
  .preprocess(
    (v) => (typeof v === 'string' ? v.split(',') : v),
    z
      .array(
        z.preprocess(
          (v) => (typeof v === 'string' && /^\s*warn\s*$/i.test(v) ? 'warning' : v),
          looseEnum(CONSOLE_LEVELS),
        ),
      )
      .min(1),
  )
  .optional()
  .describe('Keep only these levels (default: all)');

function compact(e: ConsoleEntry) {
  const text = e.text.length > SHOWN_TEXT ? `${e.text.slice(0, SHOWN_TEXT)}…` : e.text;
  return {
    level: e.level,
    text,
    ...(e.source === 'pageerror' ? { source: e.source } : {}),
    ...(e.url ? { url: e.url } : {}),
    ...(e.line ? { line: e.line } : {}),
  };
}

export const consoleOp = defineOp({
  name: 'console',
  readsPage: false,
  summary:
    'Read the active tab’s console messages and uncaught errors, oldest first, page loads included',
  readOnly: true,
  args: z.strictObject({
    levels: levelsArg,
    pattern: patternArg('message').optional(),
    limit: limitArg,
    clear: clearArg,
  }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    const levels = args.levels ? new Set(args.levels) : undefined;
    const matches = args.pattern ? patternTest(args.pattern) : undefined;
    const { shown, ...counts } = newest(
      tab.consoleEntries({ clear: args.clear }),
      (e) => (!levels || levels.has(e.level)) && (!matches || matches(e.text)),
      args.limit,
      compact,
    );
    return { data: { entries: shown, ...counts } };
  },
});
