import type { MiddlewareHandler } from 'hono';
import { describeRoute, type DescribeRouteOptions } from 'hono-openapi';
import { ERROR_KINDS } from '../../core/errors.js';
import { argsJsonSchema } from '../../core/json-schema.js';
import { NAME } from '../../core/names.js';
import type { OpDefinition } from '../../ops/define.js';

type Json = Record<string, unknown>;

/** The document's tags, one per room a caller or operator works with (DESIGN §2). */
export const TAGS = {
  browser:
    'Operations on the session’s browser: POST /browser/<op>, each answering an ActionResult',
  batch: 'Several ops in one round trip, stopping at the first failure unless continue_on_error',
  flows: 'Saved flows: the caller’s library (global when no session is named) and runs',
  files: 'The session’s files and their signed links',
  secrets: 'The secrets catalogue: names, keys and allowed origins, never a value',
  admin: 'The operator’s API: every session, file, flow library, setting and the secret audit',
  logs: 'Per-session event logs, frames and the viewer (operator)',
  service: 'Health, readiness, the op listing and this document',
} as const;
export type Tag = keyof typeof TAGS;

/**
 * Who may call a route: `caller` needs SWIFTBROWSE_TOKEN when it is set, `operator` needs
 * SWIFTBROWSE_ADMIN_TOKEN (operator.ts), `open` needs nothing (app.ts's open paths).
 */
export type Access = 'caller' | 'operator' | 'open';

const SECURITY: Record<Access, Json[]> = {
  caller: [{ callerToken: [] }],
  operator: [{ operatorToken: [] }, { operatorCookie: [] }],
  open: [],
};

export const ref = (kind: 'schemas' | 'parameters' | 'responses', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** A JSON body of `schema`. */
export const json = (schema: Json, example?: unknown) => ({
  'application/json': { schema, ...(example === undefined ? {} : { example }) },
});

export const ERROR_STATUSES = [
  ...new Set<number>(Object.values(ERROR_KINDS).map((k) => k.http)),
].sort((a, b) => a - b);

/** The error kinds answered with `status`, from the one table in core/errors.ts. */
export function kindsAt(status: number): string[] {
  return Object.entries(ERROR_KINDS)
    .filter(([, k]) => k.http === status)
    .map(([kind]) => kind);
}

/** A path parameter that is a session, flow or library name (core/names.ts). */
export const nameParam = (name: string, description: string): Json => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', pattern: NAME.source },
});

export const pathParam = (name: string, description: string): Json => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});

export const queryParam = (name: string, description: string, schema: Json): Json => ({
  name,
  in: 'query',
  description,
  schema,
});

/** The request parameters that name the caller's session (DESIGN §6). */
export const SESSION_PARAMS: Json[] = [
  ref('parameters', 'SessionKey'),
  ref('parameters', 'session'),
];

/** A non-op route's documentation, declared beside the route it describes. */
export interface RouteDoc {
  /** The operationId: snake_case, unique and stable (client generators name methods by it). */
  id: string;
  summary: string;
  description?: string;
  tag: Tag;
  access: Access;
  parameters?: Json[];
  body?: { description?: string; content: Json; required?: boolean };
  /** The route's own answers by status (its successes, and a 503 /ready); JSON of any shape by default. */
  answers: Record<number, { description: string; content?: Json }>;
  /** Statuses the route answers besides the guards' (401 and 403); each cites its error kinds. */
  fails?: number[];
}

/** The error responses a route may meet: its own, the guards' (Host, Origin, token), always 403. */
export function failureResponses(access: Access, fails: readonly number[] = []): Json {
  const statuses = new Set([...fails, 403, ...(access === 'open' ? [] : [401])]);
  return Object.fromEntries(
    [...statuses].sort((a, b) => a - b).map((s) => [String(s), ref('responses', `E${s}`)]),
  );
}

/**
 * Documents a route where it is declared: `app.get(path, routeDoc({...}), handler)`. The
 * document is generated from these (openapi.ts), so a route and its description are one place.
 */
