import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { OpError } from '../core/errors.js';
import { checkName } from '../core/names.js';
import { FRAME_NAME } from './frames.js';
import { countsAsError, type LogLine } from './log-line.js';

/** One session's log at a glance. */
export interface LogSummary {
  session: string;
  ops: number;
  /** Failed ops, flow steps marked `on_error: continue` aside (`countsAsError`). */
  errors: number;
  first_at?: string;
  last_at?: string;
}

export interface LogFilter {
  op?: string;
  errorsOnly?: boolean;
  tab?: string;
  /** Only lines after the first `since` of the log (a `total` from an earlier page): what is new. */
  since?: number;
  /** The latest this many matching lines (default 500). */
  limit?: number;
}

export interface LogPage {
  session: string;
  /** Lines in the log. */
  total: number;
  /** Lines matching the filter; `events` holds the latest `limit` of them, oldest first. */
  matched: number;
  /** Errors in the whole log, by `countsAsError`. */
  errors: number;
  events: ServedLine[];
}

/** A log line as the routes serve it: the error rule applied, so no reader restates it. */
export interface ServedLine extends LogLine {
  counts_as_error: boolean;
}

export const DEFAULT_LIMIT = 500;

/** A session name as the logs accept it: the one rule, plus the in-process stdio session. */
export function checkLogSession(name: string): string {
  return name === '_stdio' ? name : checkName('session', name);
}

/** Lines of a log; a torn last line (a server killed mid-write) is skipped. */
function parseLines(text: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    try {
      lines.push(JSON.parse(raw) as LogLine);
    } catch {
      // a partial line is unreadable, the rest still is
    }
  }
  return lines;
}

const summaries = new Map<string, { size: number; mtimeMs: number; summary: LogSummary }>();

async function summarise(dir: string, session: string): Promise<LogSummary | undefined> {
  const file = join(dir, session, 'events.jsonl');
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const cached = summaries.get(file);
  if (cached && cached.size === info.size && cached.mtimeMs === info.mtimeMs) return cached.summary;
  const lines = parseLines(await readFile(file, 'utf8'));
  const summary: LogSummary = {
    session,
    ops: lines.length,
    errors: lines.filter(countsAsError).length,
    first_at: lines[0]?.at,
    last_at: lines[lines.length - 1]?.at,
  };
  summaries.set(file, { size: info.size, mtimeMs: info.mtimeMs, summary });
  return summary;
}

/** Every session with a log, the most recently active first. */
export async function listLogs(dir: string): Promise<LogSummary[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found = await Promise.all(
    entries.filter((e) => e.isDirectory()).map((e) => summarise(dir, e.name)),
  );
  return found
    .filter((s): s is LogSummary => !!s)
    .sort((a, b) => (b.last_at ?? '').localeCompare(a.last_at ?? ''));
}

/** One session's lines, filtered; `session_not_found` when it has no log. */
export async function readLog(dir: string, session: string, filter: LogFilter): Promise<LogPage> {
  checkLogSession(session);
  let text: string;
  try {
    text = await readFile(join(dir, session, 'events.jsonl'), 'utf8');
  } catch {
    throw new OpError(
      'session_not_found',
      `Session "${session}" has no log. GET /logs lists the sessions that have one.`,
    );
  }
  const lines = parseLines(text);
  const matching = lines
    .slice(filter.since ?? 0)
    .filter(
      (l) =>
        (!filter.op || l.op === filter.op) &&
        (!filter.errorsOnly || countsAsError(l)) &&
        (!filter.tab || l.tab === filter.tab),
    );
  const limit = filter.limit ?? DEFAULT_LIMIT;
  return {
    session,
    total: lines.length,
    matched: matching.length,
    errors: lines.filter(countsAsError).length,
    events: matching
      .slice(Math.max(0, matching.length - limit))
      .map((l) => ({ ...l, counts_as_error: countsAsError(l) })),
  };
}

/** The file of one frame; names are checked, so no path leaves the session's frames directory. */
export function framePath(dir: string, session: string, name: string): string {
  checkLogSession(session);
  if (!FRAME_NAME.test(name)) {
    throw new OpError(
      'invalid_argument',
      `${JSON.stringify(name.slice(0, 80))} is not a frame name; use the "frame" field of a log line (e.g. 000004.jpg).`,
    );
  }
  return join(dir, session, 'frames', name);
}
