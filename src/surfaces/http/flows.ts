import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { parseArgs } from '../../core/args.js';
import { OpError, toOpError } from '../../core/errors.js';
import { argsJsonSchema } from '../../core/json-schema.js';
import { deleteFlow, describeFlow, saveFlow, type Writer } from '../../flows/edit.js';
import { GLOBAL_LIBRARY, isPageUrl, libraryOf } from '../../flows/library.js';
import { flowJsonSchema } from '../../flows/schema.js';
import { runOp, type OpRuntime } from '../../ops/run-op.js';
import { applyClientLayer } from './client-layer.js';
import { jsonBody } from './guards.js';
import { answer, callerName, failure, namesSession } from './respond.js';
import {
  ERROR_STATUSES,
  json,
  nameParam,
  opOperation,
  queryParam,
  ref,
  routeDoc,
  SESSION_PARAMS,
  type RouteDoc,
} from './route-docs.js';

const YAML_TYPES = /^(application|text)\/(x-)?yaml\b/i;

/** A flow sent as JSON (an object) or as YAML text (comments kept). */
export async function readFlowBody(c: Context): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  const text = await c.req.text();
  // The app's body guard has checked the type (JSON or YAML) and the JSON's depth.
  if (YAML_TYPES.test(type)) return text;
  return jsonBody(
    text,
    'Send the flow as a JSON object, or as YAML text with content-type: application/yaml.',
  );
}

/** Answers a flow as YAML text when asked (Accept), else as JSON; the revision is the ETag. */
export function flowResponse(c: Context, flow: Record<string, unknown>) {
  c.header('ETag', `"${String(flow.revision)}"`);
  if (YAML_TYPES.test(c.req.header('accept') ?? ''))
    return c.body(String(flow.yaml), 200, { 'content-type': 'application/yaml; charset=utf-8' });
  return c.json(flow);
}

type Json = Record<string, unknown>;

/** How one library's flow routes are documented: the caller's (`flow`) or the operator's. */
export interface FlowDocs {
  id: 'flow' | 'admin_flow';
  tag: RouteDoc['tag'];
  access: RouteDoc['access'];
  parameters: Json[];
}

const FLOW_SAVED = json({
  type: 'object',
  properties: {
    name: { type: 'string' },
    library: { type: 'string' },
    revision: { type: 'string', description: 'The new revision, also the ETag' },
    created: { type: 'boolean' },
    warnings: { type: 'array', items: { type: 'string' } },
  },
  required: ['name', 'library', 'revision', 'created'],
});

/** GET /flows's query: an unknown parameter is refused like an unknown argument, naming these. */
const listQuery = z.strictObject({
  session: z.string().optional(),
  url: z
    .string()
    .refine(isPageUrl, {
      error: (issue) =>
        `expected the page's whole URL with its scheme, e.g. ?url=https://admin.example.com/login, got ${JSON.stringify(issue.input)}; leave url out to list every flow`,
    })
    .optional()
    .describe(
      "Only the flows whose urls cover this page (its whole URL, with its scheme), by flow_list's rule for the current page",
    ),
});
const LIST_URL_PARAM = (() => {
  const { description, ...schema } = (argsJsonSchema(listQuery).properties as Json).url as Json;
  return queryParam('url', String(description), schema);
})();

/** A flow route's failure, answered like the op it stands for. */
export const refuse = (c: Context, op: string, e: unknown) => failure(c, op, toOpError(e));

/**
 * GET, PUT and DELETE of one flow at `path` (which ends in `:name`): the same rules for a caller
 * writing its own library and for the operator writing any; only the library and writer differ.
 */
export function flowDocumentRoutes(
  app: Hono,
  path: string,
  rt: OpRuntime,
  library: (c: Context) => string,
  writer: Writer,
  read: { exact?: boolean },
  docs: FlowDocs,
): void {
  const doc = (method: string, summary: string, more: Partial<RouteDoc>) =>
    routeDoc({
      id: `${docs.id}_${method}`,
      summary,
      tag: docs.tag,
      access: docs.access,
      parameters: docs.parameters,
      answers: {},
      fails: [400, 404],
      ...more,
    });
  const flowText = {
    description:
      'The flow, with its revision as the ETag; YAML text (comments kept) when Accept asks',
    content: {
      ...json({ type: 'object' }),
      'application/yaml': { schema: { type: 'string' } },
    },
  };
  app.get(path, doc('get', 'Read one flow', { answers: { 200: flowText } }), async (c) => {
    try {
      return flowResponse(
        c,
        await describeFlow(rt.flows, rt.ops, library(c), c.req.param('name') ?? '', read),
      );
    } catch (e) {
      return refuse(c, 'flow_get', e);
    }
  });
  app.put(
    path,
    doc('put', 'Save a flow (validated against every step’s op); If-Match guards an edit', {
      parameters: [...docs.parameters, ref('parameters', 'IfMatch')],
      body: {
        description: 'The flow document, as JSON or as YAML text (comments kept)',
        content: {
          ...json(flowJsonSchema(rt.ops.values())),
          'application/yaml': { schema: { type: 'string' } },
        },
      },
      answers: {
        200: { description: 'Replaced', content: FLOW_SAVED },
        201: { description: 'Created', content: FLOW_SAVED },
      },
      fails: [400, 403, 412],
    }),
    async (c) => {
      try {
        const saved = await saveFlow(rt.flows, rt.ops, library(c), await readFlowBody(c), {
          name: c.req.param('name'),
          ifMatch: c.req.header('if-match'),
          writer,
        });
        c.header('ETag', `"${saved.revision}"`);
        return c.json(saved, saved.created ? 201 : 200);
      } catch (e) {
        return refuse(c, 'flow_save', e);
      }
    },
  );
  app.delete(
    path,
    doc('delete', 'Delete a flow; If-Match guards it', {
      parameters: [...docs.parameters, ref('parameters', 'IfMatch')],
      answers: { 200: { description: 'Deleted' } },
      fails: [400, 403, 404, 412],
    }),
    async (c) => {
      try {
        return c.json(
          await deleteFlow(rt.flows, library(c), c.req.param('name') ?? '', {
            ifMatch: c.req.header('if-match'),
            writer,
          }),
        );
      } catch (e) {
        return refuse(c, 'flow_delete', e);
      }
    },
  );
}

