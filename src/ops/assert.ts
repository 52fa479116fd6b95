import { z } from 'zod';
import {
  conditionSchema,
  conditionShape,
  CONDITION_TYPES,
  type Condition,
} from '../core/condition.js';
import { OpError } from '../core/errors.js';
import { jsonObject, millis } from '../core/schema.js';
import type { BrowserTab } from '../drivers/driver.js';
import { defineOp, timeoutArg, type OpContext } from './define.js';
import { dismissDialog } from './dialog-in-the-way.js';
import { failureMessage, verify } from './verify.js';

/** Condition keys at the top level, or `all: [conditions]` (DESIGN §3.5). */
const checkArgs = conditionShape.extend({
  all: jsonObject(z.array(conditionSchema).min(1))
    .optional()
    .describe('Several conditions that must all hold'),
  timeout: timeoutArg,
});

type CheckArgs = z.output<typeof checkArgs>;

export function conditionsOf(op: string, args: CheckArgs): Condition[] {
  const { all, timeout: _t, ...single } = args as CheckArgs & { message?: string; ms?: number };
  delete (single as Record<string, unknown>).message;
  delete (single as Record<string, unknown>).ms;
  const hasSingle = CONDITION_TYPES.some((k) => single[k] !== undefined);
  if (all && hasSingle)
    throw new OpError(
      'invalid_argument',
      `${op}: give either one condition's keys or all: [...], not both.`,
    );
  if (all)
    return all.map((c) =>
      c.stable_for === undefined && single.stable_for !== undefined
        ? { ...c, stable_for: single.stable_for }
        : c,
    );
  const parsed = conditionSchema.safeParse(single);
  if (!parsed.success)
    throw new OpError(
      'invalid_argument',
      `${op}: ${parsed.error.issues[0]?.message ?? 'expected a condition'}.`,
    );
  return [parsed.data];
}

/** Polls the conditions for the op's timeout, under the server's evaluate policy. */
function check(
  ctx: OpContext,
  tab: BrowserTab,
  conditions: Condition[],
  timeout: number | undefined,
) {
  return verify(tab, conditions, timeout ?? ctx.timeoutMs, {
    evaluate: ctx.config.evaluate,
    signal: ctx.signal,
    elements: ctx.elements,
    clearDialog: () => dismissDialog(tab, ctx.notes),
  });
}

export const assert = defineOp({
  name: 'assert',
  summary: 'Check a condition without acting; fails with your message when it does not hold',
  args: checkArgs.extend({
    message: z
      .string()
      .min(1)
      .optional()
      .describe('What a failure means and what to do, shown when it fails'),
    timeout: millis(
      'Keep checking for this many ms (0 checks once; default: the session timeout)',
    ).optional(),
  }),
  async run(ctx, args) {
    const conditions = conditionsOf('assert', args);
    const tab = await ctx.tab();
    const checks = await check(ctx, tab, conditions, args.timeout);
    if (checks.every((c) => c.passed)) return { checks };
    const detail = failureMessage(checks, tab.url());
    throw new OpError(
      'verification_failed',
      args.message
        ? `Assertion failed: ${args.message} (${detail})`
        : `Assertion failed. ${detail} This assert has no message: add one saying what the failure means and what to do.`,
      { details: { checks } },
    );
  },
});

export const waitFor = defineOp({
  name: 'wait_for',
  summary: 'Wait until a condition holds (text, element, URL…), or for a fixed time with ms',
  args: checkArgs.extend({
    ms: millis('Just wait this many ms (prefer a condition)').optional(),
  }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    const hasCondition =
      args.all !== undefined || CONDITION_TYPES.some((k) => args[k] !== undefined);
    if (args.ms !== undefined && !hasCondition) {
      const started = Date.now();
      await new Promise((r) =>
        setTimeout(r, Math.min(args.ms!, Math.max(0, ctx.deadline - started))),
      );
      // A wait cut short is not a wait done: the step after it would act too soon.
      if (args.ms > ctx.timeoutMs)
        throw new OpError(
          'timeout',
          `wait_for {ms: ${args.ms}} was cut after ${Date.now() - started} ms, when its ${ctx.timeoutMs} ms ran out.${ctx.run ? '' : ' Give it a timeout longer than ms, or wait for a condition instead.'}`,
          { details: { ms: args.ms, waited_ms: Date.now() - started } },
        );
      return { data: { waited_ms: args.ms } };
    }
    const conditions = conditionsOf('wait_for', args);
    const checks = await check(ctx, tab, conditions, args.timeout);
    if (checks.every((c) => c.passed)) return { checks };
    throw new OpError(
      'timeout',
      `wait_for ran out of time after ${args.timeout ?? ctx.timeoutMs} ms. ${failureMessage(checks, tab.url())}`,
      { details: { checks } },
    );
  },
});
