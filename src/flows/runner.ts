import { z } from 'zod';
import { withoutScripts } from '../core/condition.js';
import { OpError, toOpError, type ErrorInfo } from '../core/errors.js';
import type { ActionResult, Evidence, Progress } from '../core/result.js';
import { describeTarget, type Target } from '../core/target.js';
import { DEFAULT_FLOW_TIMEOUT_S, type Flow, type FlowStep } from './document.js';
import { hintFor } from './hints.js';
import { asText, mapStrings, parametersRead, substituteText } from './substitute.js';
import { stepLabel } from './validate.js';

/** Which run and step an op belongs to; rides on the op request so a log or an audit can record it. */
export interface RunRef {
  id: string;
  flow: string;
  step: number;
  step_id?: string;
  /** The step is `on_error: continue`: its failure does not fail the run or the session verdict. */
  tolerated?: boolean;
}

/** A file as a report links to it: never a filesystem path, never image bytes. */
export interface FileLink {
  name: string;
  url: string;
  absolute_url?: string;
}

export function fileLink(e: Evidence): FileLink {
  return { name: e.name, url: e.url, ...(e.absolute_url ? { absolute_url: e.absolute_url } : {}) };
}

/** How the secrets audit names a flow step: the flow, and the step's id or number. */
export function auditStep(run: RunRef | undefined): { flow?: string; step?: string } {
  return run ? { flow: run.flow, step: run.step_id ?? String(run.step) } : {};
}

/** One line of a run report per step (DESIGN §8). */
export interface StepLine {
  n: number;
  id?: string;
  op: string;
  ok: boolean;
  summary: string;
  /** The page after the step, when it differs from the page before it. */
  url?: string;
  files?: FileLink[];
  error?: string;
  note?: string;
}

export interface FlowRunReport {
  flow: string;
  library: string;
  run_id: string;
  status: 'ok' | 'failed';
  steps_run: number;
  steps_total: number;
  steps: StepLine[];
  url?: string;
  title?: string;
  /** The last step's result. */
  result?: ActionResult;
  /** Results of steps marked `return: true`, by id (or step number). */
  returns?: Record<string, ActionResult>;
  /** Every step's result, with `verbose`. */
  results?: ActionResult[];
  params?: Record<string, unknown>;
  warnings?: string[];
}

export interface FlowRunOutcome {
  report: FlowRunReport;
  error?: OpError;
  evidence: Evidence[];
}

/** What the runner needs from the op layer: run one op in the caller's session. */
export interface StepRunner {
  /** `endsBy` (epoch ms) is when the run's budget ends: the op's own time is cut to it. */
  runStep(
    op: string,
    args: unknown,
    ref: RunRef,
    signal: AbortSignal,
    endsBy: number,
  ): Promise<ActionResult>;
  /** The step the run is on, for progress notifications. */
  progress(news: Progress): void;
  /** Aborted when the caller cancels: no further step starts. */
  signal?: AbortSignal;
}

/** Applies defaults and checks params against the flow's JSON Schema; returns the text values. */
export function bindParameters(
  flow: Flow,
  params: unknown,
): { values: Map<string, string>; bound: Record<string, unknown>; warnings: string[] } {
  const given = params ?? {};
  if (typeof given !== 'object' || Array.isArray(given))
    throw new OpError(
      'invalid_argument',
      'params is an object of parameter values, e.g. {"email": "ada@example.com"}.',
    );
  const properties = flow.parameters?.properties ?? {};
  const declared = Object.keys(properties);
  const unknown = Object.keys(given).filter((k) => !declared.includes(k));
  if (unknown.length > 0 && flow.parameters?.additionalProperties !== true)
    throw new OpError(
      'invalid_argument',
      `The flow "${flow.name}" has no parameter ${unknown.map((k) => `"${k}"`).join(', ')}. ${declared.length ? `It takes: ${declared.join(', ')}.` : 'It takes none.'}`,
    );
  let bound: Record<string, unknown> = {};
  if (flow.parameters) {
    const parsed = z
      .fromJSONSchema(flow.parameters as z.core.JSONSchema.JSONSchema)
      .safeParse(given);
    if (!parsed.success) {
      const problems = parsed.error.issues.slice(0, 3).map((i) => {
        const name = String(i.path[0] ?? '');
        const schema = properties[name] ?? {};
        const about = [schema.type, schema.description].filter(Boolean).join(' — ');
        return i.code === 'invalid_type' && i.input === undefined
          ? `needs the parameter "${name}"${about ? ` (${about})` : ''}; pass it in params`
          : `parameter "${name}": ${i.message}`;
      });
      throw new OpError('invalid_argument', `The flow "${flow.name}" ${problems.join('; ')}.`, {
        details: { parameters: flow.parameters },
      });
    }
    bound = parsed.data as Record<string, unknown>;
  }
  const values = new Map(Object.entries(bound).map(([k, v]) => [k, asText(v)]));
  const read = new Set(flow.steps.flatMap((s) => parametersRead(s.args)));
  const warnings = [...read]
    .filter((name) => !values.has(name))
    .map(
      (name) => `\${${name}} was left as written: no value was given for it and it has no default`,
    );
  return { values, bound, warnings };
}

