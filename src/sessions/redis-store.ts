import { ClientOfflineError, createClient, TimeoutError } from 'redis';
import { OpError } from '../core/errors.js';
import { scrub } from '../core/redact.js';
import { within } from '../core/within.js';
import {
  sessionRecordSchema,
  type SessionRecord,
  type SessionStore,
  type StoreHealth,
} from './store.js';

const PREFIX = 'swiftbrowse:session:';
/**
 * A healthy Redis answers in well under a millisecond; this bounds one that accepts and hangs
 * (the client's own command timeout ends only a command not yet sent: a sent one waits forever).
 */
const ANSWER_MS = 2000;
/** `/ready` answers within a probe's usual 1 s limit. */
const CHECK_MS = 1000;
const LATE = Symbol('late');

const newClient = (url: string) =>
  createClient({
    url,
    // While the connection is down a command fails at once: queued, it waited out the command
    // timeout (5 s on every op while Redis was down) and failed with an empty message.
    disableOfflineQueue: true,
    socket: { connectTimeout: 5000, reconnectStrategy: (retries) => Math.min(retries * 200, 2000) },
  });
type Client = ReturnType<typeof newClient>;

/**
 * Session records in Redis, one JSON string per session, expiring `recordTtlMs` after the last
 * save (0 = never); a restarted server, or a second one, finds every session where it was.
 * A lost connection is retried in the background; until it is back, every call fails at once
 * with the socket's own error.
 */
export class RedisStore implements SessionStore {
  readonly kind = 'redis' as const;
  /** The URL without its credentials: what messages and `/ready` show. */
  private readonly where: string;
  /** Why the connection is down (the last socket error), cleared when it is back. */
  private down?: string;
  private readonly reconnected: (() => void)[] = [];

  private constructor(
    private readonly client: Client,
    url: string,
    private readonly recordTtlMs: number,
  ) {
    this.where = scrub(url);
    // Without a listener a dropped connection would crash the process; calls report it instead.
    client.on('error', (e: Error) => (this.down = e.message || e.name));
    client.on('ready', () => {
      if (this.down === undefined) return;
      this.down = undefined;
      for (const listener of this.reconnected) listener();
    });
  }

  static async connect(url: string, recordTtlMs: number): Promise<RedisStore> {
    const client = newClient(url);
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (e) {
      client.destroy();
      throw new Error(
        `Cannot reach Redis at ${scrub(url)} (REDIS_URL): ${(e as Error).message}. Start redis-server, fix REDIS_URL, or unset it to keep sessions in memory.`,
      );
    }
    return new RedisStore(client, url, recordTtlMs);
  }

  /** What went wrong, never empty: offline and timeout errors carry no message of their own. */
  private cause(e: unknown, ms: number): string {
    if (e instanceof TimeoutError) return `no answer within ${ms} ms`;
    if (e instanceof ClientOfflineError || !this.client.isReady)
      return `not connected (${this.down ?? 'reconnecting'})`;
    return (e as Error).message || (e as Error).name;
  }

  /** The work's answer, or a TimeoutError when it has none within `ms` (the work is dropped). */
  private async answer<T>(work: Promise<T>, ms: number): Promise<T> {
    const answer = await within(work, ms, LATE);
    if (answer === LATE) throw new TimeoutError();
    return answer;
  }

  private async call<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await this.answer(work(), ANSWER_MS);
    } catch (e) {
      throw new OpError(
        'backend',
        `The session store, Redis at ${this.where} (REDIS_URL), failed while ${what}: ${this.cause(e, ANSWER_MS)}. Sessions already open on this server keep working; start Redis or fix REDIS_URL, and retry: the server reconnects by itself.`,
      );
    }
  }

  async load(name: string): Promise<SessionRecord | undefined> {
    const raw = await this.call(`loading session "${name}"`, () => this.client.get(PREFIX + name));
    if (!raw) return undefined;
    const parsed = sessionRecordSchema.safeParse(JSON.parse(raw));
    // A record written by an incompatible version is dropped rather than half-used.
    return parsed.success ? parsed.data : undefined;
  }

  async save(record: SessionRecord): Promise<void> {
    await this.call(`saving session "${record.name}"`, () =>
      this.client.set(
        PREFIX + record.name,
        JSON.stringify(record),
        this.recordTtlMs ? { expiration: { type: 'PX', value: this.recordTtlMs } } : undefined,
      ),
    );
  }

  async delete(name: string): Promise<void> {
    await this.call(`forgetting session "${name}"`, () => this.client.del(PREFIX + name));
  }

  async list(): Promise<SessionRecord[]> {
    const names: string[] = [];
    await this.call('listing sessions', async () => {
      for await (const keys of this.client.scanIterator({ MATCH: `${PREFIX}*`, COUNT: 200 }))
        names.push(...keys.map((k) => String(k).slice(PREFIX.length)));
    });
    const records = await Promise.all(names.map((n) => this.load(n)));
    return records.filter((r): r is SessionRecord => !!r);
  }

  /** One bounded check of a Redis no store is connected to (`doctor`); never throws, leaves nothing open. */
  static async probe(url: string, ms = 3000): Promise<StoreHealth> {
    const client = newClient(url);
    let lastError: string | undefined;
    client.on('error', (e: Error) => (lastError = e.message || e.name));
    const where = scrub(url);
    try {
      const answer = await within(
        client.connect().then(() => client.ping()),
        ms,
        LATE,
      );
      if (answer === LATE)
        throw new Error(`no answer within ${ms} ms${lastError ? ` (${lastError})` : ''}`);
      return { kind: 'redis', url: where, ok: true };
    } catch (e) {
      return { kind: 'redis', url: where, ok: false, error: (e as Error).message || lastError };
    } finally {
      // A client that never connected has nothing to close, and says so by throwing.
      try {
        client.destroy();
      } catch {
        // already closed
      }
    }
  }

  async check(): Promise<StoreHealth> {
    try {
      await this.answer(this.client.ping(), CHECK_MS);
      return { kind: this.kind, url: this.where, ok: true };
    } catch (e) {
      return { kind: this.kind, url: this.where, ok: false, error: this.cause(e, CHECK_MS) };
    }
  }

  onReconnect(listener: () => void): void {
    this.reconnected.push(listener);
  }

  async close(): Promise<void> {
    // Saves still pending are sent first; a Redis that does not answer them is not waited for.
    const closed = await within(this.client.close(), ANSWER_MS, LATE).catch(() => LATE);
    if (closed === LATE) this.client.destroy();
  }
}
