import { OpError } from '../core/errors.js';
import { scrub } from '../core/redact.js';
import { compactResult, timingSince, type ActionResult, type Check } from '../core/result.js';
import { within } from '../core/within.js';
import { machineLoad, saturation } from '../core/machine-load.js';
import type { Condition } from '../core/condition.js';
import type { Session } from '../sessions/session.js';
import type { ResultBuilder } from './pipeline/result-builder.js';
import type { Interruption, SessionManager } from '../sessions/session-manager.js';
import type { OpDefinition } from './define.js';
import type { SessionLog } from '../logs/session-log.js';
import type { RunRef } from '../flows/runner.js';
import { loadTimeoutMs } from '../sessions/settings.js';

/**
 * How long past its timeout an op may answer (DESIGN §3: every op answers within its timeout
 * plus a small fixed margin): the time to stop a stuck page and report what happened.
 */
export const DEADLINE_MARGIN_MS = 1000;

/**
 * What asking a stuck page and stopping it may take on a loaded link: a probe and the render
 * question (~0.3 s each, longer under load), then the stop. Replacing a tab is waited for only
 * within the op's margin; one that takes longer (0.7-1.1 s on a busy Grid) finishes in the
 * background rather than ending the whole browser (cookies, logins).
 */
const INTERRUPT_MS = 2000;

/**
 * How long past its deadline an acting op on a page that answers may go on: its settle and
 * changes read after the action have windows of their own. A read has none: it gets the margin.
 */
const ANSWERING_GRACE_MS = 3000;

/**
 * The part of that grace kept to ask the page again at its end: a probe and the render question
 * (PROBE_WAIT_MS each) with the ping of a loaded link, or a stop.
 */
const REASK_MS = 1000;

/** Main-frame navigations during one op past which its page is taken to be loading in a loop. */
const LOOPING_NAVIGATIONS = 4;

/**
 * What an op gets to finish after its page's script was stopped, however long that took. Its
 * pending page call fails as the stop takes hold; under load that can take a few hundred ms, and
 * ending the browser for a page that was stopped would throw away its logins. A tab replaced
 * instead gets nothing: its calls end with the old tab, and the answer is already late by then
 * (a layout past LAYOUT_LIMIT answered 4.6 s after a 1 s timeout under CI load).
 */
const AFTER_INTERRUPT_MS = 1000;

/**
 * How long the session stays held for an op answered at its deadline while it still runs, so the
 * next op does not act on the same page under it; past this the session is let go of anyway.
 */
const HOLD_MS = 10_000;

/**
 * The same for an op whose page was not stuck but kept loading: what is left of its work only
 * reads the page, and the next op (often a goto away) must not wait behind it.
 */
const LATE_HOLD_MS = 1000;

const LATE = Symbol('late');
const CUT = Symbol('cut');

type Guard = Session['deadlines'][number];

/**
 * The op's time: its `timeout`, else the session's; an op that loads a page (it declares its own
 * timeout, or takes a URL) gets the navigation timeout when that is longer.
 */
export function opTimeoutMs(op: OpDefinition | undefined, args: unknown, session: Session): number {
  const asked =
    typeof args === 'object' && args !== null ? (args as { timeout?: unknown }).timeout : undefined;
  if (typeof asked === 'number' && Number.isFinite(asked) && asked > 0) return asked;
  const { timeoutMs } = session.settings;
  const shape = op?.args.shape ?? {};
  const loads = ('timeout' in shape && !op?.common.includes('timeout')) || 'url' in shape;
  return loads ? Math.max(timeoutMs, loadTimeoutMs(session.settings)) : timeoutMs;
}

/**
 * The op's time cut to what is left of the budget of the flow it is a step of: the step that
 * is running when the run's time ends is the one that answers `timeout`, not the next.
 */
export function withinBudget(
  timeoutMs: number,
  endsBy: number | undefined,
  now = Date.now(),
): number {
  return endsBy === undefined ? timeoutMs : Math.max(1, Math.min(timeoutMs, endsBy - now));
}

