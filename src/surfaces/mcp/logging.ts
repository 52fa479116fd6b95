import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  LoggingLevelSchema,
  SetLevelRequestSchema,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import { scrub, type BoundValues } from '../../core/redact.js';
import type { ServerLogLine, ServerLogTap } from '../../logs/server-log.js';

/** What a host hears before it sets a level: problems only, the rest when it asks. */
export const DEFAULT_LOG_LEVEL: LoggingLevel = 'warning';
/** At most this many lines a second reach one connection; the rest are counted and said once. */
export const LOG_LINES_PER_SECOND = 20;

const SEVERITY = new Map(LoggingLevelSchema.options.map((level, i) => [level, i]));

/** pino's numeric level as MCP's (RFC 5424) name. */
export function mcpLevelOf(pinoLevel: number): LoggingLevel {
  if (pinoLevel >= 60) return 'critical';
  if (pinoLevel >= 50) return 'error';
  if (pinoLevel >= 40) return 'warning';
  if (pinoLevel >= 30) return 'info';
  return 'debug';
}

/** Whether a line belongs to `session`'s connection: its own, or the server's (naming none). */
function concerns(line: ServerLogLine, session: string): boolean {
  const { session: one, sessions: many } = line.fields;
  if (one === undefined && many === undefined) return true;
  return one === session || (Array.isArray(many) && many.includes(session));
}

export interface ServerLogOptions {
  /** The session this connection drives: lines naming another session are not its business. */
  session: string;
  /** The values typed from secrets in a session, scrubbed from every line as from every answer. */
  boundOf(session: string): BoundValues | undefined;
}

/**
 * MCP's `logging` on one connection: the server log's lines about its session (and the server's
 * own) as `notifications/message`, at or above the level the host sets with `logging/setLevel`
 * (DEFAULT_LOG_LEVEL until it does), at most LOG_LINES_PER_SECOND. Needs the `logging` capability.
 */
export function forwardServerLog(server: Server, tap: ServerLogTap, options: ServerLogOptions) {
  let level = DEFAULT_LOG_LEVEL;
  // One connection is one Server: its level is the connection's, kept here rather than by the SDK,
  // which sends everything until a level is set.
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    level = request.params.level;
    return {};
  });

  let windowStart = 0;
  let sent = 0;
  let dropped = 0;
  let flush: NodeJS.Timeout | undefined;
  const send = (params: { level: LoggingLevel; data: unknown }) =>
    server.sendLoggingMessage({ ...params, logger: 'swiftbrowse' }).catch(() => undefined);
  const sayDropped = () => {
    flush = undefined;
    if (dropped === 0) return;
    void send({
      level: 'warning',
      data: {
        message: `${dropped} server log line${dropped === 1 ? '' : 's'} left out: more than ${LOG_LINES_PER_SECOND} a second.`,
      },
    });
    dropped = 0;
  };

  const stop = tap.listen((line) => {
    const lineLevel = mcpLevelOf(line.level);
    if ((SEVERITY.get(lineLevel) ?? 0) < (SEVERITY.get(level) ?? 0)) return;
    if (!concerns(line, options.session)) return;
    const now = Date.now();
    if (now - windowStart >= 1000) {
      windowStart = now;
      sent = 0;
    }
    if (sent >= LOG_LINES_PER_SECOND) {
      dropped++;
      flush ??= setTimeout(sayDropped, windowStart + 1000 - now);
      return;
    }
    sent++;
    const named = typeof line.fields.session === 'string' ? line.fields.session : undefined;
    void send({
      level: lineLevel,
      data: scrub(
        { message: line.msg, ...line.fields },
        named ? options.boundOf(named) : undefined,
      ),
    });
  });

  const closed = server.onclose;
  server.onclose = () => {
    stop();
    clearTimeout(flush);
    closed?.();
  };
}
