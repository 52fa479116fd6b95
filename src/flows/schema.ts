import { z } from 'zod';
import { argsJsonSchema, hoistDefs } from '../core/json-schema.js';
import { DEFAULT_FLOW_TIMEOUT_S, flowStepSchema, MAX_FLOW_TIMEOUT_S } from './document.js';
import type { StepOp } from './validate.js';

type Json = Record<string, unknown>;

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
        args: hoistDefs(argsJsonSchema(op.args), `${op.name}.`, defs),
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
