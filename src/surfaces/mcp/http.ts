import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Hono } from 'hono';
import { randomUUID } from 'node:crypto';
import type { OpRuntime } from '../../ops/run-op.js';
import { resolveSessionName } from '../../sessions/resolve.js';
import type { RequestExtra } from './mcp-server.js';
import { isToolSet, type ToolSet } from './tools.js';

/** A connection nobody has used for this long is dropped; its client starts a new one (spec). */
const IDLE_MS = 60 * 60 * 1000;

interface Connection {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
}

export interface McpEndpoint {
  close(): Promise<void>;
}

const rpcError = (code: number, message: string) => ({
  jsonrpc: '2.0' as const,
  error: { code, message },
  id: null,
});

/** The caller's session, read per request exactly as the HTTP routes read it (DESIGN §6). */
function sessionOf(runtime: OpRuntime, extra: RequestExtra) {
  const info = extra.requestInfo;
  const header = info?.headers['x-session-key'];
  return runtime.sessions.get(
    resolveSessionName({
      header: Array.isArray(header) ? header[0] : header,
      query: info?.url?.searchParams.get('session'),
    }),
  );
}

/** The MCP SDK loads with the first /mcp request: a server used over plain HTTP never waits for it. */
let sdk:
  | Promise<
      [
        typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
        typeof import('./mcp-server.js'),
      ]
    >
  | undefined;
const loadSdk = () =>
  (sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('./mcp-server.js'),
  ]));

/**
 * Mounts streamable HTTP MCP at /mcp on the server's own app, behind its Origin and token checks.
 * Stateful: a cancellation arrives as its own POST and must reach the server running the call.
 */
export function mountMcp(app: Hono, runtime: OpRuntime): McpEndpoint {
  const config = runtime.sessions.config;
  const live = new Map<string, Connection>();

  const drop = async (id: string) => {
    const connection = live.get(id);
    live.delete(id);
    await connection?.server.close();
  };

  app.all('/mcp', async (c) => {
    const id = c.req.header('mcp-session-id');
    if (id) {
      const connection = live.get(id);
      if (!connection)
        return c.json(
          rpcError(-32001, 'Unknown or expired MCP session; initialize a new one.'),
          404,
        );
      connection.lastSeen = Date.now();
      return connection.transport.handleRequest(c.req.raw);
    }
    for (const [old, connection] of live)
      if (Date.now() - connection.lastSeen > IDLE_MS) await drop(old);

    // A client may pick its tool set on the URL (?tools=full); the server setting is the default.
    const asked = c.req.query('tools')?.trim().toLowerCase();
    if (asked !== undefined && !isToolSet(asked))
      return c.json(rpcError(-32602, `?tools= takes full or compact (got "${asked}").`), 400);
    const tools: ToolSet = asked ?? config.mcpTools;

    const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer }] = await loadSdk();
    const server = createMcpServer({
      runtime,
      tools,
      approval: config.mcpApproval,
      sessionOf: (extra) => sessionOf(runtime, extra),
    });
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          live.set(sid, { transport, server, lastSeen: Date.now() });
        },
        onsessionclosed: (sid) => drop(sid),
        maxRequestBodySize: config.bodyLimit,
      });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw);
    // Anything but an initialize without a session id is refused by the transport: keep nothing.
    if (!transport.sessionId) await server.close();
    return response;
  });

  return {
    close: async () => {
      await Promise.all([...live.keys()].map(drop));
    },
  };
}
