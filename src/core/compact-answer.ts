import type { ErrorInfo } from './errors.js';
import type {
  ActionResult,
  ElementSummary,
  Evidence,
  TargetSummary,
  Verification,
} from './result.js';

/** The page an answer named: what a session's caller was last shown. */
export type ShownPage = NonNullable<ActionResult['page']>;

/** How much of an ActionResult a caller gets: the compact rendering for a model, or all of it. */
export type Detail = 'compact' | 'full';

export const DETAILS: readonly Detail[] = ['compact', 'full'];

export const isDetail = (value: unknown): value is Detail =>
  typeof value === 'string' && (DETAILS as readonly string[]).includes(value);

/** What of the acted-on element a caller did not name itself. */
export interface CompactTarget {
  ref?: string;
  name?: string;
  text?: string;
  role?: string;
  candidates?: number;
}

/**
 * An ActionResult as a model reads it (DESIGN §3.1): the same keys, fewer of them. What the caller
 * already knows (its op, session, ids, timing, the target it named, an unchanged page,
 * `not_checked`) is left out; errors, changed pages, checks, data and notes never are.
 */
export interface CompactAnswer {
  ok: boolean;
  target?: CompactTarget;
  page?: ShownPage;
  verification?: Verification;
  data?: Record<string, unknown>;
  error?: ErrorInfo;
  evidence?: Evidence[];
  notes?: string[];
}

/** A result-shaped refusal from before runOp (no session, unknown tool): only its error. */
export interface RefusalLike {
  ok: false;
  op: string;
  error: ErrorInfo;
}

const isResult = (value: unknown): value is ActionResult =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ActionResult).ok === 'boolean' &&
  typeof (value as ActionResult).action_id === 'string' &&
  typeof (value as ActionResult).verification === 'object';

const samePage = (a: ShownPage | undefined, b: ShownPage) =>
  !!a && a.url === b.url && a.title === b.title && a.tab === b.tab;

/** Ref and name say which element a role, text or label matched; a selector also needs its role. */
function compactTarget(target: TargetSummary): CompactTarget | undefined {
  const out: CompactTarget = {};
  if (target.strategy !== 'ref') {
    const element: ElementSummary = target.element;
    if (element.ref) out.ref = element.ref;
    if (element.name) out.name = element.name;
    else if (element.text) out.text = element.text;
    const named = target.strategy === 'role' || target.strategy === 'label';
    if (!named && element.role) out.role = element.role;
  }
  if (target.candidates > 1) out.candidates = target.candidates;
  return Object.keys(out).length ? out : undefined;
}

/**
 * Renders one answer compactly. `shown` is the page this session's caller was last answered
 * with; the page is repeated only when it differs, on a navigation, and on every failure. Steps
 * a result carries (a batch's `data.results`) are rendered the same way, in order. Returns the
 * page the caller has now been shown, for the next answer.
 */
export function compactAnswer(
  result: ActionResult | RefusalLike,
  shown?: ShownPage,
): { answer: CompactAnswer; shown?: ShownPage } {
  if (!isResult(result)) return { answer: { ok: false, error: result.error }, shown };
  let seen = shown;
  let data = result.data;
  if (data && Array.isArray(data.results) && data.results.every(isResult)) {
    const steps = (data.results as ActionResult[]).map((step) => {
      const rendered = compactAnswer(step, seen);
      seen = rendered.shown;
      return rendered.answer;
    });
    data = { ...data, results: steps };
  }
  const answer: CompactAnswer = { ok: result.ok };
  const target = result.target && compactTarget(result.target);
  if (target) answer.target = target;
  const page = result.page;
  if (page && (!result.ok || result.notes?.includes('navigated') || !samePage(seen, page)))
    answer.page = page;
  if (result.verification.status !== 'not_checked') answer.verification = result.verification;
  if (data) answer.data = data;
  if (result.error) answer.error = result.error;
  if (result.evidence?.length) answer.evidence = result.evidence;
  if (result.notes?.length) answer.notes = result.notes;
  return { answer, shown: page ?? seen };
}
