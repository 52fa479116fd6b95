import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { parseArgs } from '../../core/args.js';
import { CONDITION_TYPES } from '../../core/condition.js';
import { argsJsonSchema } from '../../core/json-schema.js';
import type { Detail } from '../../core/compact-answer.js';
import { OpError } from '../../core/errors.js';
import { jsonObject, looseEnum } from '../../core/schema.js';
import { STRATEGIES } from '../../core/target.js';
import type { OpDefinition } from '../../ops/define.js';
import { detailOf } from '../answer.js';
import { listed } from './listed-schema.js';
import { hasOwnTool, runToolSuggestion, toolSuggestion, unknownTool } from './tool-names.js';

/** Which tools a client sees: one per op, or `browser_run` plus the lifecycle (DESIGN §13). */
export type ToolSet = 'full' | 'compact';

export const isToolSet = (value: string): value is ToolSet =>
  value === 'full' || value === 'compact';

/** Every op's tool is named `browser_<op>` (STYLE: MCP exposes `browser_<op>`). */
export const TOOL_PREFIX = 'browser_';
export const RUN_TOOL = 'browser_run';

/** The op that runs a list of op calls (batch): browser_run's `steps` go to it. */
const stepsOp = (ops: ReadonlyMap<string, OpDefinition>) =>
  [...ops.values()].find((o) => o.runsSteps);

const keysOf = (op: OpDefinition) => Object.keys(op.args.shape);

/** Arguments every acting op takes (defineOp adds them): the compact listing names them once. */
function commonArgs(ops: readonly OpDefinition[]): string[] {
  const acting = ops.filter((o) => o.acts);
  return acting.length
    ? keysOf(acting[0]).filter((k) => acting.every((o) => keysOf(o).includes(k)))
    : [];
}

/** A tool call turned into an op call; arguments are passed on untouched for runOp to check. */
export interface OpCall {
  op: string;
  args: unknown;
  /** How much of the result the caller asked for (`detail`, any tool): compact unless "full". */
  detail: Detail;
}

/**
 * `detail` is the surface's, not the op's: taken out of the arguments before runOp checks them,
 * so every tool takes it without any op declaring it.
 */
function withoutDetail(args: Record<string, unknown> | undefined): {
  args: Record<string, unknown>;
  detail?: unknown;
} {
  if (!args || !('detail' in args)) return { args: args ?? {} };
  const { detail, ...rest } = args;
  return { args: rest, detail };
}

export function inputSchemaOf(schema: z.ZodType): Tool['inputSchema'] {
  return argsJsonSchema(schema) as Tool['inputSchema'];
}

/**
 * Hints that differ from MCP's defaults (not read-only, destructive, open world); the rest go
 * unsaid, as every tool's listing costs the model tokens. An op without a browser reaches only
 * this server's own state: a closed world.
 */
function annotationsOf(op: OpDefinition): ToolAnnotations | undefined {
  const hints: ToolAnnotations = {};
  if (op.readOnly) hints.readOnlyHint = true;
  else if (!op.destructive) hints.destructiveHint = false;
  if (!op.browser) hints.openWorldHint = false;
  return Object.keys(hints).length ? hints : undefined;
}

function opTool(op: OpDefinition): Tool {
  const annotations = annotationsOf(op);
  return {
    name: `${TOOL_PREFIX}${op.name}`,
    description: op.summary,
    inputSchema: inputSchemaOf(op.args),
    ...(annotations ? { annotations } : {}),
  };
}

/** `name(required*, optional…)` for each op: enough to call it without reading the schema. */
function signature(op: OpDefinition, common: string[]): string {
  const json = argsJsonSchema(op.args);
  const required = new Set(Array.isArray(json.required) ? json.required : []);
  const keys = Object.keys(json.properties ?? {})
    .filter((k) => k !== 'timeout' && !common.includes(k))
    .map((k) => (required.has(k) ? `${k}*` : k));
  // assert and wait_for take a condition's keys at their top level: named once, below.
  const conditions = keys.filter((k) => (CONDITION_TYPES as readonly string[]).includes(k));
  const rest = keys.filter((k) => !conditions.includes(k));
  return `${op.name}(${[...(conditions.length ? ['<condition>'] : []), ...rest].join(', ')})`;
}

/** browser_run's own envelope: one op, or steps handed to batch. */
function runSchema(ops: ReadonlyMap<string, OpDefinition>) {
  const batch = stepsOp(ops);
  const names = [...ops.keys()] as [string, ...string[]];
  return z.strictObject({
    op: looseEnum(names).optional().describe('The op to run, e.g. "click"'),
    args: jsonObject(z.record(z.string(), z.unknown()))
      .optional()
      .describe('Its arguments, e.g. {"target": {"label": "Email"}, "value": "ada@example.com"}'),
    steps: (batch?.args.shape.steps ?? z.array(z.unknown()))
      .optional()
      .describe('Several ops in one round trip instead of op: [{"op": "…", "args": {…}}, …]'),
    continue_on_error: z
      .boolean()
      .optional()
      .describe('With steps: run every step even after one fails'),
    detail: z
      .enum(['compact', 'full'])
      .optional()
      .describe(
        '"full": the whole ActionResult (ids, timing, target, page) instead of the compact answer',
      ),
  });
}

