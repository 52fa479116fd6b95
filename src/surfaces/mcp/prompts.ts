import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { OpError } from '../../core/errors.js';
import { PACKAGE_ROOT } from '../../package-root.js';

/** Prompts ship as markdown beside the guide, one file each (seed 000 §F2.6). */
export const PROMPTS_DIR = join(PACKAGE_ROOT, 'skill', 'prompts');

const frontmatterSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/),
  description: z.string().min(1),
  arguments: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
        description: z.string().min(1),
        required: z.boolean().optional(),
        default: z.string().optional(),
      }),
    )
    .default([]),
});

export interface PromptTemplate {
  prompt: Prompt;
  defaults: Record<string, string>;
  body: string;
}

// Double braces, so the `${name}` of flow YAML in a body is left alone.
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Reads one prompt file; a placeholder no argument declares is an error, never a blank. */
export function parsePrompt(file: string, text: string): PromptTemplate {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
  if (!m)
    throw new Error(
      `${file}: a prompt starts with --- frontmatter --- declaring its name and arguments.`,
    );
  const meta = frontmatterSchema.safeParse(parse(m[1]));
  if (!meta.success)
    throw new Error(
      `${file}: frontmatter ${meta.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  const declared = new Set(meta.data.arguments.map((a) => a.name));
  for (const [, name] of m[2].matchAll(PLACEHOLDER))
    if (!declared.has(name))
      throw new Error(
        `${file}: {{ ${name} }} is not a declared argument (declared: ${[...declared].join(', ') || 'none'}).`,
      );
  return {
    prompt: {
      name: meta.data.name,
      description: meta.data.description,
      arguments: meta.data.arguments.map((a) => ({
        name: a.name,
        description: a.description,
        required: a.required ?? false,
      })),
    },
    defaults: Object.fromEntries(
      meta.data.arguments.filter((a) => a.default !== undefined).map((a) => [a.name, a.default!]),
    ),
    body: m[2].trim(),
  };
}

/** Every shipped prompt, by name. */
export function loadPrompts(dir = PROMPTS_DIR): Map<string, PromptTemplate> {
  const prompts = new Map<string, PromptTemplate>();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .sort()) {
    const template = parsePrompt(file, readFileSync(join(dir, file), 'utf8'));
    prompts.set(template.prompt.name, template);
  }
  return prompts;
}

/** Fills a prompt's placeholders; a missing required argument is refused by name. */
export function renderPrompt(
  template: PromptTemplate,
  args: Record<string, string> = {},
): GetPromptResult {
  const declared = template.prompt.arguments ?? [];
  const unknown = Object.keys(args).filter((k) => !declared.some((a) => a.name === k));
  if (unknown.length)
    throw new OpError(
      'invalid_argument',
      `${template.prompt.name} has no argument ${unknown.join(', ')}; it takes ${declared.map((a) => a.name).join(', ')}.`,
    );
  for (const a of declared)
    if (a.required && !args[a.name])
      throw new OpError(
        'invalid_argument',
        `${template.prompt.name} needs ${a.name}: ${a.description}.`,
      );
  const text = template.body.replace(
    PLACEHOLDER,
    (_m, name: string) => args[name] || template.defaults[name] || '',
  );
  return {
    description: template.prompt.description,
    messages: [{ role: 'user', content: { type: 'text', text } }],
  };
}
