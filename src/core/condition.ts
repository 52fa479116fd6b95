import { z } from 'zod';
import { jsonObject, millis } from './schema.js';
import { targetSchema, type Target } from './target.js';

/** Condition types (DESIGN §3.5); each is written as one key of a short object. */
export const CONDITION_TYPES = [
  'url_contains',
  'url_matches',
  'title_contains',
  'text_visible',
  'text_gone',
  'visible',
  'hidden',
  'count',
  'value',
  'js',
] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

const TARGET_TYPES = new Set<ConditionType>(['visible', 'hidden', 'count', 'value']);

const conditionKeys = {
  url_contains: z.string().min(1).describe('The URL contains this text').optional(),
  url_matches: z
    .string()
    .min(1)
    .describe('The URL matches this glob (* any run, ? one character)')
    .optional(),
  title_contains: z.string().min(1).describe('The title contains this text').optional(),
  text_visible: z.string().min(1).describe('This text is visible on the page').optional(),
  text_gone: z.string().min(1).describe('This text is not visible on the page').optional(),
  visible: targetSchema.optional().describe('This element is visible'),
  hidden: targetSchema.optional().describe('This element is hidden or absent'),
  count: targetSchema.optional().describe('Number of matching elements; give equals'),
  value: targetSchema.optional().describe('A control holds a value; give equals'),
  equals: z.union([z.string(), z.number()]).optional().describe('Expected count or value'),
  js: z.string().min(1).describe('Script body that returns exactly true or false').optional(),
  stable_for: millis('The condition must hold continuously for this many ms').optional(),
};

export const conditionShape = z.strictObject(conditionKeys);
type RawCondition = z.infer<typeof conditionShape>;

/** A condition as reported in `verification.checks`. */
export interface Condition {
  type: ConditionType;
  value?: string | number;
  target?: Target;
  equals?: string | number;
  stable_for?: number;
}

function normalise(raw: RawCondition, ctx: z.RefinementCtx): Condition {
  const used = CONDITION_TYPES.filter((k) => raw[k] !== undefined);
  if (used.length !== 1) {
    ctx.addIssue({
      code: 'custom',
      message:
        used.length === 0
          ? `a condition needs one of ${CONDITION_TYPES.join(', ')}, e.g. {"url_contains": "dashboard"} or {"visible": {"role": "dialog"}}`
          : `a condition takes one of ${CONDITION_TYPES.join(', ')}; this one has ${used.join(' and ')} — give a list for several`,
    });
    return z.NEVER;
  }
  const type = used[0];
  if ((type === 'count' || type === 'value') && raw.equals === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `"${type}" needs "equals", e.g. {"${type}": {"css": "li"}, "equals": 3}`,
    });
    return z.NEVER;
  }
  if (raw.equals !== undefined && type !== 'count' && type !== 'value') {
    ctx.addIssue({ code: 'custom', message: '"equals" goes with "count" or "value"' });
    return z.NEVER;
  }
  const condition: Condition = { type };
  if (TARGET_TYPES.has(type)) condition.target = raw[type] as Target;
  else condition.value = raw[type] as string;
  if (raw.equals !== undefined)
    condition.equals = type === 'count' ? Number(raw.equals) : String(raw.equals);
  if (raw.stable_for !== undefined) condition.stable_for = raw.stable_for;
  return condition;
}

export const conditionSchema = jsonObject(conditionShape.transform(normalise));

/** `expect`: one condition or a list, all of which must hold (published by core/json-schema.ts). */
export const expectSchema = jsonObject(
  z.union([conditionSchema.transform((c) => [c]), z.array(conditionSchema).min(1)]),
);

/** The short, human form of a condition, for messages: `url_contains "dashboard"`. */
export function describeCondition(c: Condition): string {
  if (c.type === 'js') return 'js condition';
  const subject = c.target ? JSON.stringify(c.target) : JSON.stringify(c.value);
  return `${c.type} ${subject}${c.equals !== undefined ? ` equals ${JSON.stringify(c.equals)}` : ''}`;
}

/** What a report shows in place of a js condition's script: never quoted (DESIGN §3.5). */
export const SCRIPT_NOT_SHOWN = '[script not shown]';

/**
 * A copy of any report value with every js condition's script replaced by {@link SCRIPT_NOT_SHOWN}:
 * the one place run reports, the `report` op and test reports drop author scripts.
 */
export function withoutScripts<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutScripts) as T;
  if (typeof value !== 'object' || value === null) return value;
  const v = value as Record<string, unknown>;
  const copy = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutScripts(x)]));
  if (v.type === 'js' && typeof v.value === 'string') copy.value = SCRIPT_NOT_SHOWN;
  // The short form an author writes: {js: "return …"}.
  if (typeof v.js === 'string') copy.js = SCRIPT_NOT_SHOWN;
  return copy as T;
}

/** Glob (`*`, `?`) to an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}
