import { createClient } from 'redis';
import { OpError } from '../core/errors.js';
import { scrub } from '../core/redact.js';
import { sessionRecordSchema, type SessionRecord, type SessionStore } from './store.js';

const PREFIX = 'swiftbrowse:session:';

const newClient = (url: string) =>
  createClient({
    url,
    socket: { connectTimeout: 5000, reconnectStrategy: (retries) => Math.min(retries * 200, 2000) },
  });
type Client = ReturnType<typeof newClient>;

/**
 * Session records in Redis, one JSON string per session, expiring `recordTtlMs` after the last
 * save (0 = never); a restarted server, or a second one, finds every session where it was.
 */
export class RedisStore implements SessionStore {
  readonly kind = 'redis' as const;

  private constructor(
    private readonly client: Client,
    private readonly recordTtlMs: number,
  ) {}

  static async connect(url: string, recordTtlMs: number): Promise<RedisStore> {
    const client = newClient(url);
    // Without a listener a dropped connection would crash the process; ops report it instead.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (e) {
      client.destroy();
      throw new Error(
        `Cannot reach Redis at ${scrub(url)} (REDIS_URL): ${(e as Error).message}. Start redis-server, fix REDIS_URL, or unset it to keep sessions in memory.`,
      );
    }
    return new RedisStore(client, recordTtlMs);
  }

  private async call<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      throw new OpError(
        'backend',
        `The session store (Redis) failed while ${what}: ${(e as Error).message}. Check that Redis is running; the op can be retried.`,
      );
    }
  }

  async load(name: string): Promise<SessionRecord | undefined> {
    const raw = await this.call('loading a session', () => this.client.get(PREFIX + name));
    if (!raw) return undefined;
    const parsed = sessionRecordSchema.safeParse(JSON.parse(raw));
    // A record written by an incompatible version is dropped rather than half-used.
    return parsed.success ? parsed.data : undefined;
  }

  async save(record: SessionRecord): Promise<void> {
    await this.call('saving a session', () =>
      this.client.set(
        PREFIX + record.name,
        JSON.stringify(record),
        this.recordTtlMs ? { expiration: { type: 'PX', value: this.recordTtlMs } } : undefined,
      ),
    );
  }

  async delete(name: string): Promise<void> {
    await this.call('forgetting a session', () => this.client.del(PREFIX + name));
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

  async close(): Promise<void> {
    await this.client.close().catch(() => this.client.destroy());
  }
}
