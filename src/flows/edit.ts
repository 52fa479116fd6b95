import { parse } from 'yaml';
import { OpError } from '../core/errors.js';
import { flowSource } from './document.js';
import { assertWritable, type FlowLibrary } from './library.js';
import { validateFlow, type OpCatalogue } from './validate.js';

/** Who writes: a session (never to global) or an operator through the admin API (anywhere). */
export type Writer = 'session' | 'operator';

export interface SavedFlow {
  name: string;
  library: string;
  revision: string;
  created: boolean;
  warnings?: string[];
}

/**
 * Validates and stores a flow given as YAML text (comments kept) or a JSON object: the one door
 * for flow_save, PUT /flows/{name} and the admin editor.
 */
export async function saveFlow(
  store: FlowLibrary,
  ops: OpCatalogue,
  library: string,
  input: unknown,
  options: { name?: string; ifMatch?: string; writer: Writer },
): Promise<SavedFlow> {
  if (options.writer === 'session') assertWritable(library);
  const source = flowSource(input, options.name);
  const name = options.name ?? String((source.value as { name?: unknown }).name ?? '');
  const { warnings } = validateFlow(source.value, ops, `The flow "${name}" was not saved`);
  const { revision, created } = await store.write(library, name, source.text, options.ifMatch);
  return { name, library, revision, created, ...(warnings.length ? { warnings } : {}) };
}

export async function deleteFlow(
  store: FlowLibrary,
  library: string,
  name: string,
  options: { ifMatch?: string; writer: Writer },
): Promise<{ name: string; library: string; deleted: true }> {
  if (options.writer === 'session') assertWritable(library);
  await store.remove(library, name, options.ifMatch);
  return { name, library, deleted: true };
}

/** One flow as a reader sees it: the document, its text, revision, and what validation says now. */
export async function describeFlow(
  store: FlowLibrary,
  ops: OpCatalogue,
  library: string,
  name: string,
  options: { exact?: boolean } = {},
): Promise<Record<string, unknown>> {
  const stored = options.exact ? await store.read(library, name) : await store.find(library, name);
  if (!stored) throw new OpError('not_found', `No flow "${name}" in library "${library}".`);
  const data: Record<string, unknown> = {
    name: stored.name,
    library: stored.library,
    revision: stored.revision,
  };
  try {
    const value = parse(stored.text) as unknown;
    data.flow = value;
    const { warnings } = validateFlow(value, ops, `The flow "${stored.name}"`);
    if (warnings.length) data.warnings = warnings;
  } catch (e) {
    data.problems = e instanceof OpError ? (e.details?.problems ?? [e.message]) : [String(e)];
  }
  data.yaml = stored.text;
  return data;
}
