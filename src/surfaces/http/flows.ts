import { Hono, type Context } from 'hono';
import { OpError, toOpError } from '../../core/errors.js';
import { deleteFlow, describeFlow, saveFlow, type Writer } from '../../flows/edit.js';
import { GLOBAL_LIBRARY, libraryOf } from '../../flows/library.js';
import { flowJsonSchema } from '../../flows/schema.js';
import { runOp, type OpRuntime } from '../../ops/run-op.js';
import { answer, callerName, failure, namesSession } from './respond.js';

const YAML_TYPES = /^(application|text)\/(x-)?yaml\b/i;

/** A flow sent as JSON (an object) or as YAML text (comments kept). */
export async function readFlowBody(c: Context): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  const text = await c.req.text();
  // The app's body guard has checked the type (JSON or YAML) and the JSON's depth.
  if (YAML_TYPES.test(type)) return text;
  return jsonBody(text);
}

/** A JSON body the body guard let through, parsed; bad syntax is invalid_argument. */
export function jsonBody(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new OpError('invalid_argument', `The body is not valid JSON (${(e as Error).message}).`);
  }
}

/** Answers a flow as YAML text when asked (Accept), else as JSON; the revision is the ETag. */
export function flowResponse(c: Context, flow: Record<string, unknown>) {
  c.header('ETag', `"${String(flow.revision)}"`);
  if (YAML_TYPES.test(c.req.header('accept') ?? ''))
    return c.body(String(flow.yaml), 200, { 'content-type': 'application/yaml; charset=utf-8' });
  return c.json(flow);
}

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
): void {
  app.get(path, async (c) => {
    try {
      return flowResponse(
        c,
        await describeFlow(rt.flows, rt.ops, library(c), c.req.param('name') ?? '', read),
      );
    } catch (e) {
      return refuse(c, 'flow_get', e);
    }
  });
  app.put(path, async (c) => {
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
  });
  app.delete(path, async (c) => {
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
  });
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

  app.get('/schemas/flow', (c) => c.json(flowJsonSchema(ops.values())));

  app.get('/flows', async (c) => {
    try {
      const lib = library(c);
      return c.json({ library: lib, flows: await rt.flows.list(lib) });
    } catch (e) {
      return refuse(c, 'flow_list', e);
    }
  });

  flowDocumentRoutes(app, '/flows/:name', rt, library, 'session', {});

  app.post('/flows/:name/runs', async (c) => {
    try {
      const body = jsonBody(await c.req.text());
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw new OpError('invalid_argument', 'The body is {"params": {…}, "verbose": false}.');
      const session = await rt.sessions.get(callerName(c));
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
