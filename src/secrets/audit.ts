import type { Logger } from 'pino';

/** One use of a secret, as the operator reviews it: never the value (DESIGN §10). */
export interface BindRecord {
  event: 'secret_bind';
  session: string;
  /** The op that asked (fill, or the op that was refused for carrying a secret). */
  op: string;
  flow?: string;
  step?: string;
  /** Read off the catalogue entry, not the request; `(unknown)` when nothing matched. */
  secret: string;
  key: string;
  /** The page the value was (or would have been) typed on, scrubbed. */
  url?: string;
  allowed: boolean;
  /** Why it was refused. */
  reason?: string;
}

/** A bind as the audit keeps it: the record and when it happened. */
export interface AuditedBind extends BindRecord {
  /** ISO time the bind was recorded. */
  at: string;
}

export type BindListener = (record: AuditedBind) => void;

/** How many binds the audit keeps for the operator (GET /admin/audit); older ones are dropped. */
export const AUDIT_CAPACITY = 1000;

/**
 * Writes every bind to the server log (refusals at warn), keeps the last AUDIT_CAPACITY in memory
 * for the admin API, and tells the listeners (the admin event stream).
 */
export class BindAudit {
  private readonly listeners = new Set<BindListener>();
  private readonly kept: AuditedBind[] = [];

  constructor(
    private readonly logger: Logger,
    readonly capacity = AUDIT_CAPACITY,
  ) {}

  /** The kept binds, oldest first. */
  recent(): AuditedBind[] {
    return [...this.kept];
  }

  /** How many listeners are subscribed (an event stream that ended must not stay one). */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Subscribes, e.g. the admin event stream; returns the unsubscribe function. */
  onBind(listener: BindListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  record(record: BindRecord, now = new Date()): void {
    if (record.allowed)
      this.logger.info(record, `secret ${record.secret}/${record.key} typed on ${record.url}`);
    else this.logger.warn(record, `secret bind refused: ${record.reason}`);
    const audited = { ...record, at: now.toISOString() };
    this.kept.push(audited);
    if (this.kept.length > this.capacity) this.kept.splice(0, this.kept.length - this.capacity);
    for (const listener of this.listeners) {
      try {
        listener(audited);
      } catch {
        // An audit listener never fails the op it reports on.
      }
    }
  }
}
