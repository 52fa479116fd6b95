// Where an op's time goes: the session log's per-op lines (DATA_DIR/logs/<session>/events.jsonl)
// read back after the overhead run, medians per phase for fill and click, diff on and off.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { median, round } from '../stats.js';

/** The fields of a session-log line the bench reads; `phases` comes from run-op once it is split. */
interface PhaseLine {
  op: string;
  args?: { diff?: boolean };
  duration_ms: number;
  phases?: Record<string, number>;
  spans?: Record<string, number>;
  frame_ms?: number;
}

export interface PhaseFigures {
  /** Lines read for this op and diff setting. */
  ops: number;
  /** Median client round trip, ms. */
  roundTripMs: number;
  /** Median op duration as the server timed it (timing.duration_ms). */
  durationMs: number;
  /** Round trip minus duration, median: MCP stdio both ways and the wait before the op starts. */
  outsideMs: number;
  /** Median ms per run-op phase, in the order run-op ran them; absent when not recorded. */
  phases?: Record<string, number>;
  /** Median ms per kind of element-lookup page call (`locate+probe`, `locate`, `probe`…). */
  lookup?: Record<string, number>;
  /** Median ms of the log frame's capture, taken after the answer. */
  frameMs?: number;
}

/** Round trips and server durations the bench measured, per op and diff setting, in call order. */
export type Measured = Record<string, { roundTrip: number[]; duration: number[] }>;

export const phaseKey = (op: string, diff: boolean) => `${op} diff:${diff}`;

/** Reads the session log of `session` under `dataDir` and takes medians per op and diff setting. */
export function phaseFigures(
  dataDir: string,
  session: string,
  measured: Measured,
): Record<string, PhaseFigures> {
  const file = join(dataDir, 'logs', session, 'events.jsonl');
  const lines: PhaseLine[] = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as PhaseLine)
    : [];
  const out: Record<string, PhaseFigures> = {};
  for (const [key, m] of Object.entries(measured)) {
    const of = lines.filter((l) => phaseKey(l.op, l.args?.diff ?? true) === key);
    const outside = m.roundTrip.map((rt, i) => rt - (m.duration[i] ?? 0));
    const figures: PhaseFigures = {
      ops: of.length,
      roundTripMs: round(median(m.roundTrip), 1),
      durationMs: round(median(m.duration), 1),
      outsideMs: round(median(outside), 1),
    };
    const phases = medians(of.map((l) => l.phases));
    if (phases) figures.phases = phases;
    const lookup = medians(of.map((l) => l.spans));
    if (lookup) figures.lookup = lookup;
    const frames = of.map((l) => l.frame_ms).filter((x): x is number => typeof x === 'number');
    if (frames.length) figures.frameMs = round(median(frames), 1);
    out[key] = figures;
  }
  return out;
}

/** Median of each key over the records that have it, keys in first-seen order. */
function medians(
  records: (Record<string, number> | undefined)[],
): Record<string, number> | undefined {
  const present = records.filter((r): r is Record<string, number> => !!r);
  if (!present.length) return undefined;
  const keys = [...new Set(present.flatMap((r) => Object.keys(r)))];
  return Object.fromEntries(keys.map((k) => [k, round(median(present.map((r) => r[k] ?? 0)), 1)]));
}

/** One line per op and diff setting for the report. */
export function renderPhases(figures: Record<string, PhaseFigures>): string[] {
  const fmt = (r: Record<string, number>) =>
    Object.entries(r)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  return Object.entries(figures).map(([key, f]) => {
    const phases = f.phases ? `phases: ${fmt(f.phases)}` : 'phases: not recorded';
    const lookup = f.lookup ? `; lookup page calls: ${fmt(f.lookup)}` : '';
    const frame =
      f.frameMs !== undefined ? `; log frame capture (after the answer) ${f.frameMs}` : '';
    return `${key.padEnd(16)} round trip ${f.roundTripMs} = outside ${f.outsideMs} + op ${f.durationMs}; ${phases}${lookup}${frame}`;
  });
}
