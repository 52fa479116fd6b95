import type { z } from 'zod';
import { OpError } from './errors.js';

function pathOf(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

function sentence(op: string, keys: string[], issue: z.core.$ZodIssue): string {
  const at = pathOf(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const where = at ? `${at} ` : '';
      const takes = at ? '' : ` — ${op} takes ${keys.join(', ')}`;
      return `unknown argument ${where}${issue.keys.map((k) => JSON.stringify(k)).join(', ')}${takes}`;
    }
    case 'invalid_type':
      if (issue.input === undefined) return `missing ${at || 'arguments'} (${issue.expected})`;
      return `${at || 'arguments'}: expected ${issue.expected}, got ${typeof issue.input === 'object' ? (Array.isArray(issue.input) ? 'array' : 'object') : typeof issue.input}`;
    case 'invalid_value':
      return `${at}: expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union': {
      // Report the branch that got furthest: its issue has the longest path.
      const inner = issue.errors.flat().sort((a, b) => b.path.length - a.path.length)[0];
      if (inner)
        return sentence(op, keys, {
          ...inner,
          path: [...issue.path, ...inner.path],
        } as z.core.$ZodIssue);
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
  const issues = result.error.issues.slice(0, 3).map((i) => sentence(op, keys, i));
  throw new OpError('invalid_argument', `${op}: ${issues.join('; ')}.`, {
    details: { expected_keys: keys },
  });
}
