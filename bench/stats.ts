// Small statistics for the report.

export function quantile(xs: number[], q: number): number {
  if (!xs.length) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? sorted[0];
}

export const median = (xs: number[]) => quantile(xs, 0.5);
export const p95 = (xs: number[]) => quantile(xs, 0.95);
export const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Estimated tokens: characters / 4, the usual rule of thumb for English and JSON. */
export const tokens = (chars: number) => Math.round(chars / 4);

export const round = (x: number, digits = 0) => Number(x.toFixed(digits));
