// The MCP SDK's real client, as an agent's host runs it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export async function connectClient(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'swiftbrowse-bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The text a model is shown for a tool result: its text content, the answer's one copy. */
export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
  })) as CallToolResult;
}

export async function toolsChars(client: Client): Promise<number> {
  return JSON.stringify((await client.listTools()).tools).length;
}
