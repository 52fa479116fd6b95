// The text track's wire format and address algebra (DESIGN §5). Pure: no DOM, so Node code (the
// diff, the ref check, the driver splitting a ref at its frames) imports the same rules the page
// script renders with.
//
// Address grammar: one token per level below a document's body — `A`–`Z` (0–25), `a`–`z`
// (26–51), then a decimal number; `.` only between two adjacent numbers. `|` crosses into a frame:
// `AB|CD` is `CD` below the body of the frame element at `AB`. `^` is the empty path, the body
// itself: `^` for the page, `AB|^` for a frame's body. Inside an open shadow host the level
// counts the host's light-DOM element children first, then its shadow root's element children.

/** One line of the text track: where it sits, what it is (a control's mark) and what it says. */
export interface TrackLine {
  address: string;
  /** A control's mark (ROLE_MARKS, `#sel-NAME`, `#file`); absent on text. */
  mark?: string;
  text: string;
}

/**
 * What a control's line says after its mark: its name; `[x]`/`[ ]`/`[-]` and its name (checked);
 * `[x]` before its name only when it is the chosen one (selected); its value (value); or, for a
 * container, its own text, its items each getting a line of their own (items).
 */
export type MarkReading = 'name' | 'checked' | 'selected' | 'value' | 'items';

/**
 * The mark of each ARIA role the text track marks (DESIGN §5; docs/reading-the-page.md keeps the
 * same table), so a mark says which `{role}` target reaches the element. `named` marks carry the
 * control's `name` or `id` (`#inp-email`). Besides these: `#sel-NAME` for a native `<select>` and
 * `#file` for a file input; a link also shows `→ href`, as does a menu item that is a link.
 */
export const ROLE_MARKS: Readonly<
  Record<string, { mark: string; reads: MarkReading; named?: true }>
> = {
  button: { mark: '#btn', reads: 'name' },
  link: { mark: '#lnk', reads: 'name' },
  checkbox: { mark: '#chk', reads: 'checked' },
  radio: { mark: '#rad', reads: 'checked' },
  switch: { mark: '#switch', reads: 'checked' },
  tab: { mark: '#tab', reads: 'selected' },
  option: { mark: '#opt', reads: 'selected' },
  menuitem: { mark: '#menuitem', reads: 'name' },
  menuitemcheckbox: { mark: '#menuitemcheckbox', reads: 'checked' },
  menuitemradio: { mark: '#menuitemradio', reads: 'checked' },
  treeitem: { mark: '#treeitem', reads: 'items' },
  listbox: { mark: '#listbox', reads: 'items' },
  combobox: { mark: '#combo', reads: 'value', named: true },
  textbox: { mark: '#inp', reads: 'value', named: true },
  searchbox: { mark: '#inp', reads: 'value', named: true },
  spinbutton: { mark: '#inp', reads: 'value', named: true },
  slider: { mark: '#slider', reads: 'value', named: true },
};

/** A visible frame the walk did not read, so the driver can read it from its own context. */
export interface SkippedFrame {
  address: string;
  reason: 'cross-origin' | 'limit' | 'depth';
}

/** What `textTrack()` returns. */
export interface TextTrack {
  lines: TrackLine[];
  /** `lines` rendered by `renderTrack`. */
  text: string;
  /** True when the budget stopped the walk or cut lines. */
  truncated: boolean;
  /** Estimated: script cannot see closed roots (see text-track.ts). */
  closedShadowRoots: number;
  /** Same-origin frames read. */
  frames: number;
  /** Visible frames not read; present only when there are some. */
  skippedFrames?: SkippedFrame[];
  /** Open shadow roots walked; present only when there are some. */
  shadowRoots?: number;
  /** Present when the walk ran out of time: it stopped after this many elements. */
  cut?: { elements: number };
}

const BODY = '^';
const UPPER_A = 65;
const LOWER_A = 97;

