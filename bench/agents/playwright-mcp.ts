// Playwright MCP (@playwright/mcp) driven as its guide says: act on a ref from the latest snapshot,
// read the snapshot every action returns. Since 0.0.8x navigate/click write it to a .yml file and
// return a link: reading that file is text the agent receives, so it is counted.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CHROMIUM_ARGS, findBrowser } from '../../src/drivers/find-browser.js';
import type { Act, Target } from '../tasks.js';
import { timed, type Agent, type Call, type Started } from './agent.js';
import { callTool, connectClient, textOf, toolsChars } from './mcp-client.js';

const require = createRequire(import.meta.url);
const PACKAGE_JSON = require.resolve('@playwright/mcp/package.json');
// Its package exports only the library: the bin is found beside package.json.
export const PLAYWRIGHT_MCP_CLI = join(dirname(PACKAGE_JSON), 'cli.js');
export const PLAYWRIGHT_MCP_VERSION = (
  JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }
).version;

/** Its config file: the system Chromium, headless, with the flags this machine needs. */
function writeConfig(dir: string): string {
  const file = join(dir, 'playwright-mcp.json');
  const config = {
    browser: {
      browserName: 'chromium',
      isolated: true,
      launchOptions: { executablePath: findBrowser(), headless: true, args: CHROMIUM_ARGS },
    },
    outputDir: join(dir, 'output'),
  };
  writeFileSync(file, JSON.stringify(config));
  return file;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The ref of `- role "name" … [ref=e12]` in a snapshot, as a model would pick it. */
export function refIn(snapshot: string, t: Target): string | undefined {
  const line = new RegExp(
    // A line holding ": " is single-quoted YAML: - 'link "Guide: setup" [ref=e9]'
    `- '?${escapeRe(t.role)} "${escapeRe(t.name)}"(?: \\[[^\\]]*\\])*? \\[ref=(\\w+)\\]`,
  );
  return line.exec(snapshot)?.[1];
}

export class PlaywrightMcpAgent implements Agent {
  readonly name = 'playwright-mcp';
  toolsChars = 0;
  calls: Call[] = [];
  private client?: Client;
  private transport?: StdioClientTransport;
  /** The latest snapshot the agent has seen: where it looks refs up. */
  private snapshot = '';

  constructor(private readonly workDir: string) {
    mkdirSync(workDir, { recursive: true });
  }

  async start(warmUrl: string): Promise<Started> {
    const t0 = performance.now();
    this.transport = new StdioClientTransport({
      command: process.execPath,
      args: [PLAYWRIGHT_MCP_CLI, '--config', writeConfig(this.workDir)],
      cwd: this.workDir,
      stderr: 'ignore',
    });
    this.client = await connectClient(this.transport);
    const connectMs = performance.now() - t0;
    this.toolsChars = await toolsChars(this.client);
    const t1 = performance.now();
    await this.call('browser_navigate', { url: warmUrl }, 'act');
    return { connectMs, firstNavigateMs: performance.now() - t1 };
  }

  roots() {
    const pid = this.transport?.pid;
    return pid ? [{ pid, includeRoot: true }] : [];
  }

  /** The result text plus every snapshot file it links to (the agent opens them). */
  private received(result: CallToolResult): string {
    const text = textOf(result);
    const parts = [text];
    const inline = /### Snapshot\n```yaml\n([\s\S]*?)```/.exec(text);
    if (inline) this.snapshot = inline[1];
    for (const link of text.matchAll(/\[Snapshot\]\(([^)]+\.yml)\)/g)) {
      const yml = readFileSync(join(this.workDir, link[1]), 'utf8');
      this.snapshot = yml;
      parts.push(yml);
    }
    return parts.join('\n');
  }

  private async call(tool: string, args: Record<string, unknown>, kind: Call['kind']) {
    const client = this.client;
    if (!client) throw new Error('start the agent first');
    const { value, text } = await timed(
      this.calls,
      tool,
      kind,
      args,
      () => callTool(client, tool, args),
      (r: CallToolResult) => ({ text: this.received(r), ok: !r.isError }),
    );
    return { result: value, text };
  }

  /** A ref for `t`: from the latest snapshot, or from a fresh one when it is not there. */
  private async ref(t: Target): Promise<{ ref: string; read: string }> {
    let ref = refIn(this.snapshot, t);
    let read = '';
    if (!ref) {
      read = await this.read();
      ref = refIn(this.snapshot, t);
    }
    if (!ref) throw new Error(`playwright-mcp: no ref for ${t.role} "${t.name}" in its snapshot`);
    return { ref, read };
  }

  private async onRef(t: Target, tool: string, args: Record<string, unknown>): Promise<string> {
    let { ref, read } = await this.ref(t);
    let r = await this.call(tool, { element: t.name, target: ref, ...args }, 'act');
    if (r.result.isError && /not found in the current page snapshot/.test(r.text)) {
      read += await this.read();
      ref = (await this.ref(t)).ref;
      r = await this.call(tool, { element: t.name, target: ref, ...args }, 'act');
    }
    return read + r.text;
  }

  async act(act: Act, base: string): Promise<string> {
    switch (act.do) {
      case 'goto':
        return (await this.call('browser_navigate', { url: `${base}${act.path}` }, 'act')).text;
      case 'click':
      case 'check':
        return this.onRef(act.target, 'browser_click', {});
      case 'fill':
        return this.onRef(act.target, 'browser_type', { text: act.value });
      case 'select':
        return this.onRef(act.target, 'browser_select_option', { values: [act.value] });
      case 'hover':
        return this.onRef(act.target, 'browser_hover', {});
      case 'press':
        return (await this.call('browser_press_key', { key: act.key }, 'act')).text;
    }
  }

  async read(): Promise<string> {
    return (await this.call('browser_snapshot', {}, 'read')).text;
  }

  async waitFor(needle: string): Promise<string> {
    return (await this.call('browser_wait_for', { text: needle }, 'wait')).text;
  }

  async stop(): Promise<void> {
    await this.client?.close();
  }
}
