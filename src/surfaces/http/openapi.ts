import type { Context, Hono } from 'hono';
import { generateSpecs, type GenerateSpecOptions } from 'hono-openapi';
import { stringify } from 'yaml';
import { errorInfoSchema } from '../../core/errors.js';
import { argsJsonSchema, hoistDefs } from '../../core/json-schema.js';
import { actionResultSchema } from '../../core/result.js';
import type { OpDefinition } from '../../ops/define.js';
import { DETAILS } from '../../core/compact-answer.js';
import { NAME } from '../../core/names.js';
import { BROWSER_NAMES } from '../../drivers/driver.js';
import {
  ERROR_STATUSES,
  json,
  kindsAt,
  opOperation,
  opTag,
  ref,
  routeDoc,
  TAGS,
} from './route-docs.js';
import { mountReferencePage } from './reference-page.js';

type Json = Record<string, unknown>;

/** Paths anyone may read, token or not: the API's shape, which the published package holds too. */
export function isApiDescriptionPath(path: string): boolean {
  return (
    path === '/openapi.json' ||
    path === '/openapi.yaml' ||
    path === '/reference' ||
    path.startsWith('/reference/')
  );
}

const EXAMPLE_RESULT = {
  ok: true,
  op: 'click',
  action_id: 's1-2',
  session_id: 's1',
  target: {
    element: { ref: 'AEDBa', role: 'button', name: 'Sign in', tag: 'button' },
    strategy: 'role',
    candidates: 1,
  },
  page: { url: 'http://localhost:3000/dashboard', title: 'Dashboard' },
  verification: {
    status: 'passed',
    checks: [
      {
        condition: { type: 'url_contains', value: 'dashboard' },
        passed: true,
        observed: { url: 'http://localhost:3000/dashboard' },
      },
    ],
  },
  timing: { started_at_ms: 1792905230645, duration_ms: 59, timeout_ms: 10000 },
};

const EXAMPLE_ERROR = {
  kind: 'not_actionable',
  message:
    'Button "Pay" is covered by div#ad at its centre. Close the overlay first, or click with force: true.',
  recoverable: true,
};

/** The shared parts every operation refers to: result, error, parameters, statuses, schemes. */
function components(): Json {
  const schemas: Json = {};
  const lifted = (name: string, schema: Json) =>
    (schemas[name] = hoistDefs(schema, `${name}.`, schemas, '#/components/schemas/'));
  lifted('Error', { ...argsJsonSchema(errorInfoSchema), example: EXAMPLE_ERROR });
  const result = argsJsonSchema(actionResultSchema);
  lifted('ActionResult', {
    ...result,
    properties: { ...(result.properties as Json), error: ref('schemas', 'Error') },
    example: EXAMPLE_RESULT,
  });
  schemas.Failure = {
    type: 'object',
    description:
      'A failed call. An op that ran answers its whole ActionResult (ok false, with page, evidence…); a request refused before any op ran answers ok, op and error alone.',
    properties: { ok: { const: false }, op: { type: 'string' }, error: ref('schemas', 'Error') },
    required: ['ok', 'error'],
    example: { ok: false, op: 'click', error: EXAMPLE_ERROR },
  };
  const failure = (description: string) => ({
    description,
    content: json(ref('schemas', 'Failure')),
  });
  const responses: Json = {
    ActionResult: {
      description: 'The op succeeded and every requested verification passed',
      content: json(ref('schemas', 'ActionResult')),
    },
    E401: failure(
      'permission_denied: the bearer token is missing or wrong (SWIFTBROWSE_TOKEN, or SWIFTBROWSE_ADMIN_TOKEN on operator routes)',
    ),
  };
  for (const status of ERROR_STATUSES)
    responses[`E${status}`] = failure(`Error kind ${kindsAt(status).join(', ')}`);
  return {
    schemas,
    responses,
    parameters: {
      SessionKey: {
        name: 'X-Session-Key',
        in: 'header',
        description:
          'Names the session (its browser, tabs, files and library). Give this or ?session=, not both.',
        schema: { type: 'string', pattern: NAME.source },
      },
      session: {
        name: 'session',
        in: 'query',
        description: 'Names the session, as X-Session-Key does',
        schema: { type: 'string', pattern: NAME.source },
      },
      detail: {
        name: 'detail',
        in: 'query',
        description:
          'full (default): the whole ActionResult; compact: what a model acts on, leaving out what the caller already knows',
        schema: { type: 'string', enum: [...DETAILS], default: 'full' },
      },
      XBrowser: {
        name: 'X-Browser',
        in: 'header',
        description:
          "Browser this caller asks for, over the server's BROWSER and under a browser open names; used by the session's next browser",
        schema: { type: 'string', enum: [...BROWSER_NAMES] },
      },
      browser: {
        name: 'browser',
        in: 'query',
        description: 'Browser, as X-Browser',
        schema: { type: 'string', enum: [...BROWSER_NAMES] },
      },
      XVersion: {
        name: 'X-Version',
        in: 'header',
        description:
          'Browser version this caller asks for, sent with the next browser it opens; the local backend runs its installed browser and refuses another (501 unsupported), as open’s version',
        schema: { type: 'string' },
      },
      version: {
        name: 'version',
        in: 'query',
        description: 'Browser version, as X-Version',
        schema: { type: 'string' },
      },
      IfMatch: {
        name: 'If-Match',
        in: 'header',
        description: 'The revision (ETag) the write expects; another answers 412 conflict',
        schema: { type: 'string' },
      },
    },
    securitySchemes: {
      callerToken: {
        type: 'http',
        scheme: 'bearer',
        description:
          'SWIFTBROWSE_TOKEN, needed when the server is started with one (always on a non-loopback bind)',
      },
      operatorToken: {
        type: 'http',
        scheme: 'bearer',
        description:
          'SWIFTBROWSE_ADMIN_TOKEN for /admin, /logs and /viewer; unset, they answer only on a loopback HOST without SWIFTBROWSE_TOKEN',
      },
      operatorCookie: {
        type: 'apiKey',
        in: 'cookie',
        name: 'swiftbrowse_operator',
        description: 'Set by opening /viewer?token=<SWIFTBROWSE_ADMIN_TOKEN> once in a browser',
      },
    },
  };
}

