import { copyFile, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { OpError } from '../core/errors.js';
import type { Evidence } from '../core/result.js';
import { checkFileName, contentTypeOf } from './names.js';
import { LinkSigner } from './signing.js';

/** One file of a session, kept or not: the one shape every file surface uses. */
export interface FileEntry {
  name: string;
  size: number;
  /** ISO time it was written. */
  created: string;
  content_type: string;
  /** Kept files outlive the browser and the server; the others go with the browser. */
  kept: boolean;
  /** Signed link, relative to this server. */
  url: string;
  /** The same with PUBLIC_URL in front, when it is set. */
  absolute_url?: string;
  /** On an unkept file: the call that keeps it. */
  keep?: string;
}

/** Where a session's browser files (downloads, screenshots, PDFs) live; they go with the browser. */
export function sessionFilesDir(dataDir: string, session: string): string {
  return join(dataDir, 'sessions', session, 'files');
}

/** The kept store: copies that outlive the browser and the server (DESIGN §11). */
export function keptFilesDir(dataDir: string, session: string): string {
  return join(dataDir, 'files', session);
}

async function namesIn(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => e.name);
  } catch {
    return [];
  }
}

/**
 * A session's files as one list (kept wins a name), signed links to them, keeping and the
 * operator's deletes. Names are used exactly as given and checked by {@link checkFileName}.
 */
export class FileStore {
  readonly signer: LinkSigner;

  constructor(private readonly config: Config) {
    this.signer = LinkSigner.load(config.dataDir, config.signingKey);
  }

  private browserPath(session: string, name: string): string {
    return join(sessionFilesDir(this.config.dataDir, session), checkFileName(name));
  }

  private keptPath(session: string, name: string): string {
    return join(keptFilesDir(this.config.dataDir, session), checkFileName(name));
  }

  /** The path a link signs: the session and the exact name. */
  static linkPath(session: string, name: string): string {
    return `/files/${encodeURIComponent(session)}/${encodeURIComponent(name)}`;
  }

  /** A signed link to `name` valid for FILE_LINK_TTL seconds. */
  link(session: string, name: string, now = Date.now()): { url: string; absolute_url?: string } {
    const path = FileStore.linkPath(session, name);
    const exp = Math.floor(now / 1000) + this.config.fileLinkTtl;
    // The signature covers the path the route sees; the link carries the mount prefix too.
    const url = `${this.config.routePrefix}${path}?exp=${exp}&sig=${this.signer.sign(path, exp)}`;
    const base = this.config.publicUrl?.replace(/\/+$/, '');
    return base ? { url, absolute_url: `${base}${url}` } : { url };
  }

  private async describe(session: string, name: string, kept: boolean): Promise<FileEntry> {
    const info = await stat(kept ? this.keptPath(session, name) : this.browserPath(session, name));
    const entry: FileEntry = {
      name,
      size: info.size,
      created: info.mtime.toISOString(),
      content_type: contentTypeOf(name),
      kept,
      ...this.link(session, name),
    };
    if (!kept) entry.keep = `keep_file(${JSON.stringify(name)})`;
    return entry;
  }

  /** Every file of the session, kept and not, kept winning a shared name; by name. */
  async list(session: string): Promise<FileEntry[]> {
    const kept = await namesIn(keptFilesDir(this.config.dataDir, session));
    const browser = (await namesIn(sessionFilesDir(this.config.dataDir, session))).filter(
      (n) => !kept.includes(n),
    );
    const entries = await Promise.all([
      ...kept.map((n) => this.describe(session, n, true).catch(() => undefined)),
      ...browser.map((n) => this.describe(session, n, false).catch(() => undefined)),
    ]);
    return entries.filter((e): e is FileEntry => !!e).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Writes bytes into the session's browser files (screenshot, PDF, failure evidence). */
  async save(session: string, name: string, bytes: Buffer): Promise<FileEntry> {
    const path = this.browserPath(session, name);
    await mkdir(sessionFilesDir(this.config.dataDir, session), { recursive: true });
    await writeFile(path, bytes);
    return this.describe(session, name, false);
  }

  /** An evidence entry pointing at a file by signed link, never by path. */
  evidence(session: string, kind: Evidence['kind'], name: string): Evidence {
    return { kind, name, ...this.link(session, name) };
  }

  /**
   * Copies a browser file into the kept store (keeping twice overwrites). A name that is only
   * kept already is answered as it is.
   */
  async keep(session: string, name: string): Promise<{ entry: FileEntry; copied: boolean }> {
    const from = this.browserPath(session, name);
    const to = this.keptPath(session, name);
    const exists = async (p: string) => (await stat(p).catch(() => undefined))?.isFile() ?? false;
    if (await exists(from)) {
      await mkdir(keptFilesDir(this.config.dataDir, session), { recursive: true });
      await copyFile(from, to);
      return { entry: await this.describe(session, name, true), copied: true };
    }
    if (await exists(to)) return { entry: await this.describe(session, name, true), copied: false };
    const names = (await this.list(session)).map((e) => e.name);
    throw new OpError(
      'not_found',
      `keep_file: session ${session} has no file ${JSON.stringify(name)}. Files: ${names.join(', ') || '(none)'}.`,
      { final: true },
    );
  }

  /** The kept file's path, for upload by name; undefined when there is none. */
  async keptFile(session: string, name: string): Promise<string | undefined> {
    try {
      const path = this.keptPath(session, name);
      return (await stat(path)).isFile() ? path : undefined;
    } catch {
      return undefined;
    }
  }

  /** The file a link names: the kept copy if there is one, else the browser's. */
  async open(session: string, name: string): Promise<{ path: string; size: number } | undefined> {
    for (const path of [this.keptPath(session, name), this.browserPath(session, name)]) {
      const info = await stat(path).catch(() => undefined);
      if (info?.isFile()) return { path, size: info.size };
    }
    return undefined;
  }

  /** Operator: deletes a kept file. A browser file cannot be deleted alone (clear downloads). */
  async deleteKept(session: string, name: string): Promise<{ deleted: boolean; reason?: string }> {
    const path = this.keptPath(session, name);
    if (await stat(path).catch(() => undefined)) {
      await rm(path, { force: true });
      return { deleted: true };
    }
    const browser = await stat(this.browserPath(session, name)).catch(() => undefined);
    return {
      deleted: false,
      reason: browser
        ? `${name} is not kept; browser files go with the browser, or all at once with clear-downloads`
        : `session ${session} has no file ${name}`,
    };
  }

  /** Operator: removes every browser file of the session (kept copies are elsewhere). */
  async clearDownloads(session: string): Promise<string[]> {
    const dir = sessionFilesDir(this.config.dataDir, session);
    const names = await namesIn(dir);
    await rm(dir, { recursive: true, force: true });
    return names.sort();
  }
}
