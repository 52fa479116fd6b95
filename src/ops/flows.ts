import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { OpError } from '../core/errors.js';
import { flag, jsonObject } from '../core/schema.js';
import { flowSource } from '../flows/document.js';
import { deleteFlow, describeFlow, saveFlow } from '../flows/edit.js';
import { isPageUrl, libraryOf } from '../flows/library.js';
import { runFlow } from '../flows/runner.js';
import { validateFlow } from '../flows/validate.js';
import { verdictOf } from '../flows/verdict.js';
import { defineOp, type OpContext } from './define.js';
import type { Progress } from '../core/result.js';

const flowName = z.string().min(1).describe('The flow name');
const ifMatch = z
  .string()
  .min(1)
  .optional()
  .describe('The revision you read (flow_get): the write is refused if the flow changed since');
const flowDocument = z
  .union([z.string(), z.record(z.string(), z.unknown())])
  .describe(
    'YAML text (comments are kept) or an object {name, description, urls, timeout, parameters, steps: [{op, args, id, on_error, return, note}]}; JSON Schema: swiftbrowse://schemas/flow',
  );

const libraryOfCaller = (ctx: OpContext) => libraryOf(ctx.session.name);

export const flowList = defineOp({
  name: 'flow_list',
  secretRefsAsData: true,
  summary:
    'List the saved flows that apply to the current page (yours and global), with their parameters; everywhere for all',
  browser: false,
  step: false,
  readOnly: true,
  args: z.strictObject({
    everywhere: flag().optional().describe('Every flow, not only those whose urls match this page'),
  }),
  async run(ctx, args) {
    const library = libraryOfCaller(ctx);
    const url = ctx.session.lastUrl;
    if (args.everywhere || !isPageUrl(url))
      return { data: { library, flows: await ctx.flows.list(library) } };
    return { data: { library, ...(await ctx.flows.listHere(library, url)) } };
  },
});

export const flowGet = defineOp({
  name: 'flow_get',
  secretRefsAsData: true,
  summary: 'Read one saved flow: its document, YAML text and revision',
  browser: false,
  step: false,
  readOnly: true,
  args: z.strictObject({ name: flowName }),
  async run(ctx, args) {
    return { data: await describeFlow(ctx.flows, ctx.ops, libraryOfCaller(ctx), args.name) };
  },
});

export const flowSave = defineOp({
  name: 'flow_save',
  secretRefsAsData: true,
  summary:
    'Save a flow to your library (create or update); every step is checked against its op now',
  browser: false,
  step: false,
  args: z.strictObject({
    flow: flowDocument,
    name: flowName.optional().describe("Save under this name (default: the document's name)"),
    if_match: ifMatch,
  }),
  async run(ctx, args) {
    const saved = await saveFlow(ctx.flows, ctx.ops, libraryOfCaller(ctx), args.flow, {
      name: args.name,
      ifMatch: args.if_match,
      writer: 'session',
    });
    return { data: { ...saved } };
  },
});

export const flowDelete = defineOp({
  name: 'flow_delete',
  secretRefsAsData: true,
  destructive: true,
  summary: 'Delete a flow from your library',
  browser: false,
  step: false,
  args: z.strictObject({ name: flowName, if_match: ifMatch }),
  async run(ctx, args) {
    const deleted = await deleteFlow(ctx.flows, libraryOfCaller(ctx), args.name, {
      ifMatch: args.if_match,
      writer: 'session',
    });
    return { data: deleted };
  },
});

export const flowRun = defineOp({
  name: 'flow_run',
  secretRefsAsData: true,
  runsOtherOps: true,
  // Its steps click, submit and delete whatever they say, pre-approved ones included.
  destructive: true,
  summary:
    'Fly a saved flow in one call, with params; the report says where a failure stopped, why, and a hint',
  step: false,
  args: z.strictObject({
    name: flowName.optional().describe('The saved flow to run (yours, else the global one)'),
    document: flowDocument
      .optional()
      .describe('Run this flow document without saving it (a draft, or a test file)'),
    params: jsonObject(z.record(z.string(), z.unknown()))
      .optional()
      .describe('Values of the flow’s parameters, e.g. {"email": "ada@example.com"}'),
    verbose: flag().optional().describe('Include every step’s full result'),
  }),
  async run(ctx, args) {
    if ((args.name === undefined) === (args.document === undefined))
      throw new OpError(
        'invalid_argument',
        'flow_run: give name (a saved flow) or document (a flow to run unsaved), one of the two.',
      );
    const library = libraryOfCaller(ctx);
    let value: unknown;
    let what: string;
    if (args.name !== undefined) {
      const stored = await ctx.flows.find(library, args.name);
      value = flowSource(stored.text).value;
      what = `The saved flow "${stored.name}" (library ${stored.library}) is invalid and was not run — was it edited by hand? Fix it and save it again`;
    } else {
      value = flowSource(args.document).value;
      what = 'The flow document is invalid and was not run';
    }
    const { flow, warnings } = validateFlow(value, ctx.ops, what);
    let progress: Progress | undefined;
    const { report, error, evidence } = await runFlow(
      flow,
      {
        library,
        runId: `${ctx.session.name}-run-${randomUUID().slice(0, 8)}`,
        params: args.params,
        verbose: args.verbose,
        warnings,
      },
      {
        signal: ctx.signal,
        progress: (news) => (progress = news),
        runStep: (op, stepArgs, run, signal, endsBy) =>
          ctx.runNested(op, stepArgs, { run, signal, endsBy, progress, surface: 'flow' }),
      },
    );
    verdictOf(ctx.session).recordRun({
      run_id: report.run_id,
      flow: report.flow,
      status: report.status,
      steps_run: report.steps_run,
      steps_total: report.steps_total,
      ...(error ? { error: error.message } : {}),
    });
    return {
      ok: !error,
      error,
      evidence,
      data: report as unknown as Record<string, unknown>,
    };
  },
});