/** POST /browser/<op> for every registered op: the same registry the route dispatches on. */
function opPaths(ops: Iterable<OpDefinition>): Json {
  return Object.fromEntries(
    [...ops].map((op) => [
      `/browser/${op.name}`,
      { post: opOperation(op, `browser_${op.name}`, opTag(op)) },
    ]),
  );
}

/** Moves every `$defs` an operation's schemas carry into components.schemas, named by operation. */
function liftOperationDefs(paths: Json, schemas: Json): void {
  for (const item of Object.values(paths) as Json[]) {
    for (const [method, operation] of Object.entries(item)) {
      const op = operation as Json;
      const lift = (node: unknown): unknown => {
        if (Array.isArray(node)) return node.map(lift);
        if (typeof node !== 'object' || node === null) return node;
        const own =
          '$defs' in node
            ? hoistDefs(
                node as Json,
                `${String(op.operationId)}.`,
                schemas,
                '#/components/schemas/',
              )
            : (node as Json);
        return Object.fromEntries(Object.entries(own).map(([k, v]) => [k, lift(v)]));
      };
      item[method] = lift(op);
    }
  }
}

/** The OpenAPI 3.1 document of `app`: its documented routes plus one path per op. */
export async function openApiDocument(
  app: Hono,
  ops: Iterable<OpDefinition>,
  version: string,
): Promise<Json> {
  const options: Partial<GenerateSpecOptions> = {
    // Our documented routes include /openapi.json; undocumented ones are left out anyway.
    excludeStaticFile: false,
    documentation: {
      info: {
        title: 'SwiftBrowse',
        version,
        description:
          'Browser automation for AI agents and test engineers. Every op answers the same ActionResult; errors carry a kind, a message naming the next move, and the HTTP status of their kind.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
      security: [{ callerToken: [] }],
      components: components() as GenerateSpecOptions['documentation']['components'],
      paths: opPaths(ops) as GenerateSpecOptions['documentation']['paths'],
    },
  };
  const doc = (await generateSpecs(app, options)) as unknown as Json;
  const comps = doc.components as Json;
  liftOperationDefs(doc.paths as Json, comps.schemas as Json);
  return doc;
}

/** The server URL a caller reaches the API at: PUBLIC_URL (or the request's origin) and the prefix. */
function serverUrl(c: Context, publicUrl: string | undefined, prefix: string): string {
  const base = publicUrl?.replace(/\/+$/, '') ?? new URL(c.req.url).origin;
  return `${base}${prefix}`;
}

/**
 * `GET /openapi.json`, `GET /openapi.yaml` and the reference page. The document is built once, on
 * first request, when every route is declared; only `servers` follows the request.
 */
export function mountOpenApi(
  app: Hono,
  ops: ReadonlyMap<string, OpDefinition>,
  settings: { version: string; publicUrl?: string; routePrefix: string },
): void {
  let built: Promise<Json> | undefined;
  const document = async (c: Context): Promise<Json> => {
    built ??= openApiDocument(app, ops.values(), settings.version);
    const servers = [{ url: serverUrl(c, settings.publicUrl, settings.routePrefix) }];
    const { openapi, info, servers: _none, ...rest } = await built;
    return { openapi, info, servers, ...rest };
  };
  const described = {
    tag: 'service' as const,
    access: 'open' as const,
  };
  app.get(
    '/openapi.json',
    routeDoc({
      ...described,
      id: 'openapi_json',
      summary: 'This OpenAPI 3.1 document, as JSON',
      answers: { 200: { description: 'The document', content: json({ type: 'object' }) } },
    }),
    async (c) => c.json(await document(c)),
  );
  app.get(
    '/openapi.yaml',
    routeDoc({
      ...described,
      id: 'openapi_yaml',
      summary: 'This OpenAPI 3.1 document, as YAML',
      answers: {
        200: {
          description: 'The document',
          content: { 'application/yaml': { schema: { type: 'string' } } },
        },
      },
    }),
    async (c) =>
      // No aliases: some importers do not follow YAML anchors.
      c.body(stringify(await document(c), { aliasDuplicateObjects: false }), 200, {
        'content-type': 'application/yaml; charset=utf-8',
      }),
  );
  mountReferencePage(app);
}
