import { parseArgs } from '../core/args.js';
import { OpError } from '../core/errors.js';
import type { ActionResult, Progress } from '../core/result.js';
import type { FileStore } from '../files/file-store.js';
import type { Secrets } from '../secrets/secrets.js';
import type { FlowLibrary } from '../flows/library.js';
import type { RunRef } from '../flows/runner.js';
import type { SessionLog } from '../logs/session-log.js';
import { bounded, recordAnswer, type OpProgress } from './deadline.js';
import type { Session } from '../sessions/session.js';
import type { SessionManager } from '../sessions/session-manager.js';
import type { OpDefinition, Surface } from './define.js';
import {
  act,
  collectSideEffects,
  fail,
  finish,
  judge,
  observeBefore,
  openRun,
  prepare,
  readChanges,
  settleAction,
  settleAfterWait,
  verifyExpect,
} from './pipeline/phases.js';

export interface OpRequest {
  op: string;
  args: unknown;
  session: Session;
  surface: Surface;
  /** Approval policy for this call's surface (DESIGN §3.6). */
  approval?: boolean;
  signal?: AbortSignal;
  /** Epoch ms when the flow's budget ends (DESIGN §8): the op's time is cut to end by then. */
  endsBy?: number;
  /** Told when a batch or flow starts each step, so a surface can report progress (MCP). */
  onProgress?: (progress: Progress) => void;
  /** The flow run and step this op is part of (DESIGN §8), for the session log and the report. */
  run?: RunRef;
  /** Where the op's deadline reads what its work has done (ops/deadline.ts). */
  progress?: OpProgress;
}

export interface OpRuntime {
  sessions: SessionManager;
  ops: ReadonlyMap<string, OpDefinition>;
  secrets: Secrets;
  files: FileStore;
  flows: FlowLibrary;
  /** The per-session log (DESIGN §12); absent when SESSION_LOG is off. */
  logs?: SessionLog;
}

/**
 * Runs one op on its session, one at a time, within its timeout plus DEADLINE_MARGIN_MS; every
 * surface calls this.
 */
export async function runOp(rt: OpRuntime, request: OpRequest): Promise<ActionResult> {
  const op = rt.ops.get(request.op);
  const { session } = request;
  // status never waits behind other ops (DESIGN §6).
  if (op && !op.browser) return execute(rt, request);
  // Arguments that cannot parse are refused at once, not after the op the session is busy with.
  const refused = op && session.busy ? argumentError(op, request.args) : undefined;
  if (refused) return unstarted(rt, request, refused);
  // A close does not wait behind an op that holds the session: it ends the browser under it.
  if (op?.endsBrowser && session.busy) await rt.sessions.closeUnder(session, request.op);
  let answered: (result: ActionResult) => void = () => undefined;
  const answer = new Promise<ActionResult>((resolve) => (answered = resolve));
  // The session stays held until the op's work ends, even when its answer came at the deadline.
  const held = session.exclusive(async () => {
    if (request.signal?.aborted) return answered(await unstarted(rt, request, callerGone(request)));
    const run = bounded(rt, request, (progress) => execute(rt, { ...request, progress }));
    void run.answer.then(answered);
    await run.done;
    // What stopped this op (a close under it, an interrupt) is not the next op's to report.
    rt.sessions.takeInterruption(session);
  });
  held.catch(() => undefined);
  return Promise.race([answer, held.then(() => answer)]);
}

/** What parseArgs refuses in these arguments, if anything. */
function argumentError(op: OpDefinition, args: unknown): OpError | undefined {
  try {
    parseArgs(op.name, op.args, args);
    return undefined;
  } catch (e) {
    return e instanceof OpError ? e : undefined;
  }
}

/**
 * A caller that went away while its op waited in the session's queue (HTTP client disconnected,
 * MCP request cancelled) gets nothing run (DESIGN §3.2): it may resend, and a resent click must
 * not be a second click.
 */
function callerGone(request: OpRequest): OpError {
  return new OpError(
    'timeout',
    `Not started: the caller went away (the HTTP client disconnected or the MCP request was cancelled) while ${request.op} waited behind this session's earlier ops, so nothing reached the page. Send it again if it is still wanted.`,
  );
}

/** An op answered without touching the page; the session log keeps the answer. */
async function unstarted(rt: OpRuntime, request: OpRequest, error: OpError): Promise<ActionResult> {
  const { session } = request;
  const now = Date.now();
  const result: ActionResult = {
    ok: false,
    op: request.op,
    action_id: session.nextActionId(),
    session_id: session.name,
    verification: { status: 'not_checked' },
    error: error.toInfo(),
    timing: { started_at_ms: now, duration_ms: 0, timeout_ms: session.settings.timeoutMs },
  };
  await rt.sessions.persist(session);
  return recordAnswer(rt.logs, request, result);
}

/**
 * One op, phase by phase; each phase is a function of its own in pipeline/phases.ts, and the
 * session log records how long each took (`phases`).
 */
async function execute(rt: OpRuntime, request: OpRequest): Promise<ActionResult> {
  const run = openRun(
    rt,
    request,
    (nested) => bounded(rt, nested, (progress) => execute(rt, { ...nested, progress })).answer,
  );
  const { op } = run;
  // The phases that ran, in order: one that throws ends the list, so the log shows where.
  const time = (name: string, phase: () => Promise<void>) => run.phases.time(name, phase);
  // The previous op's frame is taken before this op can change the page: one that opens, closes
  // or switches tabs waits at its start, an acting op just before its action (its lookups change
  // nothing, and the frame is taken meanwhile), one that only reads does not wait.
  const previousFrame = () =>
    time('previous_frame', async () => rt.logs?.captured(run.session.name));
  try {
    if (op?.managesBrowser) await previousFrame();
    await time('prepare', () => prepare(run));
    await time('observe', () => observeBefore(run));
    if (op?.acts && !op.managesBrowser) await previousFrame();
    await time('act', () => act(run));
    await time('settle', () => settleAction(run));
    await time('side_effects', () => collectSideEffects(run));
    await time('verify', () => verifyExpect(run));
    await time('settle_after_wait', () => settleAfterWait(run));
    await time('changes', () => readChanges(run));
    judge(run);
  } catch (e) {
    await fail(run, e);
  }
  try {
    return await finish(run);
  } finally {
    run.events.take();
  }
}
