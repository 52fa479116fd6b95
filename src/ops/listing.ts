import { argsJsonSchema } from '../core/json-schema.js';
import type { OpDefinition } from './define.js';

/** Every op with its argument schema, as GET /ops, the MCP ops resource and `ops --json` show it. */
export function opListing(ops: Iterable<OpDefinition>) {
  return [...ops].map((op) => ({
    name: op.name,
    summary: op.summary,
    acts: op.acts,
    read_only: op.readOnly,
    flow_step: op.step,
    args: argsJsonSchema(op.args),
  }));
}
