import { z } from 'zod';
import { conditionShape, CONDITION_TYPES, expectSchema } from './condition.js';
import { STRATEGIES, targetObject } from './target.js';

type Json = Record<string, unknown>;

// Targets and conditions recur in every acting op; spelled out in full they cost a model about
// 3,000 characters per tool on every turn. Their short form is a sentence built from the same
// lists the validators use, and runOp still checks every call in full.
const CONDITION = `one of ${CONDITION_TYPES.join(', ')}. url_*, title_contains, text_* take a string; visible, hidden, count, value take a target (count and value also "equals"); js takes a script body returning true or false; optional stable_for (ms)`;

const EXPECT_DOC = `Verify the outcome: a condition or a list of them, all of which must hold. Condition: ${CONDITION}. E.g. {"url_contains": "dashboard"}, [{"visible": {"role": "dialog"}}, {"text_visible": "Saved", "stable_for": 500}]`;
const TARGET_DOC = `Element target: exactly one of ${STRATEGIES.join(', ')} (role may add name; text values are exact or /regex/flags); optional nth (0-based), near (text), within (a target), frame (a target naming an iframe). E.g. {"role": "button", "name": "Save"}, {"label": "Email"}, {"ref": "AEDBa"}`;

const SHORT_FORMS = new Map<z.ZodType, Json>([
  [
    expectSchema,
    {
      type: ['object', 'array', 'string'],
      description: EXPECT_DOC,
      // The listing describes every condition key on assert: here it points there.
      listed: `Verify the outcome: a condition (the keys assert takes) or a list, all must hold. E.g. {"url_contains": "dashboard"}, [{"visible": {"role": "dialog"}}, {"text_visible": "Saved", "stable_for": 500}]`,
    },
  ],
  [targetObject, { type: ['object', 'string'], description: TARGET_DOC }],
  [
    conditionShape,
    {
      type: ['object', 'string'],
      description: `Condition: ${CONDITION}. E.g. {"url_contains": "dashboard"}, {"visible": {"role": "dialog"}}`,
      // Listed only where the condition keys are themselves listed (assert, wait_for).
      listed: 'One condition, written with the keys above',
    },
  ],
]);

/**
 * How a schema is published. `full`: every use of a target or condition carries its sentence
 * (GET /ops, OpenAPI, flow schema). `listed`: for a list read as a whole every turn (MCP tools):
 * a use with a description of its own keeps only that, the others carry the shared sentence, and
 * the lister says each sentence once.
 */
export type SchemaForm = 'full' | 'listed';

/**
 * The JSON Schema a zod schema is published with: an op's arguments (GET /ops, MCP tools,
 * `ops --json`, OpenAPI) and the ActionResult (OpenAPI).
 */
export function argsJsonSchema(schema: z.ZodType, form: SchemaForm = 'full'): Json {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      const short = SHORT_FORMS.get(ctx.zodSchema as unknown as z.ZodType);
      if (!short) return;
      const own = ctx.jsonSchema.description;
      for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Json)[key];
      if (form === 'listed') {
        // The JSON-string form is accepted for clients that send one, not advertised.
        const type = (short.type as string[]).filter((t) => t !== 'string');
        Object.assign(ctx.jsonSchema, {
          type: type.length === 1 ? type[0] : type,
          description: own ?? short.listed ?? short.description,
        });
        return;
      }
      const { listed: _listed, ...full } = short;
      Object.assign(
        ctx.jsonSchema,
        full,
        own ? { description: `${own}. ${short.description}` } : {},
      );
    },
  }) as Json;
  return json;
}

/**
 * Moves a schema's `$defs` into `defs` (a document's `$defs`, or OpenAPI's `components.schemas`
 * with `base` `#/components/schemas/`), renamed with `prefix` so two schemas cannot collide.
 */
export function hoistDefs(schema: Json, prefix: string, defs: Json, base = '#/$defs/'): Json {
  const own = (schema.$defs ?? {}) as Json;
  const { $defs: _d, ...rest } = schema;
  const rename = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rename);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')
          ? `${base}${prefix}${v.slice('#/$defs/'.length)}`
          : rename(v),
      ]),
    );
  };
  for (const [name, def] of Object.entries(own)) defs[`${prefix}${name}`] = rename(def);
  return rename(rest) as Json;
}
