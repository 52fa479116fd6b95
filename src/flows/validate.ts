import { z } from 'zod';
import { parseArgs } from '../core/args.js';
import { OpError } from '../core/errors.js';
import { checkName } from '../core/names.js';
import {
  flowDocumentSchema,
  MAX_FLOW_TIMEOUT_S,
  PARAMETER_NAME,
  type Flow,
  type FlowParameters,
  type FlowStep,
} from './document.js';
import { asText, mapStrings, parametersRead, substituteText } from './substitute.js';

/** What validation needs of an op: its name, its argument schema, and whether it may be a step. */
export interface StepOp {
  name: string;
  args: z.ZodObject;
  step: boolean;
}
export type OpCatalogue = ReadonlyMap<string, StepOp>;

export interface ValidFlow {
  flow: Flow;
  warnings: string[];
}

const DOCUMENT_KEYS = Object.keys(flowDocumentSchema.shape);
const STEP_KEYS = ['id', 'op', 'args', 'on_error', 'return', 'note'];

/** Why an op that exists is not a step (DESIGN §8): the lifecycle is the caller's, discovery is the author's. */
function notAStep(op: string): string {
  if (op === 'open' || op === 'close' || op === 'status')
    return `${op} is not a step: a flow runs in the browser the caller already holds. Call ${op} before flow_run instead, and start the flow with goto`;
  if (op === 'outline' || op === 'find')
    return `${op} is for building a flow, not a step inside one: put the durable target it gave you into the step that acts`;
  return `${op} is not a step: a flow does not call flows, batches or reports. Copy the steps you need into this flow`;
}

export function stepLabel(n: number, step: Pick<FlowStep, 'id' | 'op'>): string {
  return `step ${n} (${step.id ? `id "${step.id}", ` : ''}${step.op})`;
}

function shapeProblem(issue: z.core.$ZodIssue, steps: unknown): string {
  const [first, index, key] = issue.path;
  let where = issue.path.join('.');
  if (first === 'steps' && typeof index === 'number') {
    const raw = Array.isArray(steps) ? (steps[index] as { op?: unknown; id?: unknown }) : undefined;
    const op = typeof raw?.op === 'string' ? raw.op : '?';
    const id = typeof raw?.id === 'string' ? raw.id : undefined;
    where = `${stepLabel(index + 1, { op, id })}${key !== undefined ? ` ${String(key)}` : ''}`;
  }
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => JSON.stringify(k)).join(', ');
    if (first === 'steps')
      return `${where}: unknown step key ${keys}. A step takes ${STEP_KEYS.join(', ')}; the op's own arguments go under args`;
    return `unknown key ${keys}. A flow takes ${DOCUMENT_KEYS.join(', ')}`;
  }
  if (issue.code === 'invalid_type' && issue.input === undefined)
    return `${where || 'the document'}: missing (${issue.expected})`;
  if (issue.code === 'too_small' && first === 'steps')
    return 'steps: a flow needs at least one step';
  return `${where || 'the document'}: ${issue.message}`;
}

function timeoutProblem(timeout: unknown): string | undefined {
  if (timeout === undefined) return undefined;
  if (
    typeof timeout === 'number' &&
    Number.isInteger(timeout) &&
    timeout >= 1 &&
    timeout <= MAX_FLOW_TIMEOUT_S
  )
    return undefined;
  return `timeout ${JSON.stringify(timeout)} is not a number of seconds: write a whole number from 1 to ${MAX_FLOW_TIMEOUT_S}, e.g. timeout: 300 for five minutes (the default is 120)`;
}

const URL_GLOB = /^(\*|[a-z*][a-z0-9+.*-]*:\/\/\S+)$/i;

