/** Edit distance, for naming what a typo meant. */
export function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/** The candidate closest to `word` (case ignored) within `most` edits, for a "did you mean". */
export function nearest(word: string, candidates: Iterable<string>, most = 2): string | undefined {
  const lower = word.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const d = distance(lower, name.toLowerCase());
    if (d <= most && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}
