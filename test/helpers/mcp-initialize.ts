/** An MCP `initialize` request body, as a client opening a session sends it (tests and bench). */
export function mcpInitialize(client: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: client, version: '1' },
    },
  });
}
