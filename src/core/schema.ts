import { z } from 'zod';

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

/** Milliseconds, given as a number or a numeric string (flows substitute `${…}` into strings). */
export const millis = (description: string) =>
  z.coerce.number().int().min(0).max(3_600_000).describe(description);
