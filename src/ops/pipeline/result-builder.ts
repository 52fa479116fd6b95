import type { OpError } from '../../core/errors.js';
import type { ActionResult, Check, Evidence } from '../../core/result.js';
import type { OpOutcome } from '../define.js';
import type { Changes } from '../track.js';

/** What one op's answer is made of, filled in phase by phase; `build` turns it into the result. */
export class ResultBuilder {
  readonly notes: string[] = [];
  readonly evidence: Evidence[] = [];
  outcome: OpOutcome = {};
  checks?: Check[];
  error?: OpError;

  note(...notes: string[]): void {
    this.notes.push(...notes);
  }

  /** Notes a later look repeats (a second settle) are said once. */
  noteOnce(...notes: string[]): void {
    for (const note of notes) if (!this.notes.includes(note)) this.notes.push(note);
  }

  /** The handler's outcome; its evidence comes first in the answer. */
  ran(outcome: OpOutcome): void {
    this.outcome = outcome;
    this.evidence.push(...(outcome.evidence ?? []));
  }

  changes(changes: Changes): void {
    this.outcome = { ...this.outcome, data: { ...this.outcome.data, changes } };
  }

  /** The outcome's own checks and error (assert, a batch step) over the runner's. */
  adoptOutcome(): void {
    if (this.outcome.checks) this.checks = this.outcome.checks;
    if (this.outcome.error) this.error = this.outcome.error;
  }

  /** A failed check is reported once, under verification, not again in the error. */
  failed(error: OpError): void {
    this.error = error;
    if (!this.checks && Array.isArray(error.details?.checks)) {
      this.checks = error.details.checks as Check[];
      delete error.details.checks;
    }
  }

  build(
    head: Pick<ActionResult, 'op' | 'action_id' | 'session_id' | 'page' | 'timing'>,
  ): ActionResult {
    const checks = this.checks;
    return {
      ok: !this.error && this.outcome.ok !== false,
      op: head.op,
      action_id: head.action_id,
      session_id: head.session_id,
      target: this.outcome.target,
      page: head.page,
      verification: checks
        ? { status: checks.every((c) => c.passed) ? 'passed' : 'failed', checks }
        : { status: 'not_checked' },
      data: this.outcome.data,
      error: this.error?.toInfo(),
      evidence: this.evidence,
      notes: this.notes,
      timing: head.timing,
    };
  }
}

/** How long each phase of one op took, in ms to 0.1, keyed in the order the phases ran. */
export class PhaseTimes {
  private readonly ms: Record<string, number> = {};

  async time<T>(name: string, phase: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await phase();
    } finally {
      this.add(name, performance.now() - started);
    }
  }

  add(name: string, ms: number): void {
    this.ms[name] = Math.round(((this.ms[name] ?? 0) + ms) * 10) / 10;
  }

  get record(): Record<string, number> {
    return { ...this.ms };
  }
}