function urlsProblems(urls: unknown): string[] {
  if (urls === undefined) return [];
  if (!Array.isArray(urls))
    return [
      `urls must be a list of URL globs, e.g. urls: ["https://admin.example.com/*"] (got ${JSON.stringify(urls)})`,
    ];
  return urls.flatMap((u, i) =>
    typeof u === 'string' && URL_GLOB.test(u)
      ? []
      : [
          `urls[${i}] ${JSON.stringify(u)} is not a URL glob: write the whole URL with its scheme, e.g. "https://${typeof u === 'string' ? u.replace(/^\/+/, '') : 'example.com/*'}", or "*" for every site`,
        ],
  );
}

function parameterProblems(parameters: FlowParameters | undefined): string[] {
  if (!parameters) return [];
  const problems: string[] = [];
  const properties = parameters.properties ?? {};
  for (const name of Object.keys(properties))
    if (!PARAMETER_NAME.test(name))
      problems.push(
        `parameters.properties: "${name}" cannot be written as \${${name}}; use letters, digits and _ (not starting with a digit)`,
      );
  for (const name of parameters.required ?? [])
    if (!(name in properties))
      problems.push(
        `parameters.required names "${name}", which is not under parameters.properties; declare it there`,
      );
  try {
    z.fromJSONSchema(parameters as z.core.JSONSchema.JSONSchema);
  } catch (e) {
    problems.push(`parameters is not a usable JSON Schema: ${(e as Error).message}`);
  }
  for (const [name, schema] of Object.entries(properties)) {
    if (!('default' in schema)) continue;
    try {
      const { default: _d, ...rest } = schema;
      const ok = z
        .fromJSONSchema(rest as z.core.JSONSchema.JSONSchema)
        .safeParse(schema.default).success;
      if (!ok)
        problems.push(
          `parameters.properties.${name}: its default ${JSON.stringify(schema.default)} does not match its own schema`,
        );
    } catch {
      // Reported above as an unusable schema.
    }
  }
  return problems;
}

/** A stand-in value per parameter, so a step's arguments can be checked before any run. */
function probeValues(parameters: FlowParameters | undefined): Map<string, string> {
  const values = new Map<string, string>();
  for (const [name, schema] of Object.entries(parameters?.properties ?? {})) {
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    let value: unknown = 'x';
    if ('default' in schema) value = schema.default;
    else if (Array.isArray(schema.enum) && schema.enum.length > 0) value = schema.enum[0];
    else if (type === 'number' || type === 'integer')
      value = typeof schema.minimum === 'number' ? schema.minimum : 1;
    else if (type === 'boolean') value = true;
    values.set(name, asText(value));
  }
  return values;
}

/** Objects under `key` anywhere inside a value. */
export function valuesAt(value: unknown, key: string): unknown[] {
  if (Array.isArray(value)) return value.flatMap((v) => valuesAt(v, key));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === key ? [v] : valuesAt(v, key)));
}

function stepProblems(
  n: number,
  step: FlowStep,
  ops: OpCatalogue,
  declared: Set<string>,
  probes: Map<string, string>,
): string[] {
  const label = stepLabel(n, step);
  const op = ops.get(step.op);
  if (!op) {
    const steps = [...ops.values()].filter((o) => o.step).map((o) => o.name);
    return [`${label}: unknown op "${step.op}". A step calls one of: ${steps.join(', ')}`];
  }
  if (!op.step) return [`${label}: ${notAStep(op.name)}`];
  const problems: string[] = [];
  const args = step.args ?? {};
  if (op.name === 'snapshot' && !step.return)
    problems.push(
      `${label}: a snapshot nobody reads does nothing in a flow; add return: true to have its text in the report, or remove the step`,
    );
  if (op.name === 'assert' && step.on_error === 'continue')
    problems.push(
      `${label}: an assert cannot be on_error: continue — a run that goes on past a false assertion reports a success it did not earn. Remove on_error, or use wait_for for a condition that may not hold`,
    );
  for (const name of parametersRead(args)) {
    if (!declared.has(name))
      problems.push(
        `${label}: \${${name}} is not a declared parameter. Declare it under parameters.properties, or write $\${${name}} for a literal \${${name}} (a JavaScript template literal needs $\${…})`,
      );
  }
  for (const secret of valuesAt(args, 'secret'))
    if (JSON.stringify(secret).includes('${'))
      problems.push(
        `${label}: a secret is never a parameter — name it literally, e.g. secret: {name: admin, key: password}; the operator decides which credential a flow types`,
      );
  const refs = valuesAt(args, 'ref');
  if (refs.length > 0)
    problems.push(
      `${label}: ref ${JSON.stringify(refs[0])} dies with the page it was read from; write a durable target instead — role and name, label, text, testid or css (outline gives one for each element)`,
    );
  if (problems.length === 0) {
    try {
      parseArgs(
        op.name,
        op.args,
        mapStrings(args, (s) => substituteText(s, probes)),
      );
    } catch (e) {
      const message = e instanceof OpError ? e.message.replace(/\.$/, '') : String(e);
      problems.push(`${label}: ${message}`);
    }
  }
  return problems;
}

