import type {
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { OpError } from '../../core/errors.js';
import { PACKAGE_ROOT } from '../../package-root.js';

export const SESSION_URI = 'swiftbrowse://session';
export const OPS_URI = 'swiftbrowse://ops';
export const SECRETS_URI = 'swiftbrowse://secrets';
export const FILES_URI = 'swiftbrowse://files';
export const FLOWS_URI = 'swiftbrowse://flows';
// Under the session, not flows/: a flow may be named anything, "here" included.
export const FLOWS_HERE_URI = 'swiftbrowse://session/flows';
export const FLOW_SCHEMA_URI = 'swiftbrowse://schemas/flow';
const SKILL_PREFIX = 'skill://swiftbrowse/';
const SKILL_DIR = join(PACKAGE_ROOT, 'skill');

/** What the resources are read from; the surface supplies the session it serves. */
export interface ResourceSource {
  /** The status op's data for the caller's session. */
  sessionStatus(): Promise<unknown>;
  /** Every op with its argument schema (as GET /ops). */
  opListing(): unknown;
  /** The data of a browserless read op (secrets, files) run in the caller's session. */
  opData(op: 'secrets' | 'files'): Promise<unknown>;
  /** The session's flows and the global ones (flow_list everywhere). */
  flowLibrary(): Promise<unknown>;
  /** The flows whose urls cover the session's current page (flow_list). */
  flowsHere(): Promise<unknown>;
  /** The JSON Schema of a flow document. */
  flowSchema(): unknown;
  /** One saved flow as flow_get reads it (yours, else the global one). */
  flow(name: string): Promise<unknown>;
  /** One of the session's files: its entry, and its bytes when they are small enough to send. */
  file(name: string): Promise<{ entry: unknown; bytes?: Buffer; contentType: string }>;
  /** The caller's own session name: the only session a connection may read. */
  sessionName(): Promise<string>;
}

/** A file larger than this is read by its signed link, not sent inside the answer. */
export const FILE_RESOURCE_MAX_BYTES = 1024 * 1024;

const FLOW_TEMPLATE = 'swiftbrowse://flows/{name}';
const FILE_TEMPLATE = 'swiftbrowse://files/{name}';
const SESSION_TEMPLATE = 'swiftbrowse://sessions/{name}/status';

/** Resources named by a part of their URI: one flow, one file, a session's status. */
export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: FLOW_TEMPLATE,
    name: 'flow',
    mimeType: 'application/json',
    description: 'One saved flow (yours, else the global one): document, YAML text, revision',
  },
  {
    uriTemplate: FILE_TEMPLATE,
    name: 'file',
    description: `One of this session's files by name: its entry and signed link, and its bytes up to ${FILE_RESOURCE_MAX_BYTES / 1024} KiB`,
  },
  {
    uriTemplate: SESSION_TEMPLATE,
    name: 'session status',
    mimeType: 'application/json',
    description: 'The status of your session by name (a connection reads only its own)',
  },
];

/** The `{name}` of a templated URI, or undefined when `uri` is not of that template. */
function nameIn(template: string, uri: string): string | undefined {
  const [before, after] = template.split('{name}');
  if (!uri.startsWith(before) || !uri.endsWith(after)) return undefined;
  const raw = uri.slice(before.length, uri.length - after.length);
  try {
    const name = decodeURIComponent(raw);
    return name && !name.includes('/') ? name : undefined;
  } catch {
    return undefined;
  }
}

async function readTemplated(
  source: ResourceSource,
  uri: string,
): Promise<ReadResourceResult | undefined> {
  const flow = nameIn(FLOW_TEMPLATE, uri);
  if (flow !== undefined) return json(uri, await source.flow(flow));
  const file = nameIn(FILE_TEMPLATE, uri);
  if (file !== undefined) {
    const { entry, bytes, contentType } = await source.file(file);
    const contents: ReadResourceResult['contents'] = [
      { uri, mimeType: 'application/json', text: JSON.stringify(entry) },
    ];
    if (bytes) contents.push({ uri, mimeType: contentType, blob: bytes.toString('base64') });
    return { contents };
  }
  const session = nameIn(SESSION_TEMPLATE, uri);
  if (session !== undefined) {
    const own = await source.sessionName();
    if (session !== own)
      throw new OpError(
        'not_found',
        `No resource ${uri}: a connection reads only its own session's status (this one is "${own}": ${SESSION_URI}). An operator reads any session with GET /admin/sessions/${session}.`,
      );
    return json(uri, await source.sessionStatus());
  }
  return undefined;
}

