import type { Condition } from './condition.js';
import type { ErrorInfo } from './errors.js';
import type { Strategy } from './target.js';

/** The element an op acted on, as a model would name it. */
export interface ElementSummary {
  ref?: string;
  role?: string;
  name?: string;
  tag: string;
  text?: string;
  /** The address of the iframe it is in (`B`, `B|C`); absent in the main frame. */
  frame?: string;
}

export interface TargetSummary {
  element: ElementSummary;
  strategy: Strategy;
  candidates: number;
}

export interface Check {
  condition: Condition;
  passed: boolean;
  observed?: Record<string, unknown>;
  error?: string;
}

export interface Verification {
  status: 'passed' | 'failed' | 'not_checked';
  checks?: Check[];
}

/** A file an op wrote, named in the session's files and reachable by its signed link. */
export interface Evidence {
  kind: 'screenshot' | 'pdf' | 'download' | 'video' | 'state';
  name: string;
  url: string;
  absolute_url?: string;
}

/** Every operation, from every surface, answers with this (DESIGN §3.1). */
export interface ActionResult {
  ok: boolean;
  op: string;
  action_id: string;
  session_id: string;
  target?: TargetSummary;
  page?: { url: string; title: string; tab?: string };
  verification: Verification;
  data?: Record<string, unknown>;
  error?: ErrorInfo;
  evidence?: Evidence[];
  notes?: string[];
  timing: Timing;
}

export interface Timing {
  started_at_ms: number;
  duration_ms: number;
  timeout_ms: number;
  /** Part of duration_ms spent opening the browser, which the timeout does not count; 0 is left out. */
  browser_open_ms?: number;
}

/** The timing of an op that started at `started` (epoch ms) and answers now. */
export function timingSince(started: number, timeoutMs: number, browserOpenMs: number): Timing {
  const open = Math.round(browserOpenMs);
  return {
    started_at_ms: started,
    duration_ms: Date.now() - started,
    timeout_ms: timeoutMs,
    ...(open > 0 ? { browser_open_ms: open } : {}),
  };
}

/** Leaves out the fields DESIGN §3.1 says are omitted when empty. */
export function compactResult(result: ActionResult): ActionResult {
  const out = { ...result };
  if (!out.data || Object.keys(out.data).length === 0) delete out.data;
  if (!out.error) delete out.error;
  if (!out.evidence || out.evidence.length === 0) delete out.evidence;
  if (!out.notes || out.notes.length === 0) delete out.notes;
  if (!out.target) delete out.target;
  if (!out.page) delete out.page;
  return out;
}

/** A call's news: the step it started, and how many of how many are done when that is known. */
export interface Progress {
  message: string;
  done?: number;
  total?: number;
}
