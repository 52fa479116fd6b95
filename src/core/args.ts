import type { z } from 'zod';
import { OpError } from './errors.js';
import { STRATEGIES } from './target.js';

const isStrategy = (key: string) => (STRATEGIES as readonly string[]).includes(key);

function pathOf(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/** The value sent at `path`, undefined when nothing was: Zod's issue does not carry it. */
function sentAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function sentence(op: string, keys: string[], issue: z.core.$ZodIssue, input: unknown): string {
  const at = pathOf(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const where = at ? `${at} ` : '';
      // A target's key sent beside it instead of inside it (`{"css": "#name"}`) is said as such.
      const misplaced = !at && keys.includes('target') ? issue.keys.filter(isStrategy) : [];
      if (misplaced.length)
        return `${misplaced.map((k) => JSON.stringify(k)).join(', ')} goes inside target: {"target": {${misplaced.map((k) => `"${k}": …`).join(', ')}}}`;
      const takes = at ? '' : ` — ${op} takes ${keys.join(', ')}`;
      return `unknown argument ${where}${issue.keys.map((k) => JSON.stringify(k)).join(', ')}${takes}`;
    }
    case 'invalid_type': {
      const sent = sentAt(input, issue.path);
      if (sent === undefined) return `missing ${at || 'arguments'} (${issue.expected})`;
      return `${at || 'arguments'}: expected ${issue.expected}, got ${kindOf(sent)}`;
    }
    case 'invalid_value':
      return `${at}: expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union': {
      // Report the branch that got furthest: its issue has the longest path.
      const inner = issue.errors.flat().sort((a, b) => b.path.length - a.path.length)[0];
      if (inner)
        return sentence(
          op,
          keys,
          { ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue,
          input,
        );
      return `${at}: ${issue.message}`;
    }
    default:
      return at ? `${at}: ${issue.message}` : issue.message;
  }
}

/** Validates an op's arguments; a failure is one sentence naming what was expected. */
export function parseArgs<S extends z.ZodObject>(op: string, schema: S, raw: unknown): z.output<S> {
  const input = raw === undefined || raw === null ? {} : raw;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const keys = Object.keys(schema.shape);
  const issues = result.error.issues.slice(0, 3).map((i) => sentence(op, keys, i, input));
  throw new OpError('invalid_argument', `${op}: ${issues.join('; ')}.`, {
    details: { expected_keys: keys },
  });
}
