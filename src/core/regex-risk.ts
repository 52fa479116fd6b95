/**
 * Why a caller's regular expression could backtrack for exponential time, or undefined. A target's
 * regex runs inside the page, where the server cannot stop one match short of the page's renderer,
 * so the shapes that explode are refused before they are sent (issue #32):
 * - a repeat inside a repeated group, `(x+)+`, `(a*b?)*`: the nested star of every classic ReDoS;
 * - a repeated group whose alternatives can match the same text, `(a|ab)*`, `(\w|\d)+`;
 * - a backreference, `(a+)\1`: its matching is NP-hard.
 * Quadratic shapes (`x+x+y` on a long run of x's) are not caught here; the op's deadline and the
 * stuck-page recovery bound them.
 */
export function regexRisk(source: string): string | undefined {
  interface Group {
    start: number;
    /** An unbounded or many-times repeat somewhere inside. */
    repeats: boolean;
    /** The alternatives at this group's own level, as written. */
    alternatives: string[];
    from: number;
  }
  const stack: Group[] = [{ start: -1, repeats: false, alternatives: [], from: 0 }];
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && source[i + 2] === '<'))
        return `it has a backreference (${source.slice(i, i + 2)}), whose matching can take exponential time`;
      i++;
      continue;
    }
    if (c === '[') {
      for (i++; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i++;
      continue;
    }
    const top = stack[stack.length - 1];
    if (c === '(') {
      // (?: (?= (?! (?<= (?<! (?<name> open a group like any other.
      stack.push({ start: i, repeats: false, alternatives: [], from: i + 1 });
      if (source[i + 1] === '?') {
        const named = /^\?<(?![=!])[^>]*>/.exec(source.slice(i + 1));
        stack[stack.length - 1].from = i + 1 + (named ? named[0].length : 2);
      }
      continue;
    }
    if (c === '|') {
      top.alternatives.push(source.slice(top.from, i));
      top.from = i + 1;
      continue;
    }
    if (c === ')' && stack.length > 1) {
      const group = stack.pop() as Group;
      group.alternatives.push(source.slice(group.from, i));
      const quantifier = repeatAt(source, i + 1);
      const body = source.slice(group.start, i + 1);
      if (quantifier?.many) {
        if (group.repeats)
          return `it repeats a group that itself repeats, ${body}${quantifier.text}, which can take exponential time on a text that almost matches`;
        if (group.alternatives.length > 1 && overlap(group.alternatives))
          return `it repeats a choice whose alternatives can match the same text, ${body}${quantifier.text}, which can take exponential time`;
      }
      const parent = stack[stack.length - 1];
      parent.repeats ||= group.repeats || !!quantifier?.many;
      if (quantifier) i += quantifier.text.length;
      continue;
    }
    const quantifier = repeatAt(source, i);
    if (quantifier) {
      top.repeats ||= quantifier.many;
      i += quantifier.text.length - 1;
    }
  }
  return undefined;
}

/** The quantifier written at `at`, and whether it lets what it follows match more than once. */
function repeatAt(source: string, at: number): { text: string; many: boolean } | undefined {
  const c = source[at];
  const lazy = (text: string) => (source[at + text.length] === '?' ? `${text}?` : text);
  if (c === '*' || c === '+') return { text: lazy(c), many: true };
  if (c === '?') return { text: lazy(c), many: false };
  const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
  if (!m) return undefined;
  const max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
  return { text: lazy(m[0]), many: max > 1 };
}

/**
 * Whether two alternatives may match the same text: anything but plain words of which none is
 * a prefix of another (`(Yes|No)+` is safe, `(a|ab)+` and `(\w|\d)+` are not).
 */
function overlap(alternatives: string[]): boolean {
  if (alternatives.some((a) => a === '' || /[\\[\].*+?(){}^$|]/.test(a))) return true;
  // Lower case: under the i flag `Yes` and `yes` are the same text.
  const words = alternatives.map((a) => a.toLowerCase());
  return words.some((a, i) => words.some((b, j) => i !== j && a.startsWith(b)));
}
