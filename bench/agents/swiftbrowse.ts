// SwiftBrowse over MCP, driven as its guide says: act by role and name, read data.changes, take a
// snapshot only when the changes did not say what the agent needs — and when they were cut short,
// only the rest they name (snapshot {after}).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fileURLToPath } from 'node:url';
import type { Act, Target } from '../tasks.js';
import { timed, type Agent, type Call, type Started } from './agent.js';
import { callTool, connectClient, textOf, toolsChars } from './mcp-client.js';

export const SWIFTBROWSE_MAIN = fileURLToPath(
  new URL('../../src/surfaces/cli/main.js', import.meta.url),
);

export type ToolSet = 'full' | 'compact';

export interface SwiftBrowseOptions {
  tools: ToolSet;
  /** Stdio child (own process tree) when no `httpBase`; else MCP over HTTP on a running server. */
  httpBase?: string;
  session?: string;
  env?: Record<string, string>;
  /** Extra arguments on every acting op (e.g. `{diff: false}`). */
  actArgs?: Record<string, unknown>;
  /** Another build's dist/src/surfaces/cli/main.js, to compare with (stdio only). */
  main?: string;
}

function targetOf(t: Target): Record<string, unknown> {
  const target: Record<string, unknown> = t.byLabel
    ? { label: t.name }
    : { role: t.role, name: t.name };
  if (t.frame) target.frame = { css: t.frame };
  return target;
}

/** The op and arguments SwiftBrowse's guide gives for an intent. */
export function opOf(act: Act, base: string): { op: string; args: Record<string, unknown> } {
  switch (act.do) {
    case 'goto':
      return { op: 'goto', args: { url: `${base}${act.path}` } };
    case 'click':
      return {
        op: 'click',
        args: { target: targetOf(act.target), ...(act.approved ? { approved: true } : {}) },
      };
    case 'fill':
    case 'select':
      return { op: 'fill', args: { target: targetOf(act.target), value: act.value } };
    case 'check':
      return { op: 'fill', args: { target: targetOf(act.target), value: true } };
    case 'hover':
      return { op: 'hover', args: { target: targetOf(act.target) } };
    case 'press':
      return { op: 'press', args: { target: targetOf(act.target), key: act.key } };
  }
}

export class SwiftBrowseAgent implements Agent {
  readonly name: string;
  toolsChars = 0;
  calls: Call[] = [];
  private client?: Client;
  /** The call the last answer named for the rest of a cut-short read (`rest`), if it did. */
  private rest?: { op: string; args: Record<string, unknown> };
  private transport?: StdioClientTransport | StreamableHTTPClientTransport;

  constructor(private readonly options: SwiftBrowseOptions) {
    this.name = `swiftbrowse-${options.tools}`;
  }

  async start(warmUrl: string): Promise<Started> {
    this.calls = [];
    const t0 = performance.now();
    const { httpBase, tools, session } = this.options;
    this.transport = httpBase
      ? new StreamableHTTPClientTransport(
          new URL(
            `/mcp?session=${encodeURIComponent(session ?? 'bench')}&tools=${tools}`,
            httpBase,
          ),
        )
      : new StdioClientTransport({
          command: process.execPath,
          args: [
            this.options.main ?? SWIFTBROWSE_MAIN,
            'mcp',
            '--tools',
            tools,
            '--session',
            session ?? 'bench',
          ],
          env: { ...cleanEnv(), LOG_LEVEL: 'warn', ...this.options.env },
          stderr: 'ignore',
        });
    this.client = await connectClient(this.transport);
    const connectMs = performance.now() - t0;
    this.toolsChars = await toolsChars(this.client);
    const t1 = performance.now();
    await this.run('goto', { url: warmUrl });
    return { connectMs, firstNavigateMs: performance.now() - t1 };
  }

  async listTools() {
    if (!this.client) throw new Error('start the agent first');
    return (await this.client.listTools()).tools;
  }

  async fresh(warmUrl: string): Promise<void> {
    await this.stop();
    const calls = this.calls;
    await this.start(warmUrl);
    // The warm-up goto is not part of any task.
    this.calls = calls;
  }

  roots() {
    const pid = this.transport instanceof StdioClientTransport ? this.transport.pid : null;
    return pid ? [{ pid, includeRoot: true }] : [];
  }

  /** One op through the tool set's own shape: browser_<op>, or browser_run {op, args}. */
  async run(op: string, args: Record<string, unknown>, kind: Call['kind'] = 'act') {
    const client = this.client;
    if (!client) throw new Error('start the agent first');
    const [tool, toolArgs] =
      this.options.tools === 'full' ? [`browser_${op}`, args] : ['browser_run', { op, args }];
    const { value, text } = await timed(
      this.calls,
      tool === 'browser_run' ? `browser_run:${op}` : tool,
      kind,
      toolArgs,
      () => callTool(client, tool, toolArgs),
      (r: CallToolResult) => ({ text: textOf(r), ok: !r.isError }),
    );
    return { result: value, text };
  }

  async act(act: Act, base: string): Promise<string> {
    const { op, args } = opOf(act, base);
    const { text } = await this.run(op, { ...args, ...this.options.actArgs });
    this.rest = restOf(text, 'changes');
    return text;
  }

  async read(): Promise<string> {
    // The guide: what the changes showed need not be read again; their rest is what follows.
    const { op, args } = this.rest ?? { op: 'snapshot', args: {} };
    const { text } = await this.run(op, args, 'read');
    this.rest = restOf(text);
    return text;
  }

  async waitFor(needle: string): Promise<string> {
    return (await this.run('wait_for', { text_visible: needle }, 'wait')).text;
  }

  async stop(): Promise<void> {
    await this.client?.close();
  }
}

/** `data.rest` (a snapshot) or `data.changes.rest` (an action) of an answer, when it was cut short. */
function restOf(text: string, under?: 'changes'): SwiftBrowseAgent['rest'] {
  try {
    const data = (JSON.parse(text) as { data?: Record<string, unknown> }).data;
    const holder = (under ? data?.[under] : data) as
      { rest?: SwiftBrowseAgent['rest'] } | undefined;
    return holder?.rest;
  } catch {
    return undefined;
  }
}

/** The environment a client starts a server with: no stray SwiftBrowse settings. */
export function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('SWIFTBROWSE_') && k !== 'MCP_TOOLS') env[k] = v;
  return env;
}
