// user:pass@ in a URL is a credential; the lookbehind keeps XPaths such as //input[@name='q'] intact.
// The match runs to the last @ before the host, so a password holding an @ goes too.
const URL_CREDENTIALS = /(?<=[a-z][a-z0-9+.-]*:\/\/)[^\s/?#'"<>]+@/gi;

const NAMED_ENTITIES: Record<string, string[]> = {
  '&': ['&amp;'],
  '<': ['&lt;'],
  '>': ['&gt;'],
  '"': ['&quot;'],
  "'": ['&apos;'],
};
const JSON_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
/** Hex digits in either case: `%2f` and `%2F` are one byte. */
const anyCaseHex = (hex: string) =>
  hex.replace(/[a-f]/gi, (d) => `[${d.toLowerCase()}${d.toUpperCase()}]`);

/**
 * Every way one character of a value may be written in text the server emits. The raw character
 * comes last: an alternation takes the first form that fits, and `%` before `%25` (or `&` before
 * `&amp;`) would leave the rest of the encoding behind (`[secret:…]25`).
 */
function characterForms(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const bytes = [...Buffer.from(ch, 'utf8')];
  const forms = [bytes.map((b) => `%${anyCaseHex(b.toString(16).padStart(2, '0'))}`).join('')];
  if (ch === ' ') forms.push('\\+');
  forms.push(`&#0*${cp};`, `&#[xX]0*${anyCaseHex(cp.toString(16))};`);
  for (const named of NAMED_ENTITIES[ch] ?? []) forms.push(escapeRegex(named));
  if (JSON_ESCAPES[ch]) forms.push(escapeRegex(JSON_ESCAPES[ch]));
  if (cp <= 0xffff) forms.push(`\\\\u${anyCaseHex(cp.toString(16).padStart(4, '0'))}`);
  forms.push(escapeRegex(ch));
  return `(?:${forms.join('|')})`;
}

/** Shorter base64 or hex forms are left out: they would match ordinary text by chance. */
const MIN_ENCODED_CHARS = 8;

/** A base64 character in the standard or URL-safe alphabet, URL-encoded or not. */
function base64Char(c: string): string {
  if (c === '+') return '(?:\\+|-|%2[bB])';
  if (c === '/') return '(?:\\/|_|%2[fF])';
  if (c === '=') return '(?:=|%3[dD])';
  return c;
}

/**
 * The value's bytes in base64: the whole encoding of the value alone (padding optional), then the
 * characters it fixes wherever it starts inside a longer encoded text (`user:password` in a Basic
 * header), for each of the three byte alignments.
 */
function base64Forms(bytes: Buffer): string[] {
  const forms: string[] = [];
  const whole = bytes.toString('base64').replace(/=+$/, '');
  if (whole.length >= MIN_ENCODED_CHARS)
    forms.push(`${[...whole].map(base64Char).join('')}(?:=|%3[dD]){0,2}`);
  for (let lead = 0; lead < 3; lead++) {
    const encoded = Buffer.concat([Buffer.alloc(lead), bytes]).toString('base64');
    // Characters wholly made of the value's bits: from the first after the lead bytes to the last
    // before the value's final partial group.
    const first = Math.ceil((lead * 8) / 6);
    const end = Math.floor(((lead + bytes.length) * 8) / 6);
    const core = encoded.slice(first, end);
    if (core.length >= MIN_ENCODED_CHARS) forms.push([...core].map(base64Char).join(''));
  }
  return forms;
}

/** The value's bytes in hex, either case. */
function hexForm(bytes: Buffer): string[] {
  const hex = bytes.toString('hex');
  return hex.length >= MIN_ENCODED_CHARS ? [anyCaseHex(hex)] : [];
}

/**
 * The value in any mix of raw, URL-encoded (also `+` for space), HTML-escaped and JSON-escaped,
 * or its UTF-8 bytes in base64 (standard, URL-safe, URL-encoded) or hex.
 */
function valuePattern(value: string): RegExp {
  const bytes = Buffer.from(value, 'utf8');
  const forms = [[...value].map(characterForms).join(''), ...base64Forms(bytes), ...hexForm(bytes)];
  return new RegExp(forms.map((f) => `(?:${f})`).join('|'), 'g');
}

interface Bound {
  pattern: RegExp;
  marker: string;
}

/**
 * The values bound in one session (typed from secrets): kept in this process's memory only, for
 * the session's life, so that every text the server emits can be scrubbed of them. Never stored.
 */
export class BoundValues {
  private readonly values = new Map<string, Bound>();

  /** Remembers a value typed from `label` (`name/key`); it is scrubbed from then on. */
  add(value: string, label: string): void {
    if (value === '' || this.values.has(value)) return;
    const safe = /^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/.test(label) ? label : '';
    this.values.set(value, {
      pattern: valuePattern(value),
      marker: safe ? `[secret:${safe}]` : '[secret]',
    });
    // Longest first, so a value containing another is replaced whole.
    const sorted = [...this.values].sort((a, b) => b[0].length - a[0].length);
    this.values.clear();
    for (const [k, v] of sorted) this.values.set(k, v);
  }

  get size(): number {
    return this.values.size;
  }

  /** Whether `text` carries a bound value in any form (a URL after a GET login form). */
  taints(text: string): boolean {
    for (const { pattern } of this.values.values()) {
      pattern.lastIndex = 0;
      if (pattern.test(text)) return true;
    }
    return false;
  }

  replaceIn(text: string): string {
    let out = text;
    for (const { pattern, marker } of this.values.values()) out = out.replace(pattern, marker);
    return out;
  }
}

function isEncodedImage(value: Record<string, unknown>): boolean {
  return typeof value.base64 === 'string' && typeof value.content_type === 'string';
}

function scrubString(text: string, bound?: BoundValues): string {
  const stripped = text.replace(URL_CREDENTIALS, '');
  return bound && bound.size > 0 ? bound.replaceIn(stripped) : stripped;
}

/**
 * The one scrub every emitter uses (results, errors, logs, reports, JUnit/HTML, stored URLs):
 * removes credentials embedded in URLs and every value bound in the session (`bound`), in raw,
 * URL-encoded, HTML-escaped and JSON-escaped forms. A string comes back scrubbed; an object or
 * array comes back as a scrubbed copy (every string in it, keys included). Image bytes
 * (`{content_type, base64}`) are left alone: they are pixels, and a short value could match by
 * chance and corrupt them.
 */
export function scrub<T>(value: T, bound?: BoundValues): T {
  if (typeof value === 'string') return scrubString(value, bound) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => scrub(v, bound)) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
    return value;
  const record = value as Record<string, unknown>;
  const image = isEncodedImage(record);
  return Object.fromEntries(
    Object.entries(record).map(([k, v]) => [
      scrubString(k, bound),
      image && k === 'base64' ? v : scrub(v, bound),
    ]),
  ) as T;
}
