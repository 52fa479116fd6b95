import { z } from 'zod';
import type { Config } from '../config.js';
import type { FileStore } from '../files/file-store.js';
import type { Secrets } from '../secrets/secrets.js';
import type { Check, Evidence, TargetSummary } from '../core/result.js';
import type { BrowserTab } from '../drivers/driver.js';
import type { Session } from '../sessions/session.js';
import type { SessionManager } from '../sessions/session-manager.js';
import type { ActionResult, Progress } from '../core/result.js';
import type { OpError } from '../core/errors.js';
import { expectSchema } from '../core/condition.js';
import { flag, millis } from '../core/schema.js';
import type { FlowLibrary } from '../flows/library.js';
import type { RunRef } from '../flows/runner.js';
import type { OpEvents } from '../sessions/op-events.js';
import type { ElementContext } from './element.js';

/** Which surface a call came through; approval defaults differ per surface (DESIGN §3.6). */
export type Surface = 'http' | 'cli' | 'mcp' | 'flow' | 'test';

/** What a handler can use while it runs. */
export interface OpContext {
  session: Session;
  sessions: SessionManager;
  config: Config;
  secrets: Secrets;
  files: FileStore;
  surface: Surface;
  /** Consequential actions need `approved: true` when this is on. */
  approval: boolean;
  timeoutMs: number;
  /** Epoch ms by which the op must be done. */
  deadline: number;
  signal?: AbortSignal;
  /** Notes the handler adds (`new_tab t2`, `forced`…). */
  notes: string[];
  /** What this op's element lookups share: the reading memory, the probed box (element.ts). */
  elements: ElementContext;
  /** The active tab, opening the browser if the session has none. */
  tab(): Promise<BrowserTab>;
  /**
   * Called just before input reaches the page: from then on the op is never retried. `queued`:
   * pointer or key input, which the browser queues for the page, so it lands even when the op's
   * time runs out before the browser confirms it (a script or a navigation may not).
   */
  delivered(input?: 'queued'): void;
  /** What happened in the session since this op started (tabs the page opened, refused navigations). */
  events: OpEvents;
  /** Runs another op in this session (batch, flow steps); the caller already holds the session. */
  runNested(op: string, args: unknown, options?: NestedOptions): Promise<ActionResult>;
  /** Every op, for ops that check or run others (flows). */
  ops: ReadonlyMap<string, OpDefinition>;
  /** The saved flows (DESIGN §8). */
  flows: FlowLibrary;
  /** The flow run and step this op is part of, when it is one. */
  run?: RunRef;
}

/** How a nested op differs from its parent call. */
export interface NestedOptions {
  /** The flow step it is (recorded with the op). */
  run?: RunRef;
  /** Stops it early (a flow's cancel or timeout). */
  signal?: AbortSignal;
  /** Epoch ms when the flow's budget ends: the op's own time is cut to end by then. */
  endsBy?: number;
  /** What progress says instead of `step N: op`. */
  progress?: Progress;
  surface?: Surface;
}

/** What a handler returns; `runOp` turns it into the ActionResult. */
export interface OpOutcome {
  data?: Record<string, unknown>;
  target?: TargetSummary;
  evidence?: Evidence[];
  /** Checks the op itself made (assert). */
  checks?: Check[];
  /** False fails the result while keeping its data (a batch with a failed step). */
  ok?: boolean;
  /** The error to report with ok: false. */
  error?: OpError;
}

