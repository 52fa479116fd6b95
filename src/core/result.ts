import { z } from 'zod';
import { CONDITION_TYPES, type Condition } from './condition.js';
import { errorInfoSchema, type ErrorInfo } from './errors.js';
import { STRATEGIES, type Strategy, type Target } from './target.js';

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

const elementSummarySchema = z.object({
  ref: z.string().optional().describe('Its address in the latest snapshot of the page'),
  role: z.string().optional(),
  name: z.string().optional().describe('Accessible name'),
  tag: z.string(),
  text: z.string().optional(),
  frame: z.string().optional().describe('The iframe it is in (B, B|C); absent in the main frame'),
});

const checkSchema = z.object({
  condition: z.object({
    type: z.enum(CONDITION_TYPES),
    value: z.union([z.string(), z.number()]).optional(),
    target: z.custom<Target>().optional().describe('The element the condition named'),
    equals: z.union([z.string(), z.number()]).optional(),
    stable_for: z.number().optional(),
  }),
  passed: z.boolean(),
  observed: z.record(z.string(), z.unknown()).optional().describe('What the page showed'),
  error: z.string().optional(),
});

/**
 * The ActionResult as a schema, for documents that describe it (OpenAPI); the interfaces above
 * stay the code's contract and `ResultSchemaCovers` keeps the two together.
 */
export const actionResultSchema = z
  .object({
    ok: z.boolean().describe('The op succeeded and every requested verification passed'),
    op: z.string(),
    action_id: z.string().describe('<session>-<n>, counting from 1 per session'),
    session_id: z.string(),
    target: z
      .object({
        element: elementSummarySchema,
        strategy: z.enum(STRATEGIES),
        candidates: z.number(),
      })
      .optional()
      .describe('The element acted on, the strategy that found it, how many matched'),
    page: z
      .object({ url: z.string(), title: z.string(), tab: z.string().optional() })
      .optional()
      .describe('URL and title after the op'),
    verification: z.object({
      status: z.enum(['passed', 'failed', 'not_checked']),
      checks: z.array(checkSchema).optional(),
    }),
    data: z.record(z.string(), z.unknown()).optional().describe("The op's output"),
    error: errorInfoSchema.optional(),
    evidence: z
      .array(
        z.object({
          kind: z.enum(['screenshot', 'pdf', 'download', 'video', 'state']),
          name: z.string(),
          url: z
            .string()
            .describe(
              "Signed link to the file; a Grid video's is where the Grid's recorder puts it",
            ),
          absolute_url: z.string().optional(),
        }),
      )
      .optional()
      .describe('Files written, with signed links'),
    notes: z.array(z.string()).optional().describe('What else happened: navigated, new_tab…'),
    timing: z.object({
      started_at_ms: z.number(),
      duration_ms: z.number(),
      timeout_ms: z.number(),
      browser_open_ms: z.number().optional(),
    }),
  })
  .describe('What every operation answers, from every surface (DESIGN §3.1)');

type ResultSchemaOutput = z.output<typeof actionResultSchema>;

/** Fails to compile when the schema misses a field of ActionResult or types one differently. */
export type ResultSchemaCovers = [
  Exclude<keyof ActionResult, keyof ResultSchemaOutput>,
  ActionResult,
] extends [never, ResultSchemaOutput]
  ? true
  : never;
export const RESULT_SCHEMA_COVERS: ResultSchemaCovers = true;
