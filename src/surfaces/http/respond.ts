import type { Context } from 'hono';
import { ERROR_KINDS, httpStatusOf, type OpError } from '../../core/errors.js';
import { stripUrlCredentials } from '../../core/redact.js';
import type { ActionResult } from '../../core/result.js';

export type Status = 200 | (typeof ERROR_KINDS)[keyof typeof ERROR_KINDS]['http'];

/** A refusal before or outside runOp, shaped like a failed result, with its kind's status. */
export function failure(c: Context, op: string, error: OpError) {
  const body = { ok: false, op, error: error.toInfo() };
  return c.json(
    JSON.parse(stripUrlCredentials(JSON.stringify(body))),
    httpStatusOf(error.kind) as Status,
  );
}

/** An op's result: 200 when ok, otherwise its error kind's status; the body is the result. */
export function answer(c: Context, result: ActionResult) {
  return c.json(
    result,
    (result.ok ? 200 : httpStatusOf(result.error?.kind ?? 'backend')) as Status,
  );
}
