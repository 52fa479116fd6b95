import { pino, type DestinationStream, type Level, type Logger } from 'pino';

/** One line of the server log as pino wrote it: its numeric level, message and fields. */
export interface ServerLogLine {
  level: number;
  msg: string;
  fields: Record<string, unknown>;
}

export type ServerLogListener = (line: ServerLogLine) => void;

/** What pino adds to every line; a listener gets the line's own fields. */
const PINO_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/**
 * The server log's lines for listeners in this process (MCP's `logging`), as a pino destination.
 * Nothing is parsed while nobody listens.
 */
export class ServerLogTap implements DestinationStream {
  private readonly listeners = new Set<ServerLogListener>();

  /** Subscribes; returns the unsubscribe function. */
  listen(listener: ServerLogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  write(chunk: string): void {
    if (this.listeners.size === 0) return;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(chunk) as Record<string, unknown>;
    } catch {
      return;
    }
    const fields = Object.fromEntries(Object.entries(parsed).filter(([k]) => !PINO_FIELDS.has(k)));
    const line = {
      level: typeof parsed.level === 'number' ? parsed.level : 30,
      msg: typeof parsed.msg === 'string' ? parsed.msg : '',
      fields,
    };
    for (const listener of this.listeners) {
      try {
        listener(line);
      } catch {
        // A listener (a host gone away) never fails the code that logged.
      }
    }
  }
}

/** The lowest level the tap hears: what a host may ask for with `logging/setLevel debug`. */
const TAP_LEVEL: Level = 'debug';

/**
 * `logger` with its lines also written to `tap`, from debug up whatever `logger`'s own level:
 * the operator's level (LOG_LEVEL) governs its destination, a host's `logging/setLevel` its own.
 */
export function tappedLogger(logger: Logger, tap: ServerLogTap): Logger {
  const own = logger.level;
  // pino exposes a logger's destination under its symbols for integrations such as this one.
  const destination = (logger as unknown as Record<symbol, DestinationStream>)[
    pino.symbols.streamSym
  ];
  const streams: pino.StreamEntry[] = [{ level: TAP_LEVEL, stream: tap }];
  if (own !== 'silent') streams.push({ level: own as Level, stream: destination });
  const lowest = logger.levelVal < pino.levels.values[TAP_LEVEL] ? own : TAP_LEVEL;
  return pino({ level: lowest }, pino.multistream(streams));
}