export interface BoundedRun {
  /** The op's answer, within its timeout plus DEADLINE_MARGIN_MS. */
  answer: Promise<ActionResult>;
  /** Settles when the op's own work has ended, or HOLD_MS after a late answer. */
  done: Promise<unknown>;
}

export interface DeadlineContext {
  sessions: SessionManager;
  ops: ReadonlyMap<string, OpDefinition>;
  logs?: SessionLog;
}

/**
 * What an op's work has done so far, for an answer given before the work ends: once its action
 * returned, its input reached the page and the answer must not read as if it might not have.
 */
export interface OpProgress {
  /**
   * Its pointer or key input went to the browser, which queues it for the page: a late answer
   * must not invite a repeat that would act twice.
   */
  sent?: boolean;
  /** Its action returned: the browser confirmed the input reached the page. */
  delivered: boolean;
  /**
   * The session no longer waits for this op's work (it was answered and its hold ran out): what is
   * left of it must not reach the browser, nor open one the session would not know of.
   */
  released: boolean;
  result?: ResultBuilder;
  expect?: Condition[];
}

/**
 * Runs one op under its deadline. When its time passes with the page stuck in script, the page
 * is interrupted (DESIGN §3.2) so the op's calls fail and it answers `timeout`, saying what was
 * lost; an op that still has not answered by the margin is answered here.
 */
export function bounded(
  rt: DeadlineContext,
  request: { op: string; args: unknown; session: Session; run?: RunRef; endsBy?: number },
  run: (progress: OpProgress) => Promise<ActionResult>,
): BoundedRun {
  const { session } = request;
  const op = rt.ops.get(request.op);
  const started = Date.now();
  const timeoutMs = withinBudget(opTimeoutMs(op, request.args, session), request.endsBy, started);
  const openingBefore = rt.sessions.openingSpent(session);
  const before = session.activeTab()?.activity();
  const navigationsBefore = before?.navigationsSent ?? 0;
  // Only the op's own requests: one the driver never heard end (BiDi) must not mark every op after.
  const requestsBefore = before?.requestsStarted ?? 0;
  const guards = session.deadlines;
  // Steps of a batch or flow have deadlines of their own: the op running them is not cut.
  for (const g of guards) g.composite = true;
  let cut = () => {};
  const closedUnder = new Promise<typeof CUT>((resolve) => (cut = () => resolve(CUT)));
  const guard: Guard = { composite: false, cut: () => cut() };
  guards.push(guard);
  const progress: OpProgress = { delivered: false, released: false };
  const work = run(progress).finally(() => guards.splice(guards.indexOf(guard), 1));
  // What the op waits on: its work, unless its browser was closed under it first.
  const watched = Promise.race([work, closedUnder]);
  const due = () => started + timeoutMs + rt.sessions.openingMs(session, started, openingBefore);
  const clock = { started, openingBefore, timeoutMs, progress };
  let interrupted = false;
  const answer = (async (): Promise<ActionResult> => {
    // Opening a browser does not count against the op's time: the deadline moves with it.
    for (let left = due() - Date.now(); left > 0 || guard.composite; left = due() - Date.now()) {
      const result = await within(watched, guard.composite ? HOLD_MS : left, LATE);
      if (result === CUT) return lateAnswer(rt, request, clock);
      if (result !== LATE) return reported(rt, session, result);
    }
    const ask = (waitMs: number) =>
      rt.sessions
        .interrupt(session, request.op, timeoutMs, waitMs, due() + DEADLINE_MARGIN_MS - 50)
        .catch(() => undefined);
    let found = await ask(INTERRUPT_MS);
    const left = due() + DEADLINE_MARGIN_MS - Date.now() - 50;
    const activity = session.activeTab()?.activity(requestsBefore);
    // A page that keeps loading (a server not answering or not finishing, a reload loop, a layout
    // of a huge document) never lets a read finish.
    const loading =
      isHeld(found) ||
      !!activity?.awaitingServer ||
      (activity?.requestsInFlight ?? 0) > 0 ||
      (activity?.navigationsSent ?? 0) - navigationsBefore >= LOOPING_NAVIGATIONS;
    if (!found && !loading && op?.acts) {
      // A page that answers lets an acting op finish the bounded reads it does after its action.
      const result = await within(watched, Math.max(left, ANSWERING_GRACE_MS - REASK_MS), LATE);
      if (result === CUT) return lateAnswer(rt, request, clock);
      if (result !== LATE) return reported(rt, session, result);
      // The action may have been delivered only in the grace and set the page laying out or
      // spinning: what the page did at the deadline no longer says why the op has not answered.
      found = await ask(REASK_MS);
    }
    const held = isHeld(found) ? found : undefined;
    const interruption = isHeld(found) ? undefined : found;
    const floor = interruption?.stopped ? AFTER_INTERRUPT_MS : 0;
    const result = await within(
      watched,
      Math.max(due() + DEADLINE_MARGIN_MS - Date.now() - 50, floor),
      LATE,
    );
    if (result === CUT) return lateAnswer(rt, request, clock);
    if (result !== LATE) return reported(rt, session, result);
    // Stopped and still stuck: the browser is let go of, so the op's calls fail now. A replaced
    // tab's calls end with the old tab; the new one, and the browser's cookies, stay.
    if (interruption?.stopped) rt.sessions.abandonBrowser(session);
    interrupted = !!interruption;
    return lateAnswer(rt, request, clock, interruption, held);
  })();
  const done = answer
    .then(() => within(work, interrupted ? HOLD_MS : LATE_HOLD_MS, undefined))
    .catch(() => undefined)
    .finally(() => (progress.released = true));
  return { answer, done };
}