/** Image bytes never ride in a report (DESIGN §8): the file link does. */
export function withoutImages(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutImages);
  if (typeof value !== 'object' || value === null) return value;
  const v = value as Record<string, unknown>;
  if (typeof v.base64 === 'string' && typeof v.content_type === 'string')
    return {
      content_type: v.content_type,
      omitted: 'image bytes are not sent in a run report; see the files',
    };
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutImages(x)]));
}

function targetText(args: Record<string, unknown>, result: ActionResult): string {
  const el = result.target?.element;
  if (el) return el.role && el.name ? `${el.role} "${el.name}"` : el.name ? `"${el.name}"` : el.tag;
  const target = args.target;
  if (typeof target === 'object' && target !== null) {
    try {
      return describeTarget(target as Target);
    } catch {
      return '';
    }
  }
  return typeof target === 'string' ? target : '';
}

/** A short, safe line saying what a step did: never a typed value, never a script. */
function summaryOf(step: FlowStep, args: Record<string, unknown>, result: ActionResult): string {
  const target = targetText(args, result);
  const parts = [step.op, target].filter(Boolean);
  if (step.op === 'goto' && typeof args.url === 'string') parts.push(args.url);
  if (step.op === 'fill') {
    const secret = args.secret as { name?: string; key?: string } | undefined;
    if (secret) parts.push(`with secret ${secret.name}/${secret.key}`);
    else if (args.value !== undefined) parts.push(`(${asText(args.value).length} chars)`);
  }
  if (step.op === 'press' && typeof args.key === 'string') parts.push(args.key);
  const checks = result.verification.checks;
  if (checks?.length)
    parts.push(`— ${checks.filter((c) => c.passed).length}/${checks.length} checks held`);
  return parts.join(' ');
}

/**
 * Flies a validated flow in the caller's session, one op at a time (DESIGN §8): stops at the first
 * failure unless the step is `on_error: continue`, at the caller's cancel, and at the flow's timeout.
 */
export async function runFlow(
  flow: Flow,
  options: {
    library: string;
    runId: string;
    params?: unknown;
    verbose?: boolean;
    warnings?: string[];
  },
  runner: StepRunner,
): Promise<FlowRunOutcome> {
  const { values, bound, warnings } = bindParameters(flow, options.params);
  const budgetMs = (flow.timeout ?? DEFAULT_FLOW_TIMEOUT_S) * 1000;
  const started = Date.now();
  const deadline = started + budgetMs;
  const bounds = { flow, budgetMs, started };
  const budget = AbortSignal.timeout(budgetMs);
  const signal = runner.signal ? AbortSignal.any([runner.signal, budget]) : budget;
  const report: FlowRunReport = {
    flow: flow.name,
    library: options.library,
    run_id: options.runId,
    status: 'ok',
    steps_run: 0,
    steps_total: flow.steps.length,
    steps: [],
  };
  if (Object.keys(bound).length) report.params = bound;
  const allWarnings = [...(options.warnings ?? []), ...warnings];
  if (allWarnings.length) report.warnings = allWarnings;
  const evidence: Evidence[] = [];
  const results: ActionResult[] = [];
  let previousUrl: string | undefined;
  let error: OpError | undefined;

  for (const [i, step] of flow.steps.entries()) {
    const n = i + 1;
    const label = stepLabel(n, step);
    if (runner.signal?.aborted) {
      // Nobody waits for this answer; it is what a log of the run records.
      error = new OpError('timeout', `The run was cancelled by its caller before ${label}.`, {
        details: { step: n, cancelled: true },
      });
      break;
    }
    if (Date.now() >= deadline) {
      // The step before used the time up (finished late, or failed and was tolerated).
      error = outOfTime(bounds, n - 1, flow.steps[i - 1], results[i - 1], label);
      break;
    }
    runner.progress({
      message: `step ${n}/${flow.steps.length}: ${step.id ? `${step.id} (${step.op})` : step.op}`,
      done: i,
      total: flow.steps.length,
    });
    const args = mapStrings(step.args ?? {}, (s) => substituteText(s, values)) as Record<
      string,
      unknown
    >;
    const ref: RunRef = {
      id: options.runId,
      flow: flow.name,
      step: n,
      ...(step.id ? { step_id: step.id } : {}),
      ...(step.on_error === 'continue' ? { tolerated: true } : {}),
    };
    const result = await runner
      .runStep(step.op, args, ref, signal, deadline)
      .catch(failedStep(step.op));
    report.steps_run = n;
    // A report carries no image bytes and no author script (DESIGN §3.5, §8).
    const clean = withoutScripts(withoutImages(result)) as ActionResult;
    results.push(clean);
    const line: StepLine = {
      n,
      op: step.op,
      ok: result.ok,
      summary: summaryOf(step, args, result),
    };
    if (step.id) line.id = step.id;
    const url = result.page?.url;
    if (url && url !== previousUrl) line.url = url;
    if (url) previousUrl = url;
    if (result.evidence?.length) {
      line.files = result.evidence.map(fileLink);
      evidence.push(...result.evidence);
    }
    if (step.return) (report.returns ??= {})[step.id ?? String(n)] = clean;
    if (!result.ok) {
      line.error = result.error?.message ?? 'failed';
      if (step.note) line.note = step.note;
    }
    report.steps.push(line);
    if (runner.signal?.aborted) {
      error = new OpError('timeout', `The run was cancelled by its caller during ${label}.`, {
        details: { step: n, cancelled: true },
      });
      break;
    }
    if (result.ok || step.on_error === 'continue') continue;
    // A step whose time was the budget's and that might have passed with more was cut by it.
    const cut = result.timing.started_at_ms + result.timing.timeout_ms >= deadline;
    if (Date.now() >= deadline || (cut && result.error?.recoverable)) {
      error = outOfTime(bounds, n, step, clean);
      break;
    }
    let shot = result.evidence?.find((e) => e.kind === 'screenshot');
    if (!shot && !signal.aborted) {
      // Every failure carries a picture of the page (DESIGN §8); acting ops took one already.
      const taken = await runner
        .runStep('screenshot', { format: 'jpeg', quality: 60 }, ref, signal, deadline)
        .catch(failedStep('screenshot'));
      shot = taken.evidence?.find((e) => e.kind === 'screenshot');
      if (shot) {
        (line.files ??= []).push(fileLink(shot));
        evidence.push(shot);
      }
    }
    error = stepFailure(flow, n, step, result, shot);
    break;
  }
  const last = results[results.length - 1];
  if (last) {
    report.result = last;
    if (last.page) {
      report.url = last.page.url;
      report.title = last.page.title;
    }
  }
  if (options.verbose) report.results = results;
  if (error) report.status = 'failed';
  return { report, error, evidence };
}

