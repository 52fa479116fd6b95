import { parse } from 'yaml';
import { OpError } from '../core/errors.js';
import type { FlowStep } from './document.js';
import type { FlowLibrary } from './library.js';
import { parametersRead } from './substitute.js';
import { validateFlow, valuesAt, type OpCatalogue } from './validate.js';

export interface OutlineParameter {
  name: string;
  type: string;
  description?: string;
  default?: unknown;
  /** Ids (or numbers) of the steps whose arguments write `${name}`. */
  read_by: string[];
  /** Nothing reads it: a typo in a `${…}`, or a leftover. */
  unread: boolean;
}

export interface OutlineStep {
  /** The step's id, or its number from 1 when it has none (as the secrets audit names it). */
  id: string;
  op: string;
  args: Record<string, unknown>;
  on_error?: 'abort' | 'continue';
  note?: string;
  binds_secret: boolean;
  reads: string[];
}

export interface FlowOutline {
  name: string;
  library: string;
  revision: string;
  params: OutlineParameter[];
  steps: OutlineStep[];
}

const stepId = (step: FlowStep, i: number) => step.id ?? String(i + 1);

function typeOf(schema: Record<string, unknown>): string {
  const type = schema.type;
  if (Array.isArray(type)) return type.map(String).join(' | ');
  if (typeof type === 'string') return type;
  return Array.isArray(schema.enum) ? 'enum' : 'any';
}

/**
 * A stored flow as the console outlines it: parameters first, each with the steps that read it,
 * then the steps with the parameters they read, found by the substitution module's own parser.
 */
export async function outlineFlow(
  store: FlowLibrary,
  ops: OpCatalogue,
  library: string,
  name: string,
): Promise<FlowOutline> {
  const stored = await store.read(library, name);
  if (!stored)
    throw new OpError(
      'not_found',
      `No flow "${name}" in library "${library}". GET /admin/flows lists every library's flows.`,
    );
  const { flow } = validateFlow(
    parse(stored.text) as unknown,
    ops,
    `The flow "${name}" in "${library}" cannot be outlined`,
  );
  const steps: OutlineStep[] = flow.steps.map((step, i) => ({
    id: stepId(step, i),
    op: step.op,
    args: step.args ?? {},
    ...(step.on_error ? { on_error: step.on_error } : {}),
    ...(step.note !== undefined ? { note: step.note } : {}),
    binds_secret: valuesAt(step.args ?? {}, 'secret').length > 0,
    reads: parametersRead(step.args),
  }));
  const params = Object.entries(flow.parameters?.properties ?? {}).map(([param, schema]) => {
    const readBy = steps.filter((s) => s.reads.includes(param)).map((s) => s.id);
    return {
      name: param,
      type: typeOf(schema),
      ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
      ...('default' in schema ? { default: schema.default } : {}),
      read_by: readBy,
      unread: readBy.length === 0,
    };
  });
  return { name: stored.name, library: stored.library, revision: stored.revision, params, steps };
}