/** Laying out, or unanswered on a starved machine: nothing was stopped, and no grace helps. */
function isHeld(
  found: Interruption | 'rendering' | 'starved' | undefined,
): found is 'rendering' | 'starved' {
  return found === 'rendering' || found === 'starved';
}

/** The op's own answer, with what freeing the session did to it when something did. */
function reported(rt: DeadlineContext, session: Session, result: ActionResult): ActionResult {
  // The page answered: a layout or a silence seen at an earlier deadline has ended.
  session.layingOut = undefined;
  session.unanswered = undefined;
  const interruption = rt.sessions.takeInterruption(session);
  if (!interruption) return result;
  const notes = [...(result.notes ?? [])];
  if (!notes.includes(interruption.note)) notes.push(interruption.note);
  const error =
    result.error?.message === interruption.error.message
      ? result.error
      : interruption.error.toInfo();
  return scrub({ ...result, ok: false, error, notes }, session.bound);
}

/** The answer for an op that has not answered by its deadline's margin; it may still finish. */
function lateAnswer(
  rt: DeadlineContext,
  request: { op: string; args: unknown; session: Session; run?: RunRef },
  clock: { started: number; openingBefore: number; timeoutMs: number; progress: OpProgress },
  interruption?: Interruption,
  held?: 'rendering' | 'starved',
): ActionResult {
  const { session } = request;
  const { started, openingBefore, timeoutMs, progress } = clock;
  const taken = rt.sessions.takeInterruption(session) ?? interruption;
  const tab = session.activeTab();
  const waiting = tab?.activity().awaitingServer;
  const why = waiting
    ? `: the page is still loading ${waiting} (its server has not answered yet)`
    : held === 'rendering' && tab
      ? `: the page ${tab.url()} is still rendering (laying out a large document, not running a script, so nothing was stopped)`
      : held === 'starved' && tab
        ? `: neither the page ${tab.url()} nor the browser answered in time, and ${saturation(machineLoad()) ?? 'the machine is saturated'}, so the page may only be starved of CPU: nothing was stopped or closed. If it still does not answer at the next op's deadline, its tab is reopened on the last URL`
        : '';
  const page =
    tab && !tab.isClosed() ? { url: tab.url(), title: tab.knownTitle(), tab: tab.id } : undefined;
  const timing = timingSince(
    started,
    timeoutMs,
    rt.sessions.openingMs(session, started, openingBefore),
  );
  const head = {
    op: request.op,
    action_id: session.nextActionId(),
    session_id: session.name,
    page,
    timing,
  };
  // Input sent to the page is said to have been, unless the page was stopped or closed under it.
  if (!taken && (progress.delivered || progress.sent) && progress.result) {
    const answer = deliveredAnswer(head, progress, timeoutMs, why, waiting);
    return recordAnswer(rt.logs, request, compactResult(answer));
  }
  // Stopped here and still stuck, the browser was ended here; closed under the op, it says so.
  const message = interruption
    ? `${interruption.error.message} It still did not answer after that, so its browser was ended: the next op opens a new one on the last URL.`
    : taken
      ? taken.error.message
      : `${request.op} did not finish within its timeout of ${timeoutMs} ms${why}. It may still complete in the browser: read the page (snapshot) before repeating it, or give it a longer timeout.`;
  const notes = taken ? [taken.note] : [];
  const result: ActionResult = {
    ok: false,
    ...head,
    verification: { status: 'not_checked' },
    error: new OpError('timeout', message).toInfo(),
    ...(notes.length ? { notes } : {}),
  };
  if (!result.page) delete result.page;
  return recordAnswer(rt.logs, request, result);
}

