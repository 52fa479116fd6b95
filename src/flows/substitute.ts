/** `$${` (a literal `${`) or a `${reference}`, matched by one expression so one pass does both. */
const TOKEN = /\$\$\{|\$\{([^}]*)\}/g;

/** The names a string refers to as `${name}`; escapes (`$${`) are not references. */
export function referencesIn(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(TOKEN)) if (m[1] !== undefined) names.push(m[1]);
  return names;
}

/**
 * Substitutes supplied parameters into one string, in a single pass: what a value contains is
 * never read again, `$${` becomes `${`, and a name not supplied is left exactly as written.
 */
export function substituteText(text: string, values: ReadonlyMap<string, string>): string {
  return text.replace(TOKEN, (whole, name: string | undefined) => {
    if (name === undefined) return '${';
    return values.get(name) ?? whole;
  });
}

/** Applies `fn` to every string inside a JSON value, returning a copy. */
export function mapStrings(value: unknown, fn: (text: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, fn)]));
  return value;
}

/** Every string inside a JSON value. */
export function stringsIn(value: unknown): string[] {
  const out: string[] = [];
  mapStrings(value, (s) => {
    out.push(s);
    return s;
  });
  return out;
}

/** The parameter names a step's arguments read, each once, in the order they first appear. */
export function parametersRead(args: unknown): string[] {
  return [...new Set(stringsIn(args ?? {}).flatMap(referencesIn))];
}

/** A parameter value as text: substitution is text, and the step's own schema coerces it. */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