/** A step whose op threw instead of answering still gets a line and ends the run with a report. */
function failedStep(op: string) {
  return (e: unknown): ActionResult => {
    const now = Date.now();
    return {
      ok: false,
      op,
      action_id: '',
      session_id: '',
      verification: { status: 'not_checked' },
      error: toOpError(e).toInfo(),
      timing: { started_at_ms: now, duration_ms: 0, timeout_ms: 0 },
    };
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The run's budget ran out while step `n` ran: it names that step, what it was doing (its own
 * error, when it was cut), the budget and the time spent, and, when it finished late, the step
 * that could not start.
 */
function outOfTime(
  run: { flow: Flow; budgetMs: number; started: number },
  n: number,
  step: FlowStep,
  result: ActionResult | undefined,
  notStarted?: string,
): OpError {
  const { flow, budgetMs } = run;
  const elapsedMs = Date.now() - run.started;
  const cut = result && !result.ok ? result.error : undefined;
  const details: Record<string, unknown> = { step: n };
  if (step.id) details.id = step.id;
  details.op = step.op;
  details.timeout_s = budgetMs / 1000;
  details.elapsed_ms = elapsedMs;
  if (result?.page?.url) details.url = result.page.url;
  if (cut?.details) details.step_error = withoutScripts(cut.details);
  const when = cut
    ? `, ${seconds(elapsedMs)} into the run, and the step was cut there`
    : `, which ended ${seconds(elapsedMs)} into the run${notStarted ? `, so ${notStarted} was not started` : ''}`;
  return new OpError(
    'timeout',
    `The flow "${flow.name}" ran out of its ${budgetMs / 1000} s timeout during ${stepLabel(n, step)}${when}. If the flow is meant to take that long, raise timeout: (seconds) at the top of the flow; otherwise give that step less to wait for.${cut ? ` The step said: ${cut.message}` : ''}`,
    { details },
  );
}

function stepFailure(
  flow: Flow,
  n: number,
  step: FlowStep,
  result: ActionResult,
  screenshot: Evidence | undefined,
): OpError {
  const info: ErrorInfo = result.error ?? {
    kind: 'backend',
    message: 'The step failed without saying why.',
    recoverable: false,
  };
  const details: Record<string, unknown> = { step: n };
  if (step.id) details.id = step.id;
  details.op = step.op;
  if (step.note) details.note = step.note;
  if (result.page?.url) details.url = result.page.url;
  if (screenshot) details.screenshot = fileLink(screenshot);
  if (info.details) details.step_error = withoutScripts(info.details);
  const url = result.page?.url;
  const where = url && !info.message.includes(url) ? ` on ${url}` : '';
  return new OpError(
    info.kind,
    `The flow "${flow.name}" failed at ${stepLabel(n, step)}${where}: ${info.message}${step.note ? ` (note: ${step.note})` : ''}`,
    { details, hint: hintFor(flow.name, n, step, info) },
  );
}