export interface OpDefinition<S extends z.ZodObject = z.ZodObject> {
  name: string;
  summary: string;
  /** The op's own arguments; `timeout` and (for acting ops) `expect` are added. */
  args: S;
  /** Changes the page: settles afterwards, accepts `expect`, attaches a screenshot on failure. */
  acts: boolean;
  /** Needs a browser (opened on demand). */
  browser: boolean;
  /**
   * Runs script in the page, so it first waits for a navigation's server to answer. Ops that
   * load a page of their own, or read only what the driver keeps, go ahead.
   */
  readsPage: boolean;
  /** May be a flow step (DESIGN §8). */
  step: boolean;
  /** Reads only: MCP `readOnlyHint`. */
  readOnly: boolean;
  /**
   * May do what cannot be undone: MCP's `destructiveHint` stays on. Every acting op is; of the
   * others, batch and flow_run (run acting ops), close (throws away the tabs and logins) and
   * flow_delete.
   */
  destructive: boolean;
  /**
   * Opens or ends the browser itself (open, close): the runner opens no tab before it, and takes
   * the previous op's frame first, as before an acting op.
   */
  managesBrowser: boolean;
  /**
   * A browser reopened for this op loads the session's last URL first. Off for an op that loads
   * a URL of its own (goto): that load would be thrown away at once.
   */
  restoresLastUrl: boolean;
  /** Answers the page's dialogs itself (dialog): the runner does not dismiss one in its way. */
  answersDialogs: boolean;
  /**
   * Reloads the page the caller already read (reload): its data.changes withholds nothing, since
   * the caller asked to see the page again.
   */
  rereadsWholePage: boolean;
  /**
   * Runs a list of other ops' calls (batch): MCP's browser_run hands its `steps` to it and leaves it
   * out of its op list, and HTTP takes a bare JSON array as its `steps`.
   */
  runsSteps: boolean;
  /**
   * Runs other ops as its steps (batch, flow_run): each step is recorded in the session's verdict
   * on its own, so the op itself is not counted again.
   */
  runsOtherOps: boolean;
  /**
   * Its arguments name or carry flows and steps (batch, flow_*): a `secret` in them is a reference
   * a step resolves when it runs, so it is not refused as misplaced before the op starts.
   */
  secretRefsAsData: boolean;
  /** Keeps a tool of its own beside browser_run in the compact MCP set: the session's lifecycle. */
  lifecycle: boolean;
  /**
   * Ends the browser (close): it does not wait behind an op that holds the session, it ends the
   * browser under it, so a wedged page never keeps its session from closing.
   */
  endsBrowser: boolean;
  /** The arguments defineOp added (timeout, expect, diff…), not declared by the op itself. */
  common: string[];
  run(ctx: OpContext, args: z.output<S> & CommonArgs): Promise<OpOutcome>;
}

export interface CommonArgs {
  timeout?: number;
  diff?: boolean;
  include_removed?: boolean;
  element_diff?: boolean;
  expect?: z.output<typeof expectSchema>;
}

export interface OpDeclaration<S extends z.ZodObject> {
  name: string;
  summary: string;
  args: S;
  acts?: boolean;
  browser?: boolean;
  readsPage?: boolean;
  step?: boolean;
  readOnly?: boolean;
  /** Default: `acts`. */
  destructive?: boolean;
  managesBrowser?: boolean;
  /** Default: true. */
  restoresLastUrl?: boolean;
  answersDialogs?: boolean;
  rereadsWholePage?: boolean;
  runsSteps?: boolean;
  runsOtherOps?: boolean;
  secretRefsAsData?: boolean;
  lifecycle?: boolean;
  endsBrowser?: boolean;
  run(ctx: OpContext, args: z.output<S> & CommonArgs): Promise<OpOutcome>;
}

export const timeoutArg = millis(
  'Give up after this many ms (default: the session timeout, 10000)',
).optional();

/** Declares an op once; every surface derives from this (DESIGN §1.1). */
export function defineOp<S extends z.ZodObject>(decl: OpDeclaration<S>): OpDefinition {
  const acts = decl.acts ?? false;
  const browser = decl.browser ?? true;
  const extra: Record<string, z.ZodType> = {};
  if (browser && !('timeout' in decl.args.shape)) extra.timeout = timeoutArg;
  if (acts && !('expect' in decl.args.shape)) extra.expect = expectSchema.optional();
  if (acts) {
    extra.diff = flag()
      .optional()
      .describe('Report data.changes, what this action changed on the page (default true)');
    extra.element_diff = flag()
      .optional()
      .describe(
        'Also report changed tags and attributes (class, disabled, aria-*), within a small budget',
      );
    extra.include_removed = flag()
      .optional()
      .describe('List the strings that left the page, not just their count');
  }
  // safeExtend keeps the declaration's refinements (fill: exactly one of value and secret).
  const args = decl.args.safeExtend(extra);
  return {
    name: decl.name,
    summary: decl.summary,
    args,
    acts,
    browser,
    readsPage: browser && (decl.readsPage ?? true),
    step: decl.step ?? true,
    readOnly: decl.readOnly ?? false,
    destructive: decl.destructive ?? acts,
    managesBrowser: decl.managesBrowser ?? false,
    restoresLastUrl: decl.restoresLastUrl ?? true,
    answersDialogs: decl.answersDialogs ?? false,
    rereadsWholePage: decl.rereadsWholePage ?? false,
    runsSteps: decl.runsSteps ?? false,
    runsOtherOps: decl.runsOtherOps ?? false,
    secretRefsAsData: decl.secretRefsAsData ?? false,
    lifecycle: decl.lifecycle ?? false,
    endsBrowser: decl.endsBrowser ?? false,
    common: Object.keys(extra),
    run: decl.run as OpDefinition['run'],
  };
}