/** True when a step puts the browser somewhere known, or stops the run when it is not. */
function startsWhereItActs(step: FlowStep): boolean {
  return step.op === 'goto' || step.op === 'assert' || (step.op === 'tab_new' && !!step.args?.url);
}

/**
 * Checks a flow document at save and again at run (DESIGN §8): every refusal names the step number
 * and id and what to write instead. Throws one invalid_argument listing them all.
 */
export function validateFlow(value: unknown, ops: OpCatalogue, what: string): ValidFlow {
  const parsed = flowDocumentSchema.safeParse(value);
  const steps = (value as { steps?: unknown } | null)?.steps;
  if (!parsed.success)
    refuse(
      what,
      parsed.error.issues.map((i) => shapeProblem(i, steps)),
    );
  const doc = parsed.data!;
  const problems: string[] = [];
  try {
    checkName('flow', doc.name);
  } catch (e) {
    problems.push((e as Error).message.replace(/\.$/, ''));
  }
  const timeout = timeoutProblem(doc.timeout);
  if (timeout) problems.push(timeout);
  problems.push(...urlsProblems(doc.urls));
  problems.push(...parameterProblems(doc.parameters));
  const declared = new Set(Object.keys(doc.parameters?.properties ?? {}));
  const probes = probeValues(doc.parameters);
  const ids = new Map<string, number>();
  doc.steps.forEach((step, i) => {
    if (step.id !== undefined) {
      const earlier = ids.get(step.id);
      if (earlier !== undefined)
        problems.push(
          `${stepLabel(i + 1, step)}: id "${step.id}" is already step ${earlier}'s; ids are unique in a flow`,
        );
      else ids.set(step.id, i + 1);
    }
    problems.push(...stepProblems(i + 1, step, ops, declared, probes));
  });
  const warnings: string[] = [];
  const first = doc.steps[0];
  if (!startsWhereItActs(first))
    warnings.push(
      `${stepLabel(1, first)} neither navigates nor asserts: a flow is responsible for being where it acts — start with goto, or with an assert whose message says where the browser should be`,
    );
  const read = new Set(doc.steps.flatMap((s) => parametersRead(s.args)));
  for (const name of declared)
    if (!read.has(name))
      warnings.push(
        `parameter "${name}" is read by no step (a typo in a \${…}?); write \${${name}} where it belongs or remove it`,
      );
  if (problems.length > 0) refuse(what, problems, warnings);
  return {
    flow: {
      ...doc,
      urls: doc.urls as string[] | undefined,
      timeout: doc.timeout as number | undefined,
    },
    warnings,
  };
}

function refuse(what: string, problems: string[], warnings: string[] = []): never {
  const list =
    problems.length === 1
      ? `${problems[0]}.`
      : problems.map((p, i) => `(${i + 1}) ${p}.`).join(' ');
  throw new OpError('invalid_argument', `${what}: ${list}`, {
    details: { problems, ...(warnings.length ? { warnings } : {}) },
  });
}
