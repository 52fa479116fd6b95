import {
  compactAnswer,
  DETAILS,
  isDetail,
  type CompactAnswer,
  type Detail,
  type RefusalLike,
} from '../core/compact-answer.js';
import { OpError } from '../core/errors.js';
import type { ActionResult } from '../core/result.js';
import type { Session } from '../sessions/session.js';

/**
 * The answer a surface sends for `detail`: the whole result, or its compact rendering. Either way
 * the session now remembers the page the caller was shown, so the next compact answer names the
 * page only when it changed.
 */
export function answerFor(
  session: Session | undefined,
  result: ActionResult | RefusalLike,
  detail: Detail,
): ActionResult | RefusalLike | CompactAnswer {
  const { answer, shown } = compactAnswer(result, session?.shownPage);
  if (session) session.shownPage = shown;
  return detail === 'full' ? result : answer;
}

/** A `detail` a caller gave (argument, query or flag), checked; `fallback` when none. */
export function detailOf(value: unknown, fallback: Detail): Detail {
  if (value === undefined || value === '') return fallback;
  if (isDetail(value)) return value;
  throw new OpError(
    'invalid_argument',
    `detail takes ${DETAILS.map((d) => `"${d}"`).join(' or ')} (got ${JSON.stringify(value)}): "full" answers with the whole ActionResult, "compact" with what a model acts on.`,
  );
}
