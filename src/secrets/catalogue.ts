import type { SecretEntry, SecretSource } from './source.js';

/** A listed secret and the source that owns it: a bind checks and reads from the same one. */
export interface CatalogueEntry {
  entry: SecretEntry;
  source: SecretSource;
}

export interface CatalogueView {
  entries: CatalogueEntry[];
  problems: string[];
}

interface Snapshot {
  at: number;
  listings: { source: SecretSource; entries: SecretEntry[] }[];
  problems: string[];
}

/**
 * Names, keys and rules of every source, first source wins a name (like PATH); cached for a
 * short TTL. Values are never cached: they are read from the owning source at bind time.
 */
export class SecretsCatalogue {
  private cached?: Snapshot;
  private loading?: Promise<Snapshot>;

  constructor(
    readonly sources: readonly SecretSource[],
    private readonly ttlMs: number,
  ) {}

  private async snapshot(): Promise<Snapshot> {
    if (this.cached && Date.now() - this.cached.at < this.ttlMs) return this.cached;
    this.loading ??= (async () => {
      const results = await Promise.all(this.sources.map((s) => s.list()));
      return {
        at: Date.now(),
        listings: results.map((r, i) => ({ source: this.sources[i], entries: r.entries })),
        problems: results.flatMap((r) => r.problems),
      };
    })().finally(() => (this.loading = undefined));
    this.cached = await this.loading;
    return this.cached;
  }

  /** What `session` may see: global secrets and those scoped to it, first source winning. */
  async view(session: string): Promise<CatalogueView> {
    const snap = await this.snapshot();
    const seen = new Set<string>();
    const entries: CatalogueEntry[] = [];
    for (const { source, entries: listed } of snap.listings) {
      for (const entry of listed) {
        if (entry.session !== undefined && entry.session !== session) continue;
        if (seen.has(entry.name)) continue;
        seen.add(entry.name);
        entries.push({ entry, source });
      }
    }
    return { entries, problems: snap.problems };
  }

  async find(session: string, name: string): Promise<CatalogueEntry | undefined> {
    return (await this.view(session)).entries.find((e) => e.entry.name === name);
  }
}

/** How a catalogue entry is shown to a caller: everything but a value, which has no field. */
export function describeSecret({ entry, source }: CatalogueEntry): Record<string, unknown> {
  return {
    name: entry.name,
    keys: entry.keys,
    ...(entry.description ? { description: entry.description } : {}),
    allowed_origins: entry.allowedOrigins,
    unrestricted: !entry.restricted,
    source: source.label,
    ...(entry.session ? { session: entry.session } : {}),
    ...(entry.rejected.length > 0 ? { rejected_allowed_urls: entry.rejected } : {}),
  };
}