function runTool(ops: ReadonlyMap<string, OpDefinition>): Tool {
  const all = [...ops.values()];
  const common = commonArgs(all);
  const listed = all.filter((o) => !o.lifecycle && !o.runsSteps);
  const description = [
    'Run one browser op ({op, args}) or several in one round trip ({steps: [{op, args}, …]}; stops at the first failure unless continue_on_error).',
    `Ops (* required): ${listed.map((o) => signature(o, common)).join('; ')}.`,
    `Every op takes timeout (ms); acting ops also take ${common.filter((k) => k !== 'timeout').join(', ')}. A <condition> (expect takes one or a list) is one key of ${CONDITION_TYPES.join(', ')}, e.g. {"url_contains": "dashboard"}.`,
    `A target is an object with one of ${STRATEGIES.join(', ')} (role goes with name; ref comes from snapshot, find or outline).`,
    'All arguments: resource swiftbrowse://ops.',
  ].join('\n');
  return {
    name: RUN_TOOL,
    description,
    inputSchema: inputSchemaOf(runSchema(ops)),
  };
}

/** The tools of a set, derived from the op registry: nothing here is written per op. */
export function listTools(ops: ReadonlyMap<string, OpDefinition>, set: ToolSet): Tool[] {
  const all = [...ops.values()];
  if (set === 'full') return listed(all.map((op) => ({ tool: opTool(op), op })));
  return listed([
    { tool: runTool(ops) },
    ...all.filter((o) => o.lifecycle).map((op) => ({ tool: opTool(op), op })),
  ]);
}

/** The tools of a set in one sentence, for a call to one it does not have. */
function toolsOf(ops: ReadonlyMap<string, OpDefinition>, set: ToolSet): string {
  const names = [...ops.keys()].join(', ');
  return set === 'full'
    ? `Tools are ${TOOL_PREFIX}<op> for the ops ${names}.`
    : `Tools are ${RUN_TOOL} (any op: ${names}) and the lifecycle tools tools/list shows.`;
}

/**
 * The op a tool call names; a tool this set does not list is a JSON-RPC error naming the one to
 * call. Op arguments are not checked here: runOp's one check answers with the sentence naming the
 * expected shape, whichever surface the call came through.
 */
export function opCallOf(
  ops: ReadonlyMap<string, OpDefinition>,
  tool: string,
  given: Record<string, unknown> | undefined,
  set: ToolSet = 'full',
): OpCall {
  const naming = { fullSet: set === 'full', prefix: TOOL_PREFIX, runTool: RUN_TOOL };
  if (tool === RUN_TOOL && set === 'full')
    throw unknownTool(tool, runToolSuggestion(given?.op, ops, naming), toolsOf(ops, set));
  if (tool !== RUN_TOOL) {
    const { args, detail } = withoutDetail(given);
    const op = tool.startsWith(TOOL_PREFIX) ? ops.get(tool.slice(TOOL_PREFIX.length)) : undefined;
    if (!op || !hasOwnTool(op, naming))
      throw unknownTool(tool, toolSuggestion(tool, ops, naming), toolsOf(ops, set));
    return { op: op.name, args, detail: detailOf(detail, 'compact') };
  }
  const run = parseArgs(RUN_TOOL, runSchema(ops), given);
  // Said inside args as well as beside them: either way it is the call's.
  const inner = withoutDetail(run.args);
  const detail = detailOf(run.detail ?? inner.detail, 'compact');
  if (run.steps !== undefined) {
    if (run.op !== undefined || run.args !== undefined) {
      throw new OpError(
        'invalid_argument',
        `${RUN_TOOL}: give either {op, args} for one op or {steps: [{op, args}, …]} for several, not both.`,
      );
    }
    const runner = stepsOp(ops);
    if (!runner)
      throw new OpError(
        'invalid_argument',
        `${RUN_TOOL}: this server has no op that runs steps; send one {op, args} at a time.`,
      );
    const batch: Record<string, unknown> = { steps: run.steps };
    if (run.continue_on_error !== undefined) batch.continue_on_error = run.continue_on_error;
    return { op: runner.name, args: batch, detail };
  }
  if (run.continue_on_error !== undefined) {
    throw new OpError('invalid_argument', `${RUN_TOOL}: continue_on_error goes with steps.`);
  }
  if (run.op === undefined) {
    throw new OpError(
      'invalid_argument',
      `${RUN_TOOL}: missing op — give {"op": "goto", "args": {"url": "https://example.com"}}, or steps for several ops.`,
    );
  }
  return { op: run.op, args: inner.args, detail };
}
