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

export type BindListener = (record: BindRecord) => void;

/** Writes every bind to the server log (refusals at warn) and to the listeners (session log). */
export class BindAudit {
  private readonly listeners = new Set<BindListener>();

  constructor(private readonly logger: Logger) {}

  /** Subscribes, e.g. the session log; returns the unsubscribe function. */
  onBind(listener: BindListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  record(record: BindRecord): void {
    if (record.allowed)
      this.logger.info(record, `secret ${record.secret}/${record.key} typed on ${record.url}`);
    else this.logger.warn(record, `secret bind refused: ${record.reason}`);
    for (const listener of this.listeners) {
      try {
        listener(record);
      } catch {
        // An audit listener never fails the op it reports on.
      }
    }
  }
}
