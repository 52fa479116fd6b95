import { z } from 'zod';
import type { BrowserSession } from '../drivers/driver.js';
import type { SessionSettings } from './settings.js';

/**
 * Who or what ended a browser: the caller's own `close` (or a relaunching `open`), an operator
 * (admin API), SESSION_TTL idle release, the Grid losing it, the browser dying, or SwiftBrowse
 * letting go of a browser stuck in a page's script.
 */
export const ENDED_BY = ['caller', 'operator', 'idle', 'grid', 'crashed', 'stuck'] as const;
export type EndedBy = (typeof ENDED_BY)[number];

const askedSchema = z.object({
  browser: z.string(),
  version: z.string().optional(),
  window: z.object({ width: z.number().int(), height: z.number().int() }).optional(),
  record: z.boolean().optional(),
  headless: z.boolean().optional(),
  timeouts: z.record(z.string(), z.number()),
});

const sentSchema = z.object({
  capabilities: z.array(
    z.object({ key: z.string(), value: z.unknown(), sources: z.array(z.string()) }),
  ),
  /** Keys of the caller's or the config's that SwiftBrowse's own values beat. */
  ignored: z.array(z.string()).optional(),
});

const ranSchema = z.object({
  backend: z.enum(['playwright', 'grid']),
  browser: z.string(),
  version: z.string(),
  grid_session_id: z.string().optional(),
  node: z.string().optional(),
  started_at: z.string(),
  idle_timeout_ms: z.number().int(),
  live_view: z.boolean(),
});

/** Why, when who ended it can say more: the Grid node that held it (`ran.node`) went away. */
export const ENDED_REASONS = ['node_lost'] as const;
export type EndedReason = (typeof ENDED_REASONS)[number];

const endedSchema = z.object({
  at: z.string(),
  by: z.enum(ENDED_BY),
  reason: z.enum(ENDED_REASONS).optional(),
});

/**
 * The last browser of a session as the operator reads it after it is gone (issue #20): what was
 * asked, what was sent, what ran, and when and by whom it ended. Stored in the admin API's own
 * snake_case shape, so the stored record and the answer never drift apart.
 */
export const browserRecordSchema = z.object({
  asked: askedSchema.optional(),
  sent: sentSchema.optional(),
  ran: ranSchema.optional(),
  ended: endedSchema.optional(),
});

export type BrowserRecord = z.infer<typeof browserRecordSchema>;
export type BrowserAsked = z.infer<typeof askedSchema>;

/** What the session's settings asked of its browser. */
export function askedOf(s: SessionSettings): BrowserAsked {
  const timeouts: Record<string, number> = {
    timeout_ms: s.timeoutMs,
    navigation_timeout_ms: s.navigationTimeoutMs,
  };
  if (s.pageLoadTimeoutMs !== undefined) timeouts.page_load_timeout_ms = s.pageLoadTimeoutMs;
  if (s.scriptTimeoutMs !== undefined) timeouts.script_timeout_ms = s.scriptTimeoutMs;
  const asked: BrowserAsked = {
    browser: s.browser,
    window: { ...s.viewport },
    headless: s.headless,
    timeouts,
  };
  if (s.version !== undefined) asked.version = s.version;
  if (s.record !== undefined) asked.record = s.record;
  return asked;
}

/** The record of a browser that just opened: asked, sent and ran; not ended. */
export function openedRecord(
  settings: SessionSettings,
  browser: Pick<BrowserSession, 'running' | 'gridSession' | 'sentCapabilities'>,
  idleTimeoutMs: number,
  now: number,
): BrowserRecord {
  const running = browser.running();
  const grid = browser.gridSession?.();
  const report = browser.sentCapabilities?.();
  const ran: BrowserRecord['ran'] = {
    backend: settings.backend,
    browser: running.browser,
    version: running.version,
    started_at: new Date(now).toISOString(),
    idle_timeout_ms: idleTimeoutMs,
    live_view: grid?.liveView ?? false,
  };
  if (grid) ran.grid_session_id = grid.id;
  if (running.node) ran.node = running.node;
  const record: BrowserRecord = { asked: askedOf(settings), ran };
  if (report) {
    record.sent = {
      capabilities: report.sent.map((c) => ({
        key: c.key,
        value: c.value,
        sources: [...c.sources],
      })),
    };
    if (report.ignored.length) record.sent.ignored = [...report.ignored];
  }
  return record;
}

/** The record with its end written; a record that ended already keeps its first end. */
export function endedRecord(
  record: BrowserRecord,
  by: EndedBy,
  now: number,
  reason?: EndedReason,
): BrowserRecord {
  if (record.ended) return record;
  return {
    ...record,
    ended: { at: new Date(now).toISOString(), by, ...(reason ? { reason } : {}) },
  };
}
