import { z } from 'zod';
import { scrub } from '../core/redact.js';
import type { ActionResult, TargetSummary } from '../core/result.js';
import type { Screen } from './frames.js';

/** Where an element sat when it was acted on, in viewport CSS pixels. */
export interface ViewportBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The flow run and step an op ran as (DESIGN §8: a run id in the session log). */
export const logRunSchema = z.object({
  id: z.string(),
  flow: z.string(),
  step: z.number().int().positive(),
  step_id: z.string().optional(),
  /** The step is `on_error: continue`: its failure does not fail the run. */
  tolerated: z.boolean().optional(),
});
export type LogRun = z.infer<typeof logRunSchema>;

/** One line of `events.jsonl`: one op, as it ran. */
export interface LogLine {
  /** When the op started (ISO 8601). */
  at: string;
  session: string;
  action_id: string;
  run?: LogRun;
  op: string;
  ok: boolean;
  duration_ms: number;
  tab?: string;
  url?: string;
  title?: string;
  /** The request's arguments, long strings truncated, typed passwords withheld. */
  args: unknown;
  target?: TargetSummary;
  verification: 'passed' | 'failed' | 'not_checked';
  error?: { kind: string; message: string };
  notes?: string[];
  /** The op's output, truncated. */
  data?: unknown;
  /** File name under `frames/`: the screen after the op (or at the failure). */
  frame?: string;
  /** The screen was identical to the previous frame, so `frame` names that one. */
  frame_repeated?: true;
  /** Why no frame was kept although one was due (the per-session cap, a capture too slow). */
  frame_skipped?: string;
  /** The acted-on element on the frame, with the viewport it is measured in. */
  box?: ViewportBox;
  viewport?: { width: number; height: number };
  /** How long each phase of the runner took, in ms, in the order they ran (the bench reads it). */
  phases?: Record<string, number>;
  /** Ms of the element lookup's page calls (`locate+probe`, `locate`, `probe`…), for the bench. */
  spans?: Record<string, number>;
  /** Ms the frame's capture took, after the answer left. */
  frame_ms?: number;
}

/** What the writer gets for one op. */
export interface OpRecord {
  /** The result exactly as it left run-op (already scrubbed). */
  result: ActionResult;
  /** The arguments as the caller sent them. */
  args: unknown;
  /** JPEG of the viewport after the op, when one was taken. */
  screen?: Screen;
  /** The element the op located, in viewport CSS pixels. */
  box?: ViewportBox;
  /** The flow run and step the op ran as (DESIGN §8: a run id in the session log). */
  run?: LogRun;
  /** Per-phase time of the runner, in ms: the log's only, never the answer's. */
  phases?: Record<string, number>;
  /** Ms of the element lookup's page calls, by kind. */
  spans?: Record<string, number>;
  /** Ms the frame's capture took. */
  frameMs?: number;
  /** Why the frame due was left out. */
  frameSkipped?: string;
}

export const WITHHELD = '[withheld]';
const LIMITS = { string: 300, message: 1000, title: 200, url: 1000, items: 20, depth: 6 };

/** Cuts a string to `max` characters and says how much was left out. */
export function truncate(text: string, max: number = LIMITS.string): string {
  return text.length <= max ? text : `${text.slice(0, max)}…[+${text.length - max} chars]`;
}

/** Bounds any JSON value: long strings cut, long arrays cut, deep nesting elided. */
export function bound(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return truncate(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= LIMITS.depth) return '…[nested]';
  if (Array.isArray(value)) {
    const kept = value.slice(0, LIMITS.items).map((v) => bound(v, depth + 1));
    if (value.length > LIMITS.items) kept.push(`…[+${value.length - LIMITS.items} items]`);
    return kept;
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, bound(v, depth + 1)]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The arguments as they may be written. A fill's typed value is kept only when the control read
 * it back (never for a password field, whose result says `value: null`, nor for a secret).
 * A batch keeps its step ops only: each step has its own line, with its own masking.
 */
export function loggableArgs(op: string, args: unknown, result: ActionResult): unknown {
  if (!isRecord(args)) return bound(args);
  if (op === 'fill') {
    const data = result.data ?? {};
    const readBack = result.ok && ('checked' in data || (data.value ?? null) !== null);
    if (args.secret !== undefined || !readBack) return bound({ ...args, value: WITHHELD });
  }
  if (op === 'batch' && Array.isArray(args.steps)) {
    const steps = args.steps.map((s: unknown) => (isRecord(s) ? { op: s.op } : s));
    return bound({ ...args, steps });
  }
  return bound(args);
}

function loggableData(op: string, data: Record<string, unknown> | undefined): unknown {
  if (!data) return undefined;
  // A batch's step results are their own lines.
  if (op === 'batch') {
    const { results: _results, ...rest } = data;
    return bound(rest);
  }
  return bound(data);
}

/**
 * The one rule for what the logs count as an error: a failed op, unless it was a flow step marked
 * `on_error: continue` (its run went on, so its failure is not the session's).
 */
export function countsAsError(line: Pick<LogLine, 'ok' | 'run'>): boolean {
  return !line.ok && !line.run?.tolerated;
}

/** The run a line names, when it is a well-formed one (lines written before runs were kept lack it). */
export function runOf(line: { run?: unknown }): LogRun | undefined {
  const parsed = logRunSchema.safeParse(line.run);
  return parsed.success ? parsed.data : undefined;
}

/** Builds the line for one op; frame fields are added by the writer. */
export function logLine(record: OpRecord): LogLine {
  const { result } = record;
  const line: LogLine = {
    at: new Date(result.timing.started_at_ms).toISOString(),
    session: result.session_id,
    action_id: result.action_id,
    op: result.op,
    ok: result.ok,
    duration_ms: result.timing.duration_ms,
    tab: result.page?.tab,
    url: result.page ? truncate(result.page.url, LIMITS.url) : undefined,
    title: result.page ? truncate(result.page.title, LIMITS.title) : undefined,
    run: runOf(record),
    args: loggableArgs(result.op, record.args, result),
    target: result.target ? (bound(result.target) as TargetSummary) : undefined,
    verification: result.verification.status,
    error: result.error
      ? { kind: result.error.kind, message: truncate(result.error.message, LIMITS.message) }
      : undefined,
    notes: result.notes?.map((n) => truncate(n)),
    data: loggableData(result.op, result.data),
    phases: record.phases,
    spans: record.spans,
    frame_ms: record.frameMs,
    frame_skipped: record.frameSkipped,
  };
  return line;
}

/** The line as written: one JSON text, credentials in URLs removed (arguments are not scrubbed upstream). */
export function serializeLine(line: LogLine): string {
  return `${JSON.stringify(scrub(line))}\n`;
}
