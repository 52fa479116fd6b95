import { z } from 'zod';
import { jsonObject } from './schema.js';

/** Keys that choose how an element is found; a target has exactly one (DESIGN §3.3). */
export const STRATEGIES = [
  'ref',
  'role',
  'text',
  'label',
  'placeholder',
  'testid',
  'css',
  'xpath',
] as const;
export type Strategy = (typeof STRATEGIES)[number];

const text = (what: string) => z.string().min(1).describe(`${what}: exact text, or /regex/flags`);

/** A target (DESIGN §3.3). Written out because the schema is recursive (`within`, `frame`). */
export interface Target {
  ref?: string;
  role?: string;
  name?: string;
  text?: string;
  label?: string;
  placeholder?: string;
  testid?: string;
  css?: string;
  xpath?: string;
  nth?: number;
  near?: string;
  within?: Target;
  frame?: Target;
}

const targetShape = z.strictObject({
  ref: z
    .string()
    .min(1)
    .describe('Address from the latest snapshot, find or outline of this page')
    .optional(),
  role: z.string().min(1).describe('ARIA role, e.g. button, link, textbox, checkbox').optional(),
  name: text('Accessible name, with role').optional(),
  text: text('Visible text of the element').optional(),
  label: text('Label of a form control').optional(),
  placeholder: text('Placeholder of an input').optional(),
  testid: z.string().min(1).describe('Value of data-testid').optional(),
  css: z.string().min(1).describe('CSS selector; reaches into open shadow roots').optional(),
  xpath: z.string().min(1).describe('XPath expression').optional(),
  nth: z.coerce
    .number()
    .int()
    .min(0)
    .describe('0-based index when several elements match')
    .optional(),
  near: text('Prefer the candidate sharing the smallest container with this text').optional(),
  get within(): z.ZodOptional<z.ZodType<Target>> {
    return targetSchema.optional().describe('Search only inside this element');
  },
  get frame(): z.ZodOptional<z.ZodType<Target>> {
    return targetSchema.optional().describe('The iframe to search in');
  },
});

/** The target object itself (before a JSON string is parsed); published in its short form. */
export const targetObject = targetShape.superRefine((t, ctx) => {
  const used = STRATEGIES.filter((k) => t[k] !== undefined);
  if (used.length !== 1) {
    ctx.addIssue({
      code: 'custom',
      message:
        used.length === 0
          ? `a target needs exactly one of ${STRATEGIES.join(', ')}, e.g. {"role": "button", "name": "Save"} or {"css": "button.go"}`
          : `a target takes exactly one of ${STRATEGIES.join(', ')}; this one has ${used.join(' and ')}`,
    });
  }
  if (t.name !== undefined && t.role === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: '"name" goes with "role", e.g. {"role": "button", "name": "Save"}',
    });
  }
});

export const targetSchema = jsonObject(targetObject) as unknown as z.ZodType<Target>;

export function strategyOf(target: Target): Strategy {
  return STRATEGIES.find((k) => target[k] !== undefined) ?? 'css';
}

/** True when a target is only valid on the page it was read from. */
export function usesRef(target: Target): boolean {
  return (
    target.ref !== undefined ||
    (target.within ? usesRef(target.within) : false) ||
    (target.frame ? usesRef(target.frame) : false)
  );
}

/** A short human description: `role=button "Save"`, `css=#go`. */
export function describeTarget(target: Target): string {
  const s = strategyOf(target);
  const base =
    s === 'role'
      ? `role=${target.role}${target.name ? ` "${target.name}"` : ''}`
      : `${s}=${JSON.stringify(target[s])}`;
  const mods = [
    target.nth !== undefined ? `nth=${target.nth}` : '',
    target.near ? `near "${target.near}"` : '',
    target.within ? `within ${describeTarget(target.within)}` : '',
    target.frame ? `in frame ${describeTarget(target.frame)}` : '',
  ].filter(Boolean);
  return [base, ...mods].join(' ');
}
