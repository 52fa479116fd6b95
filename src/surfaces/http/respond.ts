import type { Context } from 'hono';
import { ERROR_KINDS, httpStatusOf, type OpError } from '../../core/errors.js';
import { scrub } from '../../core/redact.js';
import { resolveSessionName } from '../../sessions/resolve.js';
import type { ActionResult } from '../../core/result.js';

export type Status = 200 | (typeof ERROR_KINDS)[keyof typeof ERROR_KINDS]['http'];

/** A refusal before or outside runOp, shaped like a failed result, with its kind's status. */
export function failure(c: Context, op: string, error: OpError) {
  const body = { ok: false, op, error: error.toInfo() };
  retryAfter(c, error.details);
  return c.json(scrub(body), httpStatusOf(error.kind) as Status);
}

/** An op's result: 200 when ok, otherwise its kind's status; the body is the result or its rendering. */
export function answer(c: Context, result: ActionResult, body: object = result) {
  retryAfter(c, result.error?.details);
  return c.json(body, (result.ok ? 200 : httpStatusOf(result.error?.kind ?? 'backend')) as Status);
}

/** A refusal that knows when to come back (a saturated machine's queue) says so in the header too. */
function retryAfter(c: Context, details: Record<string, unknown> | undefined): void {
  const seconds = details?.retry_after_s;
  if (typeof seconds === 'number') c.header('Retry-After', String(seconds));
}

/** Whether the request names a session at all (a `/flows` read without one reads `global`). */
export function namesSession(c: Context): boolean {
  return !!(c.req.header('x-session-key') || c.req.query('session'));
}

/** The session a request names, by the one rule every surface uses (DESIGN §6). */
export function callerName(c: Context): string {
  return resolveSessionName({
    header: c.req.header('x-session-key'),
    query: c.req.query('session'),
  });
}
