import { Document, isMap } from 'yaml';
import { z } from 'zod';
import { yamlDocument } from '../core/depth.js';
import { OpError } from '../core/errors.js';

/** A flow's whole-run budget when it declares none (DESIGN §8). */
export const DEFAULT_FLOW_TIMEOUT_S = 120;
export const MAX_FLOW_TIMEOUT_S = 86_400;

/**
 * Most YAML alias expansions a flow document may make (the yaml package's own default, written
 * here so the refusal can name it): a "billion laughs" document grows exponentially with them.
 */
export const MAX_YAML_ALIASES = 100;

/** A parameter name must be writable as `${name}`. */
export const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const flowStepSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a step id is 1–64 letters, digits, ".", "_", "-"')
    .optional()
    .describe('A name for this step, unique in the flow; reports print it'),
  op: z.string().min(1).describe('The op this step calls, e.g. "click"'),
  args: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("The op's own arguments; ${name} reads a parameter, $${ writes a literal ${"),
  on_error: z
    .enum(['abort', 'continue'])
    .optional()
    .describe('abort (default) stops the run at a failure; continue goes on (never on assert)'),
  return: z.boolean().optional().describe("Include this step's full result in the run report"),
  note: z.string().optional().describe('Why this step is here; shown when it fails'),
});

/** `parameters` is JSON Schema of an object; its property names are what `${name}` reads. */
export const parametersSchema = z
  .looseObject({
    type: z.literal('object'),
    properties: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    required: z.array(z.string()).optional(),
  })
  .describe('JSON Schema of the run parameters: {type: object, properties, required}');

/**
 * The document as stored. `timeout` and `urls` are checked by validation, so a bad one is refused
 * with a sentence saying what to write instead rather than a type error.
 */
export const flowDocumentSchema = z.strictObject({
  name: z.string().describe('The flow name: 1–64 letters, digits, ".", "_", "-"'),
  description: z.string().optional().describe('What the flow does, one line'),
  urls: z
    .unknown()
    .optional()
    .describe(
      'Globs of the pages it applies to, e.g. ["https://admin.example.com/*"]; discovery only',
    ),
  timeout: z
    .unknown()
    .optional()
    .describe(`Seconds for the whole run (default ${DEFAULT_FLOW_TIMEOUT_S})`),
  parameters: parametersSchema.optional(),
  steps: z.array(flowStepSchema).min(1).describe('The ops to run, in order'),
});

export type FlowStep = z.output<typeof flowStepSchema>;
export type FlowParameters = z.output<typeof parametersSchema>;

/** A flow after validation. */
export interface Flow {
  name: string;
  description?: string;
  urls?: string[];
  timeout?: number;
  parameters?: FlowParameters;
  steps: FlowStep[];
}

/** The document as text and as a value; `text` keeps the author's comments. */
export interface FlowSource {
  text: string;
  value: unknown;
}

/**
 * Reads a flow given as YAML text (comments kept) or as a JSON value. A `name` missing from the
 * document is filled in from `name`; one that disagrees is refused rather than silently renamed.
 */
export function flowSource(input: unknown, name?: string): FlowSource {
  let doc: Document;
  if (typeof input === 'string') {
    doc = yamlDocument(input);
    if (doc.errors.length > 0) {
      throw new OpError(
        'invalid_argument',
        `The flow is not valid YAML: ${doc.errors[0].message.split('\n')[0]}. Send YAML text or a JSON object.`,
      );
    }
    if (!isMap(doc.contents)) {
      throw new OpError(
        'invalid_argument',
        'A flow is a mapping with name, steps and optionally description, urls, timeout, parameters.',
      );
    }
  } else if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    doc = new Document(input);
  } else {
    throw new OpError(
      'invalid_argument',
      'A flow is YAML text or a JSON object with name, steps and optionally description, urls, timeout, parameters.',
    );
  }
  const given = doc.get('name');
  if (name !== undefined) {
    if (given === undefined || given === null) {
      // Put the name first, where a reader looks for it.
      if (isMap(doc.contents)) doc.contents.items.unshift(doc.createPair('name', name));
    } else if (given !== name) {
      throw new OpError(
        'invalid_argument',
        `The flow is saved as "${name}" but its document says name: ${JSON.stringify(given)}. Make them the same (or leave name out of the document).`,
      );
    }
  }
  return { text: doc.toString({ lineWidth: 0 }), value: expand(doc) };
}

/** The document's value, refusing one whose aliases (`*name`) would expand past the limit. */
function expand(doc: Document): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as unknown;
  } catch (e) {
    if (!(e instanceof ReferenceError)) throw e;
    throw new OpError(
      'invalid_argument',
      `The flow's YAML aliases (*name) expand to more than ${MAX_YAML_ALIASES} copies, the most a flow may use (${e.message}). Write the repeated values out, or use a parameter.`,
    );
  }
}
