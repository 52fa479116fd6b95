import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { pino } from 'pino';
import type { Config } from '../../config.js';
import { createSwiftBrowse } from '../../server.js';
import { resolveSessionName } from '../../sessions/resolve.js';
import { STDIO_SESSION } from '../../sessions/session-manager.js';
import { createMcpServer } from './mcp-server.js';
import type { ToolSet } from './tools.js';

/** Serves `server` on stdin/stdout until the client hangs up or the process is told to stop. */
export async function serveOnStdio(server: Server): Promise<void> {
  await server.connect(new StdioServerTransport());
  await new Promise<void>((resolve) => {
    // The transport does not watch for the end of stdin; a client closes it to say goodbye.
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
}

/** `swiftbrowse mcp`: the runtime in this process, no HTTP listener. */
export async function runStdioMcp(options: {
  config: Config;
  session?: string;
  tools: ToolSet;
}): Promise<void> {
  const { config } = options;
  // stdout carries the protocol: every log line goes to stderr.
  const app = await createSwiftBrowse(
    config,
    pino({ level: config.logLevel }, pino.destination(2)),
  );
  const name = options.session ? resolveSessionName({ flag: options.session }) : STDIO_SESSION;
  const server = createMcpServer({
    runtime: app.runtime,
    tools: options.tools,
    approval: config.mcpApproval,
    sessionOf: () => app.runtime.sessions.get(name),
    serverLog: { tap: app.serverLog, session: name },
  });
  try {
    await serveOnStdio(server);
  } finally {
    await app.close();
  }
}
