import { z } from 'zod';
import { urlArgumentProblem } from './url-policy.js';

/** A closed set of values, accepted in any case (DESIGN §4). */
export function looseEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
    z.enum(values as unknown as { [K in T[number]]: K }),
  );
}

/** An object argument that a client sent as a JSON string is parsed (DESIGN §3.3). */
export function jsonObject<S extends z.ZodType>(schema: S) {
  return z.preprocess((v) => {
    if (typeof v !== 'string') return v;
    const trimmed = v.trim();
    if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return v;
    try {
      return JSON.parse(trimmed) as unknown;
    } catch {
      return v;
    }
  }, schema);
}

/**
 * A yes/no argument, also given as the string "true" or "false": numbers sent as strings are
 * coerced, and a flow substitutes `${…}` into strings, so booleans must be too.
 */
export const flag = () =>
  z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());

/** Milliseconds, given as a number or a numeric string (flows substitute `${…}` into strings). */
export const millis = (description: string) =>
  z.coerce.number().int().min(0).max(3_600_000).describe(description);

/** A URL to load (goto, open, tab_new): `javascript:` and what is no URL fail with the arguments, before a browser opens. */
export const navigationUrl = (description: string) =>
  z
    .string()
    .min(1)
    .superRefine((v, ctx) => {
      const problem = urlArgumentProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .describe(description);