export function routeDoc(doc: RouteDoc): MiddlewareHandler {
  const responses = {
    ...Object.fromEntries(
      Object.entries(doc.answers).map(([status, r]) => [
        status,
        { description: r.description, content: r.content ?? json({ type: 'object' }) },
      ]),
    ),
    ...failureResponses(doc.access, doc.fails),
  };
  const spec = {
    operationId: doc.id,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    security: SECURITY[doc.access],
    ...(doc.parameters ? { parameters: doc.parameters } : {}),
    ...(doc.body ? { requestBody: { required: doc.body.required ?? true, ...doc.body } } : {}),
    responses,
  };
  // The one cast: our schemas are plain JSON Schema 2020-12, which openapi-types spells narrower.
  return describeRoute(spec as unknown as DescribeRouteOptions);
}

/** routeDoc for a file of routes that share a tag and an access rule. */
export const routeDocs =
  (tag: Tag, access: Access) =>
  (doc: Omit<RouteDoc, 'tag' | 'access'>): MiddlewareHandler =>
    routeDoc({ ...doc, tag, access });

/** What an op's declaration says about it, for a reader choosing one. */
function opDescription(op: OpDefinition): string {
  const facts = [
    op.acts
      ? 'Acts on the page: accepts expect, reports data.changes, attaches a screenshot on failure.'
      : op.readOnly
        ? 'Reads only.'
        : '',
    op.step ? 'May be a flow step.' : '',
    op.browser ? 'Opens the session’s browser if it has none.' : '',
  ];
  return [
    `${op.summary}. Answers the ActionResult: 200 when ok, otherwise the status of its error kind.`,
    ...facts,
  ]
    .filter(Boolean)
    .join(' ');
}

const BATCH_EXAMPLE = {
  steps: [
    { op: 'goto', args: { url: 'http://127.0.0.1:8765/demo/login.html' } },
    { op: 'fill', args: { target: { label: 'Email' }, value: 'ada@example.com' } },
    { op: 'click', args: { target: { role: 'button', name: 'Sign in' } } },
  ],
};

/** The tag of an op's route: batch for the op that runs a list of others, browser for the rest. */
export const opTag = (op: OpDefinition): Tag => (op.runsSteps ? 'batch' : 'browser');

/**
 * An op as an OpenAPI operation, from its one declaration (DESIGN §1.1): summary, argument
 * schema, the ActionResult, and every status an error kind maps to. `body` is false for the
 * routes that call an op with no arguments (GET /browser is status).
 */
export function opOperation(op: OpDefinition, id: string, tag: Tag, body = true): Json {
  const args = argsJsonSchema(op.args);
  const { $defs, ...own } = args;
  // HTTP takes a bare JSON array as a batch's steps (app.ts); $defs stay at the root both read.
  const schema = op.runsSteps
    ? { anyOf: [own, (own.properties as Record<string, Json>).steps], ...($defs ? { $defs } : {}) }
    : args;
  return {
    operationId: id,
    summary: op.summary,
    description: opDescription(op),
    tags: [tag],
    security: SECURITY.caller,
    parameters: [
      ...SESSION_PARAMS,
      ref('parameters', 'detail'),
      ref('parameters', 'XBrowser'),
      ref('parameters', 'browser'),
      ref('parameters', 'XVersion'),
      ref('parameters', 'version'),
    ],
    ...(body
      ? {
          requestBody: {
            required: false,
            description: `${op.name}'s arguments`,
            content: json(schema, op.runsSteps ? BATCH_EXAMPLE : undefined),
          },
        }
      : {}),
    responses: {
      '200': ref('responses', 'ActionResult'),
      ...failureResponses('caller', ERROR_STATUSES),
    },
  };
}

/** Documents a route that calls an op with no arguments (GET /browser, GET /files…). */
export const opRouteDoc = (op: OpDefinition | undefined, id: string, tag: Tag): MiddlewareHandler =>
  describeRoute((op ? opOperation(op, id, tag, false) : { hide: true }) as DescribeRouteOptions);
