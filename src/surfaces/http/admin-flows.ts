import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { flag } from '../../core/schema.js';
import { parseArgs } from '../../core/args.js';
import { argsJsonSchema } from '../../core/json-schema.js';
import { checkName } from '../../core/names.js';
import { outlineFlow } from '../../flows/outline.js';
import type { OpRuntime } from '../../ops/run-op.js';
import { flowDocumentRoutes, refuse } from './flows.js';
import { jsonBody } from './guards.js';
import { json, nameParam, routeDoc } from './route-docs.js';

const moveArgs = z.strictObject({
  to: z.string().min(1).describe('The library to move it to: "global" or a session name'),
  replace: flag().optional().describe('Overwrite a flow of the same name there'),
});

/**
 * The operator's flow routes: every library, `global` included, can be written here. Mounted by
 * the server under /admin/flows behind the operator guard, which is applied from outside.
 */
export function adminFlowRoutes(rt: OpRuntime): Hono {
  const app = new Hono();
  const lib = (c: Context) => {
    const library = c.req.param('library') ?? '';
    return library === '_stdio' ? library : checkName('library', library);
  };

  const named = [
    nameParam('library', 'The library: global or a session name'),
    nameParam('name', 'The flow'),
  ];
  const admin = { tag: 'admin', access: 'operator', parameters: named } as const;

  app.get(
    '/',
    routeDoc({
      id: 'admin_flows_list',
      summary: 'Every flow library with its flows',
      tag: 'admin',
      access: 'operator',
      answers: { 200: { description: 'The libraries' } },
    }),
    async (c) => {
      const libraries = await rt.flows.libraries();
      return c.json({
        libraries: await Promise.all(
          libraries.map(async (library) => ({
            library,
            flows: await rt.flows.libraryFlows(library),
          })),
        ),
      });
    },
  );

  flowDocumentRoutes(
    app,
    '/:library/:name',
    rt,
    lib,
    'operator',
    { exact: true },
    {
      id: 'admin_flow',
      ...admin,
    },
  );

  app.get(
    '/:library/:name/outline',
    routeDoc({
      id: 'admin_flow_outline',
      summary: 'A flow’s outline: its steps, and which steps read each parameter',
      ...admin,
      answers: { 200: { description: 'The outline; the revision is the ETag' } },
      fails: [400, 404],
    }),
    async (c) => {
      try {
        const outline = await outlineFlow(rt.flows, rt.ops, lib(c), c.req.param('name'));
        c.header('ETag', `"${outline.revision}"`);
        return c.json(outline);
      } catch (e) {
        return refuse(c, 'flow_outline', e);
      }
    },
  );

  app.post(
    '/:library/:name/move',
    routeDoc({
      id: 'admin_flow_move',
      summary: 'Move a flow to another library',
      ...admin,
      body: { content: json(argsJsonSchema(moveArgs)) },
      answers: { 200: { description: 'Moved; the new revision is the ETag' } },
      fails: [400, 404, 409],
    }),
    async (c) => {
      try {
        const args = parseArgs('move', moveArgs, jsonBody(await c.req.text()));
        const to = args.to === '_stdio' ? args.to : checkName('library', args.to);
        const moved = await rt.flows.move(c.req.param('name'), lib(c), to, args.replace);
        c.header('ETag', `"${moved.revision}"`);
        return c.json({ name: moved.name, library: moved.library, revision: moved.revision });
      } catch (e) {
        return refuse(c, 'flow_move', e);
      }
    },
  );

  return app;
}
