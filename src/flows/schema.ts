import { z } from 'zod';
import { argsJsonSchema } from '../core/json-schema.js';
import { DEFAULT_FLOW_TIMEOUT_S, flowStepSchema, MAX_FLOW_TIMEOUT_S } from './document.js';
import type { StepOp } from './validate.js';

type Json = Record<string, unknown>;

/** Moves an op's `$defs` to the document's, renaming them so two ops cannot collide. */
function hoist(schema: Json, prefix: string, defs: Json): Json {
  const own = (schema.$defs ?? {}) as Json;
  const { $defs: _d, ...rest } = schema;
  const rename = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rename);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')
          ? `#/$defs/${prefix}${v.slice('#/$defs/'.length)}`
          : rename(v),
      ]),
    );
  };
  for (const [name, def] of Object.entries(own)) defs[`${prefix}${name}`] = rename(def);
  return rename(rest) as Json;
}

/**
 * The JSON Schema of a whole flow document (GET /schemas/flow, the MCP resource): each step is
 * one of the step ops with that op's own published argument schema, so nothing is written twice.
 */
export function flowJsonSchema(ops: Iterable<StepOp & { summary?: string }>): Json {
  const stepKeys = (z.toJSONSchema(flowStepSchema, { io: 'input' }) as Json).properties as Json;
  const defs: Json = {};
  const steps = [...ops]
    .filter((op) => op.step)
    .map((op) => ({
      type: 'object',
      ...(op.summary ? { description: op.summary } : {}),
      properties: {
        id: stepKeys.id,
        op: { const: op.name },
        args: hoist(argsJsonSchema(op.args), `${op.name}.`, defs),
        on_error: stepKeys.on_error,
        return: stepKeys.return,
        note: stepKeys.note,
      },
      required: ['op'],
      additionalProperties: false,
    }));
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'SwiftBrowse flow',
    description:
      'A saved route flown by the server in the caller’s browser. In any string argument ${name} reads a parameter and $${ writes a literal ${. A step is exactly an op call; ref targets are refused.',
    type: 'object',
    properties: {
      name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' },
      description: { type: 'string' },
      urls: {
        type: 'array',
        items: { type: 'string' },
        description:
          'Globs of the pages the flow applies to ("https://admin.example.com/*", "*" for all); discovery only, never a gate',
      },
      timeout: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_FLOW_TIMEOUT_S,
        default: DEFAULT_FLOW_TIMEOUT_S,
        description: 'Seconds for the whole run',
      },
      parameters: {
        type: 'object',
        description:
          'JSON Schema of the run parameters: {type: object, properties: {name: {type, description, default}}, required: [...]}',
        properties: {
          type: { const: 'object' },
          properties: { type: 'object', additionalProperties: { type: 'object' } },
          required: { type: 'array', items: { type: 'string' } },
        },
        required: ['type'],
      },
      steps: { type: 'array', minItems: 1, items: { oneOf: steps } },
    },
    required: ['name', 'steps'],
    additionalProperties: false,
    ...(Object.keys(defs).length ? { $defs: defs } : {}),
  };
}