/**
 * REST routes for flows (DESIGN §13): reads with no session read `global`; writes go to the
 * caller's own library; a run is the flow_run op in the caller's browser.
 */
export function flowRoutes(rt: OpRuntime): Hono {
  const app = new Hono();
  const ops = rt.ops;

  /** The caller's library: its session's, or global when it names none. */
  const library = (c: Context): string => {
    return namesSession(c) ? libraryOf(callerName(c)) : GLOBAL_LIBRARY;
  };

  app.get(
    '/schemas/flow',
    routeDoc({
      id: 'flow_schema',
      summary: 'The JSON Schema of a flow document, each step checked by its op’s own schema',
      tag: 'flows',
      access: 'caller',
      answers: { 200: { description: 'JSON Schema 2020-12' } },
    }),
    (c) => c.json(flowJsonSchema(ops.values())),
  );

  app.get(
    '/flows',
    routeDoc({
      id: 'flows_list',
      summary:
        'The flows of the caller’s library (global when no session is named); with url, those for that page',
      tag: 'flows',
      access: 'caller',
      parameters: [...SESSION_PARAMS, LIST_URL_PARAM],
      answers: {
        200: {
          description:
            'The library and its flows; with url, also the url, filtered: true and how many flows it hid',
          content: json({
            type: 'object',
            properties: {
              library: { type: 'string' },
              url: { type: 'string' },
              filtered: { const: true },
              hidden: { type: 'integer' },
              flows: { type: 'array', items: { type: 'object' } },
            },
            required: ['library', 'flows'],
          }),
        },
      },
      fails: [400],
    }),
    async (c) => {
      try {
        const { url } = parseArgs('GET /flows', listQuery, c.req.query());
        const lib = library(c);
        if (url === undefined) return c.json({ library: lib, flows: await rt.flows.list(lib) });
        return c.json({ library: lib, ...(await rt.flows.listHere(lib, url)) });
      } catch (e) {
        return refuse(c, 'flow_list', e);
      }
    },
  );

  flowDocumentRoutes(
    app,
    '/flows/:name',
    rt,
    library,
    'session',
    {},
    {
      id: 'flow',
      tag: 'flows',
      access: 'caller',
      parameters: [nameParam('name', 'The flow'), ...SESSION_PARAMS],
    },
  );

  app.post('/flows/:name/runs', runDoc(rt), async (c) => {
    try {
      const body = jsonBody(await c.req.text());
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw new OpError('invalid_argument', 'The body is {"params": {…}, "verbose": false}.');
      const session = await rt.sessions.get(callerName(c));
      // A run opens the session's browser as any op does: the caller's browser layer applies.
      await applyClientLayer(c, session, rt.sessions);
      return answer(
        c,
        await runOp(rt, {
          op: 'flow_run',
          args: { ...body, name: c.req.param('name') },
          session,
          surface: 'http',
          signal: c.req.raw.signal,
        }),
      );
    } catch (e) {
      return refuse(c, 'flow_run', e);
    }
  });

  return app;
}

/** POST /flows/{name}/runs: the flow_run op with the name taken from the path. */
function runDoc(rt: OpRuntime) {
  const flowRun = rt.ops.get('flow_run');
  if (!flowRun)
    return routeDoc({
      id: 'flow_run',
      summary: 'Run a flow',
      tag: 'flows',
      access: 'caller',
      answers: {},
    });
  const operation = opOperation(flowRun, 'flow_run', 'flows');
  const body = (operation.requestBody as { content: Record<string, { schema: Json }> }).content[
    'application/json'
  ].schema;
  const { name: _name, ...properties } = body.properties as Json;
  return routeDoc({
    id: 'flow_run',
    summary: 'Run a saved flow in the caller’s browser, in one call',
    description: String(operation.description),
    tag: 'flows',
    access: 'caller',
    parameters: [
      nameParam('name', 'The flow'),
      ...SESSION_PARAMS,
      ref('parameters', 'XBrowser'),
      ref('parameters', 'browser'),
      ref('parameters', 'XVersion'),
      ref('parameters', 'version'),
    ],
    body: {
      required: false,
      content: json({
        ...body,
        properties,
        ...(Array.isArray(body.required)
          ? { required: body.required.filter((k) => k !== 'name') }
          : {}),
      }),
    },
    answers: {
      200: {
        description: 'The run report, as the flow_run op’s ActionResult',
        content: json(ref('schemas', 'ActionResult')),
      },
    },
    fails: ERROR_STATUSES,
  });
}
