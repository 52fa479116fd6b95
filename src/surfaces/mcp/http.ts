import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context, Hono } from 'hono';
import { randomUUID } from 'node:crypto';
import { toOpError } from '../../core/errors.js';
import type { ServerLogTap } from '../../logs/server-log.js';
import type { OpRuntime } from '../../ops/run-op.js';
import { resolveSessionName } from '../../sessions/resolve.js';
import { mcpCallerOf, type McpCaller } from './caller.js';
import type { RequestExtra } from './mcp-server.js';
import { isToolSet, type ToolSet } from './tools.js';

interface Connection {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
  /** McpCaller.key of whoever initialized it. */
  caller: string;
}

/** What an initialize asked for: its tool set, and the session it named (for its log lines). */
interface Named {
  tools: ToolSet;
  session: string;
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
export function mountMcp(app: Hono, runtime: OpRuntime, serverLog: ServerLogTap): McpEndpoint {
  const config = runtime.sessions.config;
  const live = new Map<string, Connection>();
  const idleMs = config.mcpSessionIdle;
  let opening = 0;
  const openingBy = new Map<string, number>();

  const drop = async (id: string) => {
    const connection = live.get(id);
    live.delete(id);
    await connection?.server.close();
  };
  // A connection nobody has used for MCP_SESSION_IDLE is dropped; its client starts a new one (spec).
  const sweep = async () => {
    if (idleMs === 0) return;
    for (const [id, connection] of live)
      if (Date.now() - connection.lastSeen > idleMs) await drop(id);
  };
  // Swept on a timer too, so a server nobody calls any more gives the memory back.
  const sweeper =
    idleMs > 0
      ? setInterval(() => void sweep(), Math.min(Math.max(idleMs / 2, 100), 60_000))
      : undefined;
  sweeper?.unref();

  // The wait a refusal states: when the first of these sessions is idle past MCP_SESSION_IDLE.
  // One still being opened counts as used now.
  const freesIn = (connections: Connection[]) => {
    const oldest = connections.reduce((at, x) => Math.min(at, x.lastSeen), Date.now());
    return Math.max(1, Math.ceil((oldest + idleMs - Date.now()) / 1000));
  };
  const refuse = (c: Context, full: string, connections: Connection[], move: string) => {
    if (idleMs === 0)
      return c.json(
        rpcError(-32000, `${full} None frees on its own (MCP_SESSION_IDLE is 0). ${move}`),
        429,
      );
    const seconds = freesIn(connections);
    c.header('Retry-After', String(seconds));
    return c.json(
      rpcError(
        -32000,
        `${full} The first of them frees in ${seconds} s if it stays unused (MCP_SESSION_IDLE, ${idleMs / 1000} s). ${move}`,
      ),
      429,
    );
  };
  // A caller at its share is refused rather than losing its oldest session to make room: one
  // address or token may stand for several agents, and a session one still uses would vanish.
  const shareRefusal = (c: Context, caller: McpCaller) => {
    const held = [...live.values()].filter((x) => x.caller === caller.key);
    const count = held.length + (openingBy.get(caller.key) ?? 0);
    if (count < config.mcpSessionsPerCaller) return undefined;
    return refuse(
      c,
      `${caller.name} already holds ${count} MCP session${count === 1 ? '' : 's'}, its full share: MCP_SESSIONS_PER_CALLER allows ${config.mcpSessionsPerCaller} per caller.`,
      held,
      'Close sessions you no longer use (DELETE /mcp with their Mcp-Session-Id) or reuse one you hold instead of initializing again.',
    );
  };

  app.all('/mcp', async (c) => {
    // The app's body guard has read the body (size, type, depth); the transport gets it parsed.
    let parsedBody: unknown;
    if (c.req.method === 'POST') {
      try {
        parsedBody = JSON.parse(await c.req.text()) as unknown;
      } catch {
        return c.json(rpcError(-32700, 'Parse error: the body is not valid JSON.'), 400);
      }
    }
    const id = c.req.header('mcp-session-id');
    if (id) {
      const connection = live.get(id);
      if (!connection)
        return c.json(
          rpcError(-32001, 'Unknown or expired MCP session; initialize a new one.'),
          404,
        );
      connection.lastSeen = Date.now();
      return connection.transport.handleRequest(c.req.raw, { parsedBody });
    }
    // Checked at initialize, not at the first call: a connection without a session would list its
    // tools and then fail every call.
    let session: string;
    try {
      const header = c.req.header('x-session-key');
      session = resolveSessionName({ header, query: c.req.query('session') });
    } catch (e) {
      return c.json(rpcError(-32602, toOpError(e).message), 400);
    }
    await sweep();
    // The same condition as MAX_SESSIONS (session_limit, 429): the server is healthy but full.
    // Initializes still being answered count, or a burst of them would pass the cap together.
    const caller = mcpCallerOf(c, config.token);
    const overShare = shareRefusal(c, caller);
    if (overShare) return overShare;
    if (live.size + opening >= config.mcpMaxSessions)
      return refuse(
        c,
        `SwiftBrowse already holds ${live.size + opening} MCP sessions, the most MCP_MAX_SESSIONS allows.`,
        [...live.values()],
        'Close a session you no longer use (DELETE /mcp with its Mcp-Session-Id) or retry later.',
      );

    // A client may pick its tool set on the URL (?tools=full); the server setting is the default.
    const asked = c.req.query('tools')?.trim().toLowerCase();
    if (asked !== undefined && !isToolSet(asked))
      return c.json(rpcError(-32602, `?tools= takes full or compact (got "${asked}").`), 400);
    const tools: ToolSet = asked ?? config.mcpTools;

    return open(c.req.raw, { tools, session }, parsedBody, caller.key);
  });

  const open = async (request: Request, named: Named, parsedBody: unknown, caller: string) => {
    const count = (by: number) => {
      opening += by;
      const now = (openingBy.get(caller) ?? 0) + by;
      if (now > 0) openingBy.set(caller, now);
      else openingBy.delete(caller);
    };
    let counted = true;
    const uncount = () => {
      if (counted) count(-1);
      counted = false;
    };
    count(1);
    try {
      return await connect(request, named, parsedBody, caller, uncount);
    } finally {
      uncount();
    }
  };

  const connect = async (
    request: Request,
    named: Named,
    parsedBody: unknown,
    caller: string,
    initialized: () => void,
  ) => {
    const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer }] = await loadSdk();
    const server = createMcpServer({
      runtime,
      tools: named.tools,
      approval: config.mcpApproval,
      sessionOf: (extra) => sessionOf(runtime, extra),
      serverLog: { tap: serverLog, session: named.session },
    });
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          initialized();
          live.set(sid, { transport, server, lastSeen: Date.now(), caller });
        },
        onsessionclosed: (sid) => drop(sid),
      });
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody });
    // Anything but an initialize without a session id is refused by the transport: keep nothing.
    if (!transport.sessionId) await server.close();
    return response;
  };

  return {
    close: async () => {
      clearInterval(sweeper);
      await Promise.all([...live.keys()].map(drop));
    },
  };
}