/** The token for a child index: `A`…`Z`, `a`…`z`, then the decimal number. */
export function levelToken(index: number): string {
  if (index < 26) return String.fromCharCode(UPPER_A + index);
  if (index < 52) return String.fromCharCode(LOWER_A + index - 26);
  return String(index);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Appends one level token to an address, adding the dot only between two numbers. */
export function appendLevel(address: string, token: string): string {
  const base = address.endsWith(BODY) ? address.slice(0, -1) : address;
  const joined =
    base.length > 0 && isDigit(base.charCodeAt(base.length - 1)) && isDigit(token.charCodeAt(0));
  return joined ? `${base}.${token}` : base + token;
}

/** Address of the child at `index` below `address`. */
export function childAddress(address: string, index: number): string {
  return appendLevel(address, levelToken(index));
}

/** The address one level up, or null for a body (a frame's body has no level above it here). */
export function parentAddress(address: string): string | null {
  if (address === '' || address.endsWith(BODY)) return null;
  let end = address.length - 1;
  if (isDigit(address.charCodeAt(end))) {
    while (end > 0 && isDigit(address.charCodeAt(end - 1))) end--;
    if (end > 0 && address[end - 1] === '.') end--;
  }
  const up = address.slice(0, end);
  return up === '' || up.endsWith('|') ? up + BODY : up;
}

/** The last level token of an address (`B` of `AB`, `60` of `A52.60`). */
export function lastLevel(address: string): string {
  let start = address.length - 1;
  if (isDigit(address.charCodeAt(start))) {
    while (start > 0 && isDigit(address.charCodeAt(start - 1))) start--;
  }
  return address.slice(start);
}

/**
 * Parses an address into child indices, one array per document (the page, then each frame).
 * A trailing mark (`AB#btn`) is ignored. Returns null when the address is malformed.
 */
export function parseAddress(address: string): number[][] | null {
  const bare = address.split('#', 1)[0].trim();
  const segments: number[][] = [];
  for (const part of bare.split('|')) {
    if (part === '' || part === BODY) {
      segments.push([]);
      continue;
    }
    const levels: number[] = [];
    let i = 0;
    let prevNumeric = false;
    while (i < part.length) {
      const code = part.charCodeAt(i);
      if (isDigit(code)) {
        let j = i + 1;
        while (j < part.length && isDigit(part.charCodeAt(j))) j++;
        const n = Number(part.slice(i, j));
        // Below 52 a level is a letter; a number there is not an address this module wrote.
        if (n < 52) return null;
        levels.push(n);
        prevNumeric = true;
        i = j;
      } else if (code === 46) {
        if (!prevNumeric || !isDigit(part.charCodeAt(i + 1))) return null;
        i++;
      } else if (code >= UPPER_A && code < UPPER_A + 26) {
        levels.push(code - UPPER_A);
        prevNumeric = false;
        i++;
      } else if (code >= LOWER_A && code < LOWER_A + 26) {
        levels.push(code - LOWER_A + 26);
        prevNumeric = false;
        i++;
      } else {
        return null;
      }
    }
    segments.push(levels);
  }
  return segments;
}

// Heads (address + mark) longer than this are not padded to: one long name must not push every
// control in its block to the right.
const MAX_PAD = 28;

function head(line: TrackLine): string {
  return line.mark ? line.address + line.mark : line.address;
}

function isChild(line: TrackLine, address: string): boolean {
  return !line.mark && parentAddress(line.address) === address;
}

function heads(lines: TrackLine[], i: number): boolean {
  return i + 1 < lines.length && !lines[i].mark && isChild(lines[i + 1], lines[i].address);
}

function member(line: TrackLine): string {
  return `  ${lastLevel(line.address)} ${line.text}`;
}

function withText(start: string, text: string): string {
  return text ? `${start} ${text}` : start;
}

/**
 * Renders lines as the text track. A control gets its own line, padded so texts align across a
 * run of controls. Plain text is grouped: children of a text line are indented under it, and two
 * or more text siblings go under a bare header line with their parent's address; a line with
 * children of its own stays a header rather than a member. Each member is
 * written as its own last level token, so the full address is the header plus that token.
 * Plain lines must have text (a bare address line is a header).
 */
export function renderTrack(lines: TrackLine[]): string {
  const out: string[] = [];
  const n = lines.length;
  let i = 0;
  while (i < n) {
    const line = lines[i];
    if (line.mark) {
      let j = i;
      let width = 0;
      while (j < n && lines[j].mark) {
        const w = head(lines[j]).length;
        if (w <= MAX_PAD && w > width) width = w;
        j++;
      }
      for (let k = i; k < j; k++) {
        const h = head(lines[k]);
        out.push(lines[k].text ? `${h.padEnd(width)} ${lines[k].text}` : h);
      }
      i = j;
      continue;
    }
    // A line followed by its children heads them; a line that heads its own is no member.
    let j = i + 1;
    if (heads(lines, i)) {
      while (j < n && isChild(lines[j], line.address) && !heads(lines, j)) j++;
      out.push(withText(line.address, line.text));
      for (let k = i + 1; k < j; k++) out.push(member(lines[k]));
      i = j;
      continue;
    }
    const parent = parentAddress(line.address);
    while (j < n && parent !== null && isChild(lines[j], parent) && !heads(lines, j)) j++;
    if (parent !== null && j > i + 1) {
      out.push(parent);
      for (let k = i; k < j; k++) out.push(member(lines[k]));
      i = j;
      continue;
    }
    out.push(withText(line.address, line.text));
    i++;
  }
  return out.join('\n');
}

const TOP_LINE = /^([A-Za-z0-9.|^]+)(#\S*)?(?: +(.*))?$/;
const MEMBER_LINE = /^ {2}([A-Za-z]|\d+) (.*)$/;

/** Parses rendered track text back into lines; the inverse of `renderTrack`. Unknown lines are skipped. */
export function parseTrackText(text: string): TrackLine[] {
  const lines: TrackLine[] = [];
  let header: string | null = null;
  for (const raw of text.split('\n')) {
    const member = MEMBER_LINE.exec(raw);
    if (member) {
      if (header !== null) lines.push({ address: appendLevel(header, member[1]), text: member[2] });
      continue;
    }
    const top = TOP_LINE.exec(raw);
    if (!top) {
      header = null;
      continue;
    }
    const [, address, mark, body = ''] = top;
    if (mark) {
      header = null;
      lines.push({ address, mark, text: body });
      continue;
    }
    header = address;
    if (body) lines.push({ address, text: body });
  }
  return lines;
}

/**
 * How many leading lines render within `maxChars`, for lines whose whole rendering does not fit.
 * Rendering only grows as lines are added, so the longest prefix that fits is a binary search.
 */
export function fittingPrefix(lines: TrackLine[], maxChars: number): number {
  let fits = 0;
  let over = lines.length;
  while (over - fits > 1) {
    const mid = (fits + over) >> 1;
    if (renderTrack(lines.slice(0, mid)).length <= maxChars) fits = mid;
    else over = mid;
  }
  return fits;
}