/**
 * The late answer of an op whose input reached the page: it happened, so the answer says so and
 * keeps its target. Only what came after (settling, `expect`, the changes) is said to be unknown;
 * an `expect` not judged in time is not a pass, so it fails as one that did not hold.
 */
function deliveredAnswer(
  head: Pick<ActionResult, 'op' | 'action_id' | 'session_id' | 'page' | 'timing'>,
  progress: OpProgress,
  timeoutMs: number,
  why: string,
  waiting: string | undefined,
): ActionResult {
  const result = progress.result!;
  const unjudged = !result.checks && progress.expect?.length;
  const checks: Check[] | undefined = unjudged
    ? progress.expect!.map((condition) => ({
        condition,
        passed: false,
        observed: {
          error: waiting
            ? `not judged within ${timeoutMs} ms: the page is still loading ${waiting}`
            : `not judged within ${timeoutMs} ms${why}`,
        },
      }))
    : result.checks;
  // A copy: the work goes on after this answer and may still add to its own.
  const built = result.build(head);
  const notes = [...(built.notes ?? [])];
  notes.push(
    !progress.delivered
      ? `unverified: ${head.op}'s input was sent, but the browser had not confirmed it reached the page within its ${timeoutMs} ms${why}. It is queued for the page: read the page before repeating it, or the action may happen twice`
      : waiting
        ? `still_loading: ${head.op} was delivered; the page was still loading ${waiting} when its ${timeoutMs} ms ran out`
        : `unverified: ${head.op} was delivered; what followed was not read within its ${timeoutMs} ms${why}`,
  );
  const failed = checks?.filter((c) => !c.passed) ?? [];
  const answer: ActionResult = {
    ...built,
    ok: failed.length === 0 && built.ok,
    verification: checks
      ? { status: failed.length ? 'failed' : 'passed', checks }
      : { status: 'not_checked' },
    evidence: [...(built.evidence ?? [])],
    notes,
  };
  if (failed.length && !answer.error)
    answer.error = new OpError(
      'verification_failed',
      `${head.op} was done, but the expected outcome was not seen within its ${timeoutMs} ms${why}. Do not repeat the action blindly: read the page first.`,
    ).toInfo();
  return answer;
}

/** An answer the op's phases did not build, scrubbed of the session's secrets and logged. */
export function recordAnswer(
  logs: SessionLog | undefined,
  request: { args: unknown; session: Session; run?: RunRef },
  result: ActionResult,
): ActionResult {
  const { bound } = request.session;
  const final = scrub(result, bound);
  logs?.record({ result: final, args: scrub(request.args, bound), run: request.run, acts: false });
  return final;
}
