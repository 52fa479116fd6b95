// RFC 6266 with RFC 8187's filename*: `attr-char` is what may stand unencoded.
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;

/**
 * A Content-Disposition header for a file name: an ASCII `filename` fallback (non-ASCII,
 * quotes, backslashes and controls become `_`) plus `filename*` carrying the exact name in
 * UTF-8 percent-encoding. CR and LF cannot reach the header: both forms encode them away.
 */
export function contentDisposition(name: string, type: 'inline' | 'attachment'): string {
  const fallback = [...name]
    .map((c) => (/^[\x20-\x7e]$/.test(c) && c !== '"' && c !== '\\' ? c : '_'))
    .join('');
  const encoded = [...Buffer.from(name, 'utf8')]
    .map((b) => {
      const c = String.fromCharCode(b);
      return b < 0x80 && ATTR_CHAR.test(c)
        ? c
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
