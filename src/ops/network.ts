import { z } from 'zod';
import { flag, looseEnum } from '../core/schema.js';
import { RESOURCE_TYPES, requestFailed, type NetworkEntry } from '../drivers/driver.js';
import { clearArg, limitArg, newest, patternArg, patternTest } from './console.js';
import { defineOp } from './define.js';

/** A URL cut past this in results; query strings can be long. */
const SHOWN_URL = 500;

function compact(e: NetworkEntry) {
  const url = e.url.length > SHOWN_URL ? `${e.url.slice(0, SHOWN_URL)}…` : e.url;
  const outcome: Record<string, unknown> = {};
  if (e.status !== undefined) outcome.status = e.status;
  if (e.failure !== undefined) outcome.failure = e.failure;
  if (e.status === undefined && e.failure === undefined) outcome.pending = true;
  return {
    method: e.method,
    url,
    ...outcome,
    type: e.resource_type,
    ...(e.duration_ms !== undefined ? { duration_ms: e.duration_ms } : {}),
    ...(e.size !== undefined ? { size: e.size } : {}),
  };
}

export const network = defineOp({
  name: 'network',
  readsPage: false,
  summary:
    'List the active tab’s requests, oldest first: method, URL, status or failure, type, duration and body size',
  readOnly: true,
  args: z.strictObject({
    failures_only: flag()
      .optional()
      .describe('Keep only failures: HTTP 4xx/5xx, refused, blocked, aborted'),
    pattern: patternArg('URL').optional(),
    resource_types: z
      .preprocess(
        (v) => (typeof v === 'string' ? v.split(',') : v),
        z.array(looseEnum(RESOURCE_TYPES)).min(1),
      )
      .optional()
      .describe('Keep only these kinds of request, e.g. ["fetch", "xhr"] (default: all)'),
    limit: limitArg,
    clear: clearArg,
  }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    const types = args.resource_types ? new Set<string>(args.resource_types) : undefined;
    const matches = args.pattern ? patternTest(args.pattern) : undefined;
    const { shown, ...counts } = newest(
      tab.networkEntries({ clear: args.clear }),
      (e) =>
        (!args.failures_only || requestFailed(e)) &&
        (!types || types.has(e.resource_type)) &&
        (!matches || matches(e.url)),
      args.limit,
      compact,
    );
    return { data: { requests: shown, ...counts } };
  },
});
