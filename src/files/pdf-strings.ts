import { scrub, type BoundValues } from '../core/redact.js';

/**
 * Document-information and link strings of a PDF, as Chromium (Skia) writes them in plain,
 * uncompressed dictionaries: `/Title (…)` or `/Title <FEFF…>`. The title comes from the page
 * (`document.title`), a link's `/URI` from its href; either can carry a typed secret.
 */
const STRING_ENTRY =
  /\/(?:Title|Author|Subject|Keywords|Creator|Producer|URI)\s*(\((?:\\[\s\S]|[^\\()])*\)|<[0-9A-Fa-f\s]*>)/g;

const LITERAL_ESCAPES: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12 };

function literalBytes(body: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out.push(body.charCodeAt(i));
      continue;
    }
    const next = body[++i] ?? '';
    const octal = /^[0-7]{1,3}/.exec(body.slice(i, i + 3));
    if (octal) {
      out.push(parseInt(octal[0], 8) & 0xff);
      i += octal[0].length - 1;
    } else if (next in LITERAL_ESCAPES) out.push(LITERAL_ESCAPES[next]);
    else if (next !== '\n' && next !== '\r') out.push(next.charCodeAt(0));
  }
  return out;
}

/** PDF text: UTF-16BE after a byte-order mark, else PDFDocEncoding (Latin-1 for these strings). */
function decodeText(bytes: number[]): string {
  if (bytes[0] === 0xfe && bytes[1] === 0xff)
    return Buffer.from(bytes.slice(2)).swap16().toString('utf16le').replace(/\0$/, '');
  return Buffer.from(bytes).toString('latin1');
}

/** The scrubbed text in `length` bytes of the same string syntax, or asterisks when it is longer. */
function sameLength(token: string, text: string, length: number): string {
  if (token.startsWith('(')) {
    const ascii = text.replace(/[^\x20-\x7e]/g, '?').replace(/[\\()]/g, '\\$&');
    return ascii.length <= length ? ascii.padEnd(length, ' ') : '*'.repeat(length);
  }
  const utf16 = Buffer.from(text, 'utf16le').swap16().toString('hex').toUpperCase();
  const hex = `FEFF${utf16}`;
  if ((length - 4) % 4 !== 0) return '0'.repeat(length);
  return hex.length <= length ? hex.padEnd(length, '0020') : 'FEFF'.padEnd(length, '002A');
}

/**
 * The PDF with every information and link string that carries URL credentials or a value typed
 * from a secret rewritten in place, at the same byte length so the cross-reference offsets hold.
 * Page content is not touched: fields holding a secret are already blanked when printing.
 */
export function scrubPdf(pdf: Buffer, bound: BoundValues): Buffer {
  const text = pdf.toString('latin1');
  let out: Buffer | undefined;
  for (const m of text.matchAll(STRING_ENTRY)) {
    const token = m[1];
    const body = token.slice(1, -1);
    const bytes = token.startsWith('(')
      ? literalBytes(body)
      : [...Buffer.from(body.replace(/\s/g, ''), 'hex')];
    const decoded = decodeText(bytes);
    const clean = scrub(decoded, bound);
    if (clean === decoded) continue;
    out ??= Buffer.from(pdf);
    const start = m.index + m[0].length - token.length + 1;
    out.write(sameLength(token, clean, body.length), start, 'latin1');
  }
  return out ?? pdf;
}
