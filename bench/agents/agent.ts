// What every agent (SwiftBrowse MCP, Playwright MCP, raw playwright-core) does for the task runner.
import type { Act } from '../tasks.js';

/** One round trip the agent made, with what it cost in text. */
export interface Call {
  tool: string;
  kind: 'act' | 'read' | 'wait';
  ms: number;
  /** Characters of the call's arguments: what the model writes. */
  sent: number;
  /** Characters the agent received: tool result text plus files it was linked to and read. */
  received: number;
  ok: boolean;
}

export interface Started {
  /** Spawn to MCP initialize done (0 for raw: the library is in-process). */
  connectMs: number;
  /** The first navigation: launches the browser. */
  firstNavigateMs: number;
}

export interface Agent {
  readonly name: string;
  /** Text size of tools/list (0 for raw). */
  toolsChars: number;
  calls: Call[];
  /** Starts the server (or library) and navigates once to `warmUrl`. */
  start(warmUrl: string): Promise<Started>;
  /** Process trees whose memory is this agent's (roots; their descendants are included). */
  roots(): { pid: number; includeRoot: boolean }[];
  act(act: Act, base: string): Promise<string>;
  /** Reads the page the way this tool's guide recommends; returns the text received. */
  read(): Promise<string>;
  /** A script that knows the text it needs waits for it, then reads (raw only). */
  readFor?(needle: string): Promise<string>;
  /**
   * Starts over as a new conversation would (before each task, untimed): SwiftBrowse withholds
   * text a session was shown before, and a new conversation has not seen it.
   */
  fresh?(warmUrl: string): Promise<void>;
  /** Waits until `needle` shows; returns the text received. */
  waitFor(needle: string): Promise<string>;
  stop(): Promise<void>;
}

/** Times `fn` and records it as one call. */
export async function timed<T>(
  calls: Call[],
  tool: string,
  kind: Call['kind'],
  args: unknown,
  fn: () => Promise<T>,
  textOf: (r: T) => { text: string; ok: boolean },
): Promise<{ value: T; text: string }> {
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  const { text, ok } = textOf(value);
  // BENCH_TRACE=1 prints every exchange: the way to see what an agent was shown.
  if (process.env.BENCH_TRACE)
    process.stderr.write(`>> ${tool} ${JSON.stringify(args)} ${Math.round(ms)} ms\n<< ${text}\n`);
  calls.push({
    tool,
    kind,
    ms,
    sent: args === undefined ? 0 : JSON.stringify(args).length,
    received: text.length,
    ok,
  });
  return { value, text };
}
