import { z } from 'zod';
import { OpError } from '../core/errors.js';
import { targetSchema } from '../core/target.js';
import { within } from '../core/within.js';
import { defineOp } from './define.js';
import { findElement } from './element.js';
import { runScript } from './script.js';

const MAX_RESULT_CHARS = 20_000;

const LATE = Symbol('late');

export const evaluate = defineOp({
  name: 'evaluate',
  summary:
    'Run JavaScript in the page and return its JSON result. Prefer hover (a CSS :hover menu cannot be opened by script), assert and outline over scripts',
  acts: true,
  args: z.strictObject({
    script: z
      .string()
      .min(1)
      .describe('An expression, a function (called with arg), or a body that returns a value'),
    arg: z.unknown().optional().describe('A JSON value passed to a function script'),
    frame: targetSchema.optional().describe('Run inside this iframe instead of the top page'),
  }),
  async run(ctx, args) {
    if (!ctx.config.evaluate) {
      throw new OpError(
        'permission_denied',
        'evaluate is off on this server (EVALUATE=off); use the read and interact ops instead.',
      );
    }
    const tab = await ctx.tab();
    let frame: readonly number[] = [];
    if (args.frame) {
      const iframe = await findElement(tab, ctx.elements, args.frame);
      frame = [...iframe.frame, iframe.handle];
    }
    ctx.delivered();
    // A promise the page never settles in time is the op's timeout (or script_timeout); the page keeps it.
    const scriptTimeout = ctx.session.settings.scriptTimeoutMs;
    const byScriptTimeout = scriptTimeout !== undefined && scriptTimeout < ctx.timeoutMs;
    const value = await within(
      runScript(tab, frame, args.script, args.arg),
      byScriptTimeout ? scriptTimeout : ctx.deadline - Date.now(),
      LATE,
    );
    if (value === LATE) {
      const limit = byScriptTimeout
        ? `${scriptTimeout} ms (the session's script_timeout)`
        : `${ctx.timeoutMs} ms (the op's timeout)`;
      throw new OpError(
        'timeout',
        `The script had not finished after ${limit} on ${tab.url()}: a promise it returned had not settled. The page keeps running it, and what it does later is not reported. Give it a longer timeout, or return sooner (poll with wait_for).`,
      );
    }
    const json = JSON.stringify(value);
    if (json !== undefined && json.length > MAX_RESULT_CHARS) {
      ctx.notes.push(`truncated: the result was ${json.length} characters; return less`);
      return { data: { result: `${json.slice(0, MAX_RESULT_CHARS)}…`, truncated: true } };
    }
    return { data: { result: value === undefined ? null : value } };
  },
});