/** Markdown files under skill/, SKILL.md first: the guide is written while the server runs. */
async function skillFiles(dir = SKILL_DIR): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    // Prompts are MCP prompts, not pages of the guide.
    if (e.isDirectory() && e.name !== 'prompts') found.push(...(await skillFiles(path)));
    else if (e.name.endsWith('.md')) found.push(relative(SKILL_DIR, path).split(sep).join('/'));
  }
  return found.sort((a, b) => (a === 'SKILL.md' ? -1 : b === 'SKILL.md' ? 1 : a.localeCompare(b)));
}

export async function listResources(): Promise<Resource[]> {
  const skill = (await skillFiles()).map((path): Resource => ({
    uri: `${SKILL_PREFIX}${path}`,
    name: `skill/${path}`,
    mimeType: 'text/markdown',
    description:
      path === 'SKILL.md'
        ? 'The agent guide: how to drive SwiftBrowse, a table of every op, links to the references'
        : `Agent guide reference: ${path}`,
  }));
  return [
    {
      uri: SESSION_URI,
      name: 'session',
      mimeType: 'application/json',
      description: 'This session: browser open or not, tabs, URL, settings',
    },
    {
      uri: OPS_URI,
      name: 'ops',
      mimeType: 'application/json',
      description: 'Every op with the JSON schema of its arguments',
    },
    {
      uri: SECRETS_URI,
      name: 'secrets',
      mimeType: 'application/json',
      description:
        'Secrets this session may type with fill {secret: {name, key}}: names, keys, allowed origins — never values',
    },
    {
      uri: FILES_URI,
      name: 'files',
      mimeType: 'application/json',
      description: "This session's files (downloads, screenshots, kept copies) with signed links",
    },
    {
      uri: FLOWS_URI,
      name: 'flows',
      mimeType: 'application/json',
      description: 'The saved flows you can run (yours and global), with their parameters',
    },
    {
      uri: FLOWS_HERE_URI,
      name: 'flows here',
      mimeType: 'application/json',
      description:
        'The saved flows for the page this session is on: those whose urls cover its URL (every flow when no page is open); read at the time of reading, so read it again after the page changes',
    },
    {
      uri: FLOW_SCHEMA_URI,
      name: 'flow schema',
      mimeType: 'application/schema+json',
      description: 'The JSON Schema of a flow document, steps derived from the op schemas',
    },
    ...skill,
  ];
}

const json = (uri: string, value: unknown): ReadResourceResult => ({
  contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }],
});

export async function readResource(
  source: ResourceSource,
  uri: string,
): Promise<ReadResourceResult> {
  if (uri === SESSION_URI) return json(uri, await source.sessionStatus());
  if (uri === OPS_URI) return json(uri, { ops: source.opListing() });
  if (uri === SECRETS_URI) return json(uri, await source.opData('secrets'));
  if (uri === FILES_URI) return json(uri, await source.opData('files'));
  if (uri === FLOWS_URI) return json(uri, await source.flowLibrary());
  if (uri === FLOWS_HERE_URI) return json(uri, await source.flowsHere());
  if (uri === FLOW_SCHEMA_URI) return json(uri, source.flowSchema());
  const templated = await readTemplated(source, uri);
  if (templated) return templated;
  // Error hints point into the guide with a #section; the file is the resource.
  const path = uri.startsWith(SKILL_PREFIX) ? uri.slice(SKILL_PREFIX.length).split('#')[0] : '';
  // Only listed files are served, so a crafted path cannot leave skill/.
  if (path && (await skillFiles()).includes(path)) {
    const text = await readFile(join(SKILL_DIR, ...path.split('/')), 'utf8');
    return { contents: [{ uri, mimeType: 'text/markdown', text }] };
  }
  throw new OpError(
    'not_found',
    `No resource ${uri}. Resources: ${(await listResources()).map((r) => r.uri).join(', ')}; templates: ${RESOURCE_TEMPLATES.map((t) => t.uriTemplate).join(', ')}.`,
  );
}

/** The mirror of resources/read as a tool (MCP_RESOURCE_TOOLS), for clients without resources. */
export const READ_RESOURCE_TOOL = {
  name: 'browser_read_resource',
  description: `Read a SwiftBrowse resource: ${SESSION_URI} (your session), ${OPS_URI} (op schemas), skill://swiftbrowse/SKILL.md (the guide)`,
  inputSchema: {
    type: 'object' as const,
    properties: { uri: { type: 'string', description: 'The resource URI' } },
    required: ['uri'],
  },
  annotations: { readOnlyHint: true },
};
