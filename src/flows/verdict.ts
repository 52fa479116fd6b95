import { withoutScripts, type Condition } from '../core/condition.js';
import type { ActionResult, Evidence } from '../core/result.js';
import type { RunRef } from './runner.js';

/** Each list keeps at most this many entries (the oldest go first); counts stay exact. */
const KEEP = 500;

export interface CheckRecord {
  action_id: string;
  op: string;
  passed: boolean;
  condition: Condition;
  observed?: Record<string, unknown>;
  url?: string;
  run?: RunRef;
}

export interface FailureRecord {
  action_id: string;
  op: string;
  kind: string;
  message: string;
  url?: string;
  /** A step marked on_error: continue; it does not fail the verdict. */
  tolerated?: true;
  run?: RunRef;
}

export interface RunRecord {
  run_id: string;
  flow: string;
  status: 'ok' | 'failed';
  steps_run: number;
  steps_total: number;
  error?: string;
}

function keep<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > KEEP) list.shift();
}

/** What a session has verified and failed since it started or was reset: the `report` op's source. */
export class SessionVerdict {
  since = Date.now();
  actions = 0;
  checksPassed = 0;
  checksFailed = 0;
  failuresCounted = 0;
  readonly checks: CheckRecord[] = [];
  readonly failures: FailureRecord[] = [];
  readonly evidence: Evidence[] = [];
  readonly runs: RunRecord[] = [];

  /** Records one op's result; one that runs other ops (batch, flow_run) is recorded by its steps. */
  record(result: ActionResult, run: RunRef | undefined, op: { runsOtherOps: boolean }): void {
    if (op.runsOtherOps) return;
    this.actions++;
    const url = result.page?.url;
    for (const c of result.verification.checks ?? []) {
      if (c.passed) this.checksPassed++;
      else this.checksFailed++;
      keep(this.checks, {
        action_id: result.action_id,
        op: result.op,
        passed: c.passed,
        // The `report` op and test reports built on it never quote a js script (DESIGN §3.5).
        condition: withoutScripts(c.condition),
        ...(c.observed ? { observed: c.observed } : {}),
        ...(url ? { url } : {}),
        ...(run ? { run } : {}),
      });
    }
    if (!result.ok && result.error) {
      if (!run?.tolerated) this.failuresCounted++;
      keep(this.failures, {
        action_id: result.action_id,
        op: result.op,
        kind: result.error.kind,
        message: result.error.message,
        ...(url ? { url } : {}),
        ...(run?.tolerated ? { tolerated: true as const } : {}),
        ...(run ? { run } : {}),
      });
    }
    for (const e of result.evidence ?? []) keep(this.evidence, e);
  }

  recordRun(run: RunRecord): void {
    keep(this.runs, run);
  }

  /** Passed when no check failed and no action failed (tolerated steps aside). */
  get passed(): boolean {
    return this.checksFailed === 0 && this.failuresCounted === 0;
  }
}

const verdicts = new WeakMap<object, SessionVerdict>();

/** The verdict of a session, kept in memory beside it. */
export function verdictOf(session: object): SessionVerdict {
  let verdict = verdicts.get(session);
  if (!verdict) {
    verdict = new SessionVerdict();
    verdicts.set(session, verdict);
  }
  return verdict;
}

export function resetVerdict(session: object): void {
  verdicts.set(session, new SessionVerdict());
}
