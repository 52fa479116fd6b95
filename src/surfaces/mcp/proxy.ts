import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  type CallToolResult,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import { firstLine, OpError } from '../../core/errors.js';
import { OP_MAP } from '../../ops/registry.js';
import { VERSION } from '../../version.js';
import { instructionsFor } from './instructions.js';
import { progressSink, SERVER_INFO, type RequestExtra } from './mcp-server.js';
import { answerFor } from '../answer.js';
import { refusal, toToolResult } from './results.js';
import { serveOnStdio } from './stdio.js';
import { listTools, TOOL_PREFIX, type ToolSet } from './tools.js';

export interface ProxyOptions {
  /** Base URL of a running SwiftBrowse server. */
  server: string;
  session: string;
  token?: string;
  tools: ToolSet;
}

/** How long a forwarded call may stay silent; the server's heartbeat resets it. */
const SILENCE_MS = 60_000;

/**
 * `swiftbrowse mcp --server URL`: stdio in front of the server's own /mcp endpoint. Forwarding
 * MCP rather than POST /browser keeps the server's MCP approval policy, progress and cancellation,
 * and the browser (tabs, logins) lives in the server, so it outlives the editor.
 */
export function createProxyServer(options: ProxyOptions): Server {
  const endpoint = new URL('/mcp', options.server);
  endpoint.searchParams.set('session', options.session);
  endpoint.searchParams.set('tools', options.tools);
  let remote: Promise<Client> | undefined;
  /** The host's last logging/setLevel, set again on every connection to the server. */
  let level: LoggingLevel | undefined;

  // Connected on first use, so the editor may start before the server does.
  const connect = (): Promise<Client> => {
    remote ??= (async () => {
      const client = new Client({ name: 'swiftbrowse-mcp-proxy', version: VERSION });
      const headers: Record<string, string> = {};
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      client.onclose = () => {
        remote = undefined;
      };
      // The server's log lines for this session reach the host as they were sent.
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) =>
        server.sendLoggingMessage(n.params).catch(() => undefined),
      );
      try {
        await client.connect(
          new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } }),
        );
      } catch (e) {
        remote = undefined;
        throw connectFailure(e, endpoint, options.token);
      }
      if (level) await client.setLoggingLevel(level);
      return client;
    })();
    return remote;
  };

  // A server restarted since the last call no longer knows our MCP session (404): the call never
  // ran there, so reconnecting and sending it again cannot repeat an action.
  const forward = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    try {
      return await work(await connect());
    } catch (e) {
      if (!(e instanceof StreamableHTTPError) || e.code !== 404) throw e;
      remote = undefined;
      return work(await connect());
    }
  };

  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} },
    instructions: instructionsFor(options.tools),
  });

  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    level = request.params.level;
    await forward((client) => client.setLoggingLevel(request.params.level)).catch(toMcpError);
    return {};
  });

  // Listed here, from the same registry the server derives them from, so a client sees its tools
  // even while the server is still starting.
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: listTools(OP_MAP, options.tools),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra: RequestExtra) => {
    const sink = progressSink(extra);
    try {
      return (await forward((client) =>
        client.callTool(request.params, undefined, {
          signal: extra.signal,
          timeout: SILENCE_MS,
          resetTimeoutOnProgress: true,
          // Always asked for, so the server's heartbeat keeps this hop alive; passed on if wanted.
          onprogress: (p) => {
            if (sink.progressToken !== undefined)
              void sink.send({
                progressToken: sink.progressToken,
                progress: p.progress,
                ...(p.total !== undefined ? { total: p.total } : {}),
                message: p.message ?? '',
              });
          },
        }),
      )) as CallToolResult;
    } catch (e) {
      // The server's protocol errors (an unknown tool) reach the client as they were sent.
      if (e instanceof McpError) throw passedOn(e);
      const refused = refusal(request.params.name.replace(TOOL_PREFIX, ''), e);
      return toToolResult(refused, answerFor(undefined, refused, 'compact'), { structured: false });
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, () =>
    forward((client) => client.listResources()).catch(toMcpError),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () =>
    forward((client) => client.listResourceTemplates()).catch(toMcpError),
  );
  server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    forward((client) => client.readResource(request.params)).catch(toMcpError),
  );
  server.setRequestHandler(ListPromptsRequestSchema, () =>
    forward((client) => client.listPrompts()).catch(toMcpError),
  );
  server.setRequestHandler(GetPromptRequestSchema, (request) =>
    forward((client) => client.getPrompt(request.params)).catch(toMcpError),
  );
  return server;
}

/** Why the proxy could not reach the server: a refusal of its token is not a server that is down. */
function connectFailure(e: unknown, endpoint: URL, token: string | undefined): OpError {
  const status = e instanceof StreamableHTTPError ? e.code : undefined;
  if (status === 401 || status === 403)
    return new OpError(
      'permission_denied',
      `The SwiftBrowse server at ${endpoint.origin} refused this proxy (HTTP ${status}): ${token ? 'the token given (--token or SWIFTBROWSE_TOKEN) is not the one the server was started with' : 'it needs a token and none was given'}. Pass the server's SWIFTBROWSE_TOKEN with --token or the SWIFTBROWSE_TOKEN environment variable.`,
    );
  return new OpError(
    'backend',
    `No SwiftBrowse server answers MCP at ${endpoint.origin} (${firstLine(String((e as Error).message))}). Start one with: swiftbrowse up`,
  );
}

/** The server's error as it sent it: McpError prefixes its code to the message once more. */
function passedOn(e: McpError): McpError {
  return new McpError(e.code, e.message.replace(/^MCP error -?\d+: /, ''), e.data);
}

function toMcpError(e: unknown): never {
  if (e instanceof McpError) throw passedOn(e);
  throw new McpError(ErrorCode.InternalError, e instanceof Error ? e.message : String(e));
}

export async function runProxyMcp(options: ProxyOptions): Promise<void> {
  await serveOnStdio(createProxyServer(options));
}
