import { z } from 'zod';
import { browserRecordSchema } from './browser-record.js';
import { sessionSettingsSchema } from './settings.js';

/**
 * What happened to a session's browser last, so the next op knows whether to bring it back:
 * `open` it had one; `closed` it was ended on purpose (or never opened); `lost` it died;
 * `released` it was ended for idling past SESSION_TTL.
 */
export const BROWSER_STATES = ['open', 'closed', 'lost', 'released'] as const;
export type BrowserState = (typeof BROWSER_STATES)[number];

/** What outlives a browser and a server restart (DESIGN §6). */
export const sessionRecordSchema = z.object({
  name: z.string(),
  settings: sessionSettingsSchema,
  browserState: z.enum(BROWSER_STATES),
  lastUrl: z.string().optional(),
  pointer: z.object({ x: z.number(), y: z.number(), tab: z.string() }).optional(),
  /** The last action number handed out, so ids never repeat. */
  counter: z.number().int(),
  /** The driver's handle on the browser (a Grid session id), for re-attaching. */
  handle: z.string().optional(),
  /** Ops run, for the admin API's detail. */
  ops: z.number().int(),
  createdAt: z.number(),
  lastActiveAt: z.number(),
  /** The last browser as it was asked, sent, ran and ended; absent in records of older servers. */
  browserRecord: browserRecordSchema.optional(),
});

export type SessionRecord = z.infer<typeof sessionRecordSchema>;

/** Whether the store answers, for `/ready`: its kind, where it is (no credentials), why not. */
export interface StoreHealth {
  kind: SessionStore['kind'];
  url?: string;
  ok: boolean;
  error?: string;
}

/** Where session records live: memory (default) or Redis. One interface, one test suite. */
export interface SessionStore {
  readonly kind: 'memory' | 'redis';
  load(name: string): Promise<SessionRecord | undefined>;
  save(record: SessionRecord): Promise<void>;
  delete(name: string): Promise<void>;
  list(): Promise<SessionRecord[]>;
  /** A bounded check that the store answers; never throws. */
  check(): Promise<StoreHealth>;
  /** Called each time a store that was unreachable answers again. */
  onReconnect(listener: () => void): void;
  close(): Promise<void>;
}

/** Records in this process only; forgotten after `recordTtlMs` idle (0 = never). */
export class MemoryStore implements SessionStore {
  readonly kind = 'memory' as const;
  private readonly records = new Map<string, string>();

  constructor(private readonly recordTtlMs: number) {}

  private fresh(record: SessionRecord): boolean {
    return !this.recordTtlMs || Date.now() - record.lastActiveAt < this.recordTtlMs;
  }

  async load(name: string): Promise<SessionRecord | undefined> {
    const raw = this.records.get(name);
    const record = raw ? (JSON.parse(raw) as SessionRecord) : undefined;
    if (record && !this.fresh(record)) {
      this.records.delete(name);
      return undefined;
    }
    return record;
  }

  async save(record: SessionRecord): Promise<void> {
    this.records.set(record.name, JSON.stringify(record));
  }

  async delete(name: string): Promise<void> {
    this.records.delete(name);
  }

  async list(): Promise<SessionRecord[]> {
    const out: SessionRecord[] = [];
    for (const name of [...this.records.keys()]) {
      const record = await this.load(name);
      if (record) out.push(record);
    }
    return out;
  }

  async check(): Promise<StoreHealth> {
    return { kind: this.kind, ok: true };
  }

  onReconnect(): void {}

  async close(): Promise<void> {}
}
