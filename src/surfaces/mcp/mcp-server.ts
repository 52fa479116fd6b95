import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { OpError, toOpError } from '../../core/errors.js';
import { runOp, type OpRuntime } from '../../ops/run-op.js';
import type { Session } from '../../sessions/session.js';
import { VERSION } from '../../version.js';
import { opListing } from '../../ops/listing.js';
import { filesListing } from '../../ops/files.js';
import { sessionStatus } from '../../ops/lifecycle.js';
import { scrub } from '../../core/redact.js';
import { flowJsonSchema } from '../../flows/schema.js';
import type { ServerLogTap } from '../../logs/server-log.js';
import { instructionsFor } from './instructions.js';
import { forwardServerLog } from './logging.js';
import { loadPrompts, renderPrompt } from './prompts.js';
import { withProgress, type ProgressSink } from './progress.js';
import {
  FILE_RESOURCE_MAX_BYTES,
  FILES_URI,
  listResources,
  READ_RESOURCE_TOOL,
  readResource,
  RESOURCE_TEMPLATES,
  type ResourceSource,
} from './resources.js';
import { readFile } from 'node:fs/promises';
import type { Detail } from '../../core/compact-answer.js';
import { answerFor } from '../answer.js';
import { refusal, toToolResult } from './results.js';
import { listTools, opCallOf, TOOL_PREFIX, type ToolSet } from './tools.js';

export type RequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface McpServerOptions {
  runtime: OpRuntime;
  tools: ToolSet;
  /** Consequential actions need `approved: true` (DESIGN §3.6: on by default over MCP). */
  approval: boolean;
  /** The caller's session for this request; throws an OpError when none is named. */
  sessionOf(extra: RequestExtra): Promise<Session>;
  /** The server log, sent to the host as MCP `logging` for the session this connection named. */
  serverLog: { tap: ServerLogTap; session: string };
}

export const SERVER_INFO = { name: 'swiftbrowse', version: VERSION };

/** The progress notifications of one request, sent on that request's own stream. */
export function progressSink(extra: RequestExtra): ProgressSink {
  return {
    progressToken: extra._meta?.progressToken,
    send: (params) => extra.sendNotification({ method: 'notifications/progress', params }),
  };
}

/** A protocol error for a resource request; tool failures are results, never these. */
function protocolError(e: unknown): McpError {
  const error = toOpError(e);
  // -32002 is the spec's "resource not found".
  const code = error.kind === 'not_found' ? -32002 : ErrorCode.InvalidParams;
  return new McpError(code, error.message);
}

/**
 * One MCP server over the in-process runtime: it only translates tool calls into runOp calls and
 * ActionResults into tool results (STYLE: a surface translates in and out).
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { runtime } = options;
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} },
    instructions: instructionsFor(options.tools),
  });
  const prompts = loadPrompts();
  forwardServerLog(server, options.serverLog.tap, {
    session: options.serverLog.session,
    boundOf: (name) => runtime.sessions.find(name)?.bound,
  });

  const config = runtime.sessions.config;
  const opData = async (extra: RequestExtra, op: string, args: Record<string, unknown> = {}) => {
    const session = await options.sessionOf(extra);
    const result = await runOp(runtime, { op, args, session, surface: 'mcp' });
    if (!result.ok && result.error) throw new OpError(result.error.kind, result.error.message);
    return result.data;
  };
  const resourcesOf = (extra: RequestExtra): ResourceSource => ({
    opListing: () => opListing(runtime.ops.values()),
    // Reads, not ops: reading a resource spends no action id and logs nothing.
    sessionStatus: async () => {
      const session = await options.sessionOf(extra);
      // It names URLs: typed secrets are scrubbed from it as from every op's answer.
      return scrub(await sessionStatus(session, runtime.flows), session.bound);
    },
    opData: (op) => opData(extra, op),
    flowLibrary: () => opData(extra, 'flow_list', { everywhere: true }),
    flowsHere: () => opData(extra, 'flow_list', {}),
    flowSchema: () => flowJsonSchema(runtime.ops.values()),
    flow: (name) => opData(extra, 'flow_get', { name }),
    file: async (name) => {
      const { data: listed } = await filesListing(await options.sessionOf(extra), runtime.files);
      const entry = listed.files.find((f) => f.name === name);
      if (!entry)
        throw new OpError(
          'not_found',
          `No file "${name}" in this session. Its files: ${listed.files.map((f) => f.name).join(', ') || 'none'} (resource ${FILES_URI}).`,
        );
      const session = await options.sessionOf(extra);
      const found = await runtime.files.open(session.name, name);
      const small = found && found.size <= FILE_RESOURCE_MAX_BYTES;
      return {
        entry,
        contentType: entry.content_type,
        ...(small ? { bytes: await readFile(found.path) } : {}),
      };
    },
    sessionName: async () => (await options.sessionOf(extra)).name,
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      ...listTools(runtime.ops, options.tools),
      // Clients do not say whether they read resources, so the mirror is the operator's choice.
      ...(config.mcpResourceTools ? [READ_RESOURCE_TOOL] : []),
    ],
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = request.params.name;
    if (tool === READ_RESOURCE_TOOL.name && config.mcpResourceTools) {
      const uri = String((request.params.arguments as { uri?: unknown } | undefined)?.uri ?? '');
      try {
        const read = await readResource(resourcesOf(extra), uri);
        return {
          content: read.contents.map((c) => ({
            type: 'text' as const,
            text: 'text' in c ? String(c.text) : '',
          })),
        };
      } catch (e) {
        return { isError: true, content: [{ type: 'text' as const, text: toOpError(e).message }] };
      }
    }
    const label = tool.startsWith(TOOL_PREFIX) ? tool.slice(TOOL_PREFIX.length) : tool;
    const sent = { structured: config.mcpStructuredContent };
    let detail: Detail = 'compact';
    let session: Session | undefined;
    try {
      const call = opCallOf(runtime.ops, tool, request.params.arguments, options.tools);
      detail = call.detail;
      const caller = await options.sessionOf(extra);
      session = caller;
      const result = await withProgress(progressSink(extra), call.op, (report) =>
        runOp(runtime, {
          op: call.op,
          args: call.args,
          session: caller,
          surface: 'mcp',
          approval: options.approval,
          signal: extra.signal,
          onProgress: report,
        }),
      );
      return toToolResult(result, answerFor(session, result, detail), sent);
    } catch (e) {
      // A tool this connection does not list is the host's mistake, answered as a protocol error.
      if (e instanceof McpError) throw e;
      const refused = refusal(label, e);
      return toToolResult(refused, answerFor(session, refused, detail), sent);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: await listResources(),
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: RESOURCE_TEMPLATES,
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    try {
      return await readResource(resourcesOf(extra), request.params.uri);
    } catch (e) {
      throw protocolError(e);
    }
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [...prompts.values()].map((p) => p.prompt),
  }));

  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    const template = prompts.get(request.params.name);
    if (!template)
      throw new McpError(
        ErrorCode.InvalidParams,
        `No prompt "${request.params.name}". Prompts: ${[...prompts.keys()].join(', ')}.`,
      );
    try {
      return renderPrompt(template, request.params.arguments);
    } catch (e) {
      throw protocolError(e);
    }
  });

  return server;
}
