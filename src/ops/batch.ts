import { z } from 'zod';
import { OpError } from '../core/errors.js';
import type { ActionResult } from '../core/result.js';
import { flag, jsonObject } from '../core/schema.js';
import { defineOp } from './define.js';

const stepSchema = z.strictObject({
  op: z.string().min(1).describe('Op name, e.g. "click"'),
  args: z.record(z.string(), z.unknown()).optional().describe("The op's arguments"),
});

export const batch = defineOp({
  name: 'batch',
  runsSteps: true,
  runsOtherOps: true,
  secretRefsAsData: true,
  destructive: true,
  readsPage: false,
  summary:
    'Run a list of ops in one round trip; stops at the first failure unless continue_on_error',
  step: false,
  browser: true,
  args: z.strictObject({
    steps: jsonObject(z.array(stepSchema).min(1).max(200)).describe(
      'Ops to run in order: [{"op": "goto", "args": {"url": "…"}}, …]',
    ),
    continue_on_error: flag().optional().describe('Run every step even after one fails'),
  }),
  async run(ctx, args) {
    const nestedBatch = args.steps.findIndex((s) => s.op === 'batch');
    if (nestedBatch >= 0)
      throw new OpError(
        'invalid_argument',
        `batch: step ${nestedBatch + 1} is a batch; put its steps in this list instead.`,
      );
    const results: ActionResult[] = [];
    const total = args.steps.length;
    for (const [done, step] of args.steps.entries()) {
      const message = `step ${done + 1}/${total}: ${step.op}`;
      const result = await ctx.runNested(step.op, step.args ?? {}, {
        progress: { message, done, total },
      });
      results.push(result);
      if (!result.ok && !args.continue_on_error) break;
      if (ctx.signal?.aborted) break;
    }
    const failed = results.filter((r) => !r.ok);
    const first = failed[0];
    const index = first ? results.indexOf(first) + 1 : 0;
    return {
      ok: failed.length === 0,
      error: first?.error
        ? new OpError(
            first.error.kind,
            `Step ${index} (${first.op}) failed: ${first.error.message}`,
            { details: { step: index } },
          )
        : undefined,
      data: { results, ran: results.length, total: args.steps.length, failed: failed.length },
    };
  },
});
