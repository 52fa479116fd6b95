import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllowedOrigins } from './origins.js';
import type { SecretEntry, SecretSource, SourceListing } from './source.js';

const DESCRIPTION = '_description';
const ALLOWED_URLS = '_allowed_urls';
const MAX_DESCRIPTION = 500;

const code = (e: unknown) => (e as NodeJS.ErrnoException).code ?? 'unreadable';

/**
 * Secrets as a directory per secret and a file per key, the layout Kubernetes mounts (keys are
 * symlinks into `..data/`, which is followed). Dotfiles and nested directories are ignored; a
 * secret that cannot be read is absent and named in `problems`.
 */
export class FilesystemSource implements SecretSource {
  readonly label: string;

  constructor(private readonly dir: string) {
    this.label = `filesystem:${dir}`;
  }

  async list(): Promise<SourceListing> {
    const problems: string[] = [];
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => !n.startsWith('.'));
    } catch (e) {
      return { entries: [], problems: [`${this.label}: cannot be read (${code(e)})`] };
    }
    const entries: SecretEntry[] = [];
    for (const name of names.sort()) {
      try {
        const entry = await this.secret(name);
        if (entry) entries.push(entry);
      } catch (e) {
        problems.push(
          `${this.label}: secret ${name} cannot be read (${code(e)}); it is not listed`,
        );
      }
    }
    return { entries, problems };
  }

  private async secret(name: string): Promise<SecretEntry | undefined> {
    const path = join(this.dir, name);
    if (!(await stat(path)).isDirectory()) return undefined;
    const keys: string[] = [];
    let description: string | undefined;
    let allowed: string[] | undefined;
    for (const file of (await readdir(path)).sort()) {
      if (file.startsWith('.')) continue;
      const info = await stat(join(path, file)).catch(() => undefined);
      if (!info?.isFile()) continue;
      if (file === DESCRIPTION) {
        description = (await readFile(join(path, file), 'utf8')).trim().slice(0, MAX_DESCRIPTION);
      } else if (file === ALLOWED_URLS) {
        // A declaration that cannot be read allows nothing: failing closed.
        allowed = await readFile(join(path, file), 'utf8').then(
          (t) => t.split(/\r?\n/),
          () => [],
        );
      } else if (!file.startsWith('_')) keys.push(file);
    }
    const parsed = allowed ? parseAllowedOrigins(allowed) : { origins: [], rejected: [] };
    return {
      name,
      keys,
      ...(description ? { description } : {}),
      allowedOrigins: parsed.origins,
      restricted: allowed !== undefined,
      rejected: parsed.rejected,
    };
  }

  read(entry: SecretEntry, key: string): Promise<string> {
    return readFile(join(this.dir, entry.name, key), 'utf8');
  }
}
