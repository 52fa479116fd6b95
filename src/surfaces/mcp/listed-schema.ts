import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { argsJsonSchema } from '../../core/json-schema.js';
import type { OpDefinition } from '../../ops/define.js';

// Most clients re-send tools/list to the model on every turn, so the list is written for a reader
// who sees it whole: each thing said once, rare arguments named instead of spelled out. runOp still
// checks every call against the op's full schema, and swiftbrowse://ops publishes that schema.

type Json = Record<string, unknown>;
type InputSchema = Tool['inputSchema'];

/**
 * The arguments defineOp adds to every op (timeout) or acting op (diff, element_diff,
 * include_removed) are named once, in the instructions; `expect` is listed, as calls need it often.
 */
const LISTED_COMMON_ARGS = ['expect'];

/**
 * Arguments few calls need: left out of the listed schema, still accepted, named at the end of
 * their tool's description (`Also: …`). The set is by name, whichever op takes them.
 */
const RARE_ARGS = new Set([
  // open
  'backend',
  'version',
  'headless',
  'default_timeout',
  'navigation_timeout',
  'locale',
  'user_agent',
  'storage_state',
  'profile',
  'insecure',
  'record',
  'page_load_timeout',
  'script_timeout',
  'capabilities',
  // pointer and click refinements
  'button',
  'glide',
  'force',
  'activate',
  'modifiers',
  // reading buffers and budgets
  'clear',
  'limit',
  'resource_types',
  'max_chars',
  'mode',
  'reset',
  // captures: png, saved, is the default
  'format',
  'quality',
  'save',
  // evaluate in a frame
  'frame',
  // flows
  'document',
  'if_match',
  'verbose',
]);

/** Keywords that only validate: runOp enforces them, a model calling the tool does not need them. */
const VALIDATION_ONLY = new Set([
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'propertyNames',
  'additionalProperties',
  'default',
]);

/** A schema without validation-only keywords, its `$ref`s replaced by what they point at. */
function simplify(node: unknown, defs: Json): unknown {
  if (Array.isArray(node)) return node.map((n) => simplify(n, defs));
  if (!node || typeof node !== 'object') return node;
  const { $ref: ref, ...rest } = node as Json;
  // Listed forms of targets and conditions are not recursive, so inlining ends; the use's own
  // keywords (its description) win over the definition's.
  const out: Json =
    typeof ref === 'string' ? (simplify(defs[ref.replace('#/$defs/', '')], defs) as Json) : {};
  for (const [key, value] of Object.entries(rest)) {
    if (key === '$defs' || VALIDATION_ONLY.has(key)) continue;
    if (key === 'properties') {
      out[key] = Object.fromEntries(
        Object.entries(value as Json).map(([name, prop]) => [name, simplify(prop, defs)]),
      );
      continue;
    }
    out[key] = simplify(value, defs);
  }
  return out;
}

/** The op's schema as listed, and the rare arguments left out of it. */
function listedArgs(op: OpDefinition): { schema: InputSchema; rare: string[] } {
  const json = argsJsonSchema(op.args, 'listed');
  const schema = simplify(json, (json.$defs ?? {}) as Json) as InputSchema;
  const common = op.common.filter((k) => !LISTED_COMMON_ARGS.includes(k));
  const rare = Object.keys(schema.properties ?? {}).filter((k) => RARE_ARGS.has(k));
  for (const key of [...rare, ...common]) delete schema.properties?.[key];
  return { schema, rare };
}

/** Removes every description already given earlier in the list (`said` carries them across). */
function sayOnce(node: unknown, said: Set<string>): void {
  if (Array.isArray(node)) return node.forEach((n) => sayOnce(n, said));
  if (!node || typeof node !== 'object') return;
  const obj = node as Json;
  if (typeof obj.description === 'string') {
    if (said.has(obj.description)) delete obj.description;
    else said.add(obj.description);
  }
  for (const [key, value] of Object.entries(obj)) if (key !== 'description') sayOnce(value, said);
}

/**
 * Tools as listed: validation-only keywords dropped, rare arguments named in the description,
 * and each argument description said once across the list (in list order).
 */
export function listed(tools: { tool: Tool; op?: OpDefinition }[]): Tool[] {
  const said = new Set<string>();
  return tools.map(({ tool, op }) => {
    if (!op) {
      const schema = simplify(
        tool.inputSchema,
        (tool.inputSchema.$defs ?? {}) as Json,
      ) as InputSchema;
      sayOnce(schema, said);
      return { ...tool, inputSchema: schema };
    }
    const { schema, rare } = listedArgs(op);
    sayOnce(schema, said);
    const description = rare.length
      ? `${tool.description}. Also: ${rare.join(', ')}`
      : tool.description;
    return { ...tool, description, inputSchema: schema };
  });
}
