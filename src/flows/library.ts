import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { globToRegExp } from '../core/condition.js';
import { OpError } from '../core/errors.js';
import { checkName } from '../core/names.js';

/** The shared library: every session reads and runs it; only an operator writes it (DESIGN §8). */
export const GLOBAL_LIBRARY = 'global';

/** One stored flow: its text as written (comments kept), and the revision an If-Match names. */
export interface StoredFlow {
  name: string;
  library: string;
  text: string;
  revision: string;
}

export interface ParameterSummary {
  name: string;
  required: boolean;
  type?: unknown;
  description?: string;
  default?: unknown;
}

/** What a listing says of a flow: enough to choose and call it, never the steps. */
export interface FlowSummary {
  name: string;
  library: string;
  description?: string;
  urls?: string[];
  parameters?: ParameterSummary[];
  steps?: number;
  /** This session's flow hides a global one of the same name. */
  shadows_global?: true;
  /** The file does not parse (edited by hand); a run will say why. */
  problem?: string;
}

export function revisionOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The library a session reads its own flows from: its name (`global` is the shared one). */
export function libraryOf(session: string): string {
  return session;
}

/** The one gate every session-facing write passes; the admin API writes without it. */
export function assertWritable(library: string): void {
  if (library === GLOBAL_LIBRARY) {
    throw new OpError(
      'permission_denied',
      'The global flow library is read-only to sessions: every session lists and runs it, so nobody rewrites it under them. Name your session (X-Session-Key, ?session=NAME or --session) to save to a library of your own, or ask an operator to move the flow to global through the admin API.',
    );
  }
}

function checkLibrary(library: string): string {
  return library === '_stdio' ? library : checkName('library', library);
}

/** `https://host` matches `https://host/*`: a URL with no path is read as ending in `/`. */
function withPath(url: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/]+$/i.test(url) ? `${url}/` : url;
}

/** Whether a flow's `urls` cover this page. Discovery only: no urls, or "*", means everywhere. */
export function appliesTo(urls: string[] | undefined, url: string): boolean {
  if (!urls || urls.length === 0) return true;
  return urls.some((glob) => glob === '*' || globToRegExp(glob).test(withPath(url)));
}

/** A page flows can be listed for: a URL with a scheme and `//` (about:blank is no page of a site). */
export function isPageUrl(url: string | undefined): url is string {
  return !!url && /^[a-z][a-z0-9+.-]*:\/\/./i.test(url);
}

/** A library's flows for one page: those whose urls cover it, and how many others it has. */
export interface FlowsHere {
  url: string;
  filtered: true;
  hidden: number;
  flows: FlowSummary[];
}

function summarise(name: string, library: string, text: string): FlowSummary {
  const summary: FlowSummary = { name, library };
  try {
    const doc = parse(text) as Record<string, unknown> | null;
    if (typeof doc?.description === 'string') summary.description = doc.description;
    if (Array.isArray(doc?.urls)) summary.urls = doc.urls.map(String);
    if (Array.isArray(doc?.steps)) summary.steps = doc.steps.length;
    const params = doc?.parameters as
      { properties?: Record<string, Record<string, unknown>>; required?: string[] } | undefined;
    if (params?.properties) {
      summary.parameters = Object.entries(params.properties).map(([p, s]) => ({
        name: p,
        required: (params.required ?? []).includes(p),
        ...(s.type !== undefined ? { type: s.type } : {}),
        ...(typeof s.description === 'string' ? { description: s.description } : {}),
        ...('default' in s ? { default: s.default } : {}),
      }));
    }
  } catch (e) {
    summary.problem = `not valid YAML: ${(e as Error).message.split('\n')[0]}`;
  }
  return summary;
}

function matches(revision: string, ifMatch: string): boolean {
  return ifMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, '').replace(/^"|"$/g, ''))
    .some((t) => t === '*' || t === revision);
}

/**
 * Flows on disk, one YAML file per flow under `root/<library>/<name>.yaml`. Writes to one file
 * are serialised, so two edits carrying the same revision cannot both win.
 */
export class FlowLibrary {
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(readonly root: string) {}

  private dir(library: string): string {
    return join(this.root, checkLibrary(library));
  }

  private path(library: string, name: string): string {
    return join(this.dir(library), `${checkName('flow', name)}.yaml`);
  }

  private async exclusive<T>(path: string, work: () => Promise<T>): Promise<T> {
    const run = (this.locks.get(path) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => undefined);
    this.locks.set(path, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(path) === tail) this.locks.delete(path);
    }
  }

  /** One library's flow, or undefined. */
  async read(library: string, name: string): Promise<StoredFlow | undefined> {
    try {
      const text = await readFile(this.path(library, name), 'utf8');
      return { name, library, text, revision: revisionOf(text) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  /** The flow a session runs by this name: its own, else the global one. */
  async find(library: string, name: string): Promise<StoredFlow> {
    const found =
      (await this.read(library, name)) ??
      (library === GLOBAL_LIBRARY ? undefined : await this.read(GLOBAL_LIBRARY, name));
    if (found) return found;
    const known = (await this.list(library)).map((f) => f.name);
    throw new OpError(
      'not_found',
      `No flow "${name}" in library "${library}"${library === GLOBAL_LIBRARY ? '' : ' or in global'}. ${known.length ? `Flows: ${known.join(', ')}.` : 'It has no flows yet; save one with flow_save.'}`,
    );
  }

  private async names(library: string): Promise<string[]> {
    try {
      return (await readdir(this.dir(library)))
        .filter((f) => f.endsWith('.yaml') && !f.startsWith('.'))
        .map((f) => f.slice(0, -'.yaml'.length))
        .sort();
    } catch {
      return [];
    }
  }

  private async summaries(library: string): Promise<FlowSummary[]> {
    const out: FlowSummary[] = [];
    for (const name of await this.names(library)) {
      const stored = await this.read(library, name).catch(() => undefined);
      if (stored) out.push(summarise(name, library, stored.text));
    }
    return out;
  }

  /** A session's flows plus the global ones; its own shadows a global one of the same name. */
  async list(library: string): Promise<FlowSummary[]> {
    const own = await this.summaries(library);
    if (library === GLOBAL_LIBRARY) return own;
    const mine = new Set(own.map((f) => f.name));
    const shared = await this.summaries(GLOBAL_LIBRARY);
    for (const f of own) if (shared.some((g) => g.name === f.name)) f.shadows_global = true;
    return [...own, ...shared.filter((g) => !mine.has(g.name))].sort((a, b) =>
      a.name.localeCompare(b.name),
    );
  }

  /**
   * The flows a session can run whose urls cover this page: the one rule behind flow_list,
   * GET /flows?url=, the MCP resource of the page's flows and the status's `flows_here`.
   */
  async listHere(library: string, url: string): Promise<FlowsHere> {
    const all = await this.list(library);
    const flows = all.filter((f) => appliesTo(f.urls, url));
    return { url, filtered: true, hidden: all.length - flows.length, flows };
  }

  /** Names of the flows a session can run whose urls cover this page (session status). */
  async namesHere(library: string, url: string | undefined): Promise<string[]> {
    if (!isPageUrl(url)) return [];
    return (await this.listHere(library, url)).flows.map((f) => f.name);
  }

  /** Every library on disk, for the operator. */
  async libraries(): Promise<string[]> {
    try {
      return (await readdir(this.root, { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
    } catch {
      return [];
    }
  }

  /** Every flow of one library only, for the operator. */
  libraryFlows(library: string): Promise<FlowSummary[]> {
    return this.summaries(library);
  }

  /**
   * Writes a flow's text. With `ifMatch`, the stored revision must be one it names (412 `conflict`
   * otherwise, also when the flow does not exist).
   */
  async write(
    library: string,
    name: string,
    text: string,
    ifMatch?: string,
  ): Promise<{ revision: string; created: boolean }> {
    const path = this.path(library, name);
    return this.exclusive(path, async () => {
      const current = await this.read(library, name);
      checkRevision(current, name, ifMatch);
      await mkdir(this.dir(library), { recursive: true });
      // Written beside and renamed over, so a reader never sees half a file.
      const temp = `${path}.${randomUUID()}.tmp`;
      await writeFile(temp, text, 'utf8');
      await rename(temp, path);
      return { revision: revisionOf(text), created: !current };
    });
  }

  async remove(library: string, name: string, ifMatch?: string): Promise<void> {
    const path = this.path(library, name);
    await this.exclusive(path, async () => {
      const current = await this.read(library, name);
      if (!current) {
        throw new OpError(
          'not_found',
          `No flow "${name}" in library "${library}" to delete${library !== GLOBAL_LIBRARY && (await this.read(GLOBAL_LIBRARY, name)) ? ' (there is a global one, which only an operator can delete)' : ''}.`,
        );
      }
      checkRevision(current, name, ifMatch);
      await rm(path);
    });
  }

  /** Moves a flow between libraries (`global` is a library like any other); the operator's verb. */
  async move(name: string, from: string, to: string, replace = false): Promise<StoredFlow> {
    const source = await this.read(from, name);
    if (!source) throw new OpError('not_found', `No flow "${name}" in library "${from}".`);
    if (!replace && (await this.read(to, name)))
      throw new OpError(
        'invalid_argument',
        `Library "${to}" already has a flow "${name}"; move with replace: true to overwrite it.`,
      );
    const { revision } = await this.write(to, name, source.text);
    await this.remove(from, name, source.revision);
    return { name, library: to, text: source.text, revision };
  }
}

function checkRevision(current: StoredFlow | undefined, name: string, ifMatch?: string): void {
  if (ifMatch === undefined || ifMatch === '') return;
  if (current && matches(current.revision, ifMatch)) return;
  throw new OpError(
    'conflict',
    current
      ? `The flow "${name}" changed since you read it (it is at revision ${current.revision}, you sent ${ifMatch}). Read it again, apply your edit to that text, and save with the new revision.`
      : `The flow "${name}" does not exist, so revision ${ifMatch} cannot match. Save without a revision to create it.`,
    { details: { revision: current?.revision ?? null } },
  );
}
