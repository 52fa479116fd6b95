import type { ProgressToken } from '@modelcontextprotocol/sdk/types.js';
import type { Progress } from '../../core/result.js';

/** How often a running call tells the client it is alive. */
export const HEARTBEAT_MS = 1000;

export interface ProgressSink {
  progressToken?: ProgressToken;
  send(params: {
    progressToken: ProgressToken;
    progress: number;
    total?: number;
    message: string;
  }): Promise<void>;
}

/**
 * Reports progress while `work` runs, when the client asked with a progressToken: a heartbeat
 * every second (clients reset their idle timers on it; a silent long wait gets aborted, seed 000
 * §F2.15) and at once whenever `report` is given news (a batch or flow starting a step). With
 * steps, `progress` counts the steps done of `total`; heartbeats add a fraction that never
 * reaches the next step, as MCP wants every notification's progress higher than the last.
 */
export async function withProgress<T>(
  sink: ProgressSink,
  label: string,
  work: (report: (news: Progress) => void) => Promise<T>,
): Promise<T> {
  const token = sink.progressToken;
  if (token === undefined) return work(() => undefined);
  const started = Date.now();
  let done = 0;
  let since = -1;
  let total: number | undefined;
  let latest = label;
  const send = () => {
    const seconds = Math.round((Date.now() - started) / 1000);
    const progress = done + ++since / (since + 1);
    sink
      .send({
        progressToken: token,
        progress,
        ...(total !== undefined && total >= progress ? { total } : {}),
        message: `${latest} (${seconds} s)`,
      })
      .catch(() => undefined); // a client gone away must not fail the op
  };
  const timer = setInterval(send, HEARTBEAT_MS);
  try {
    return await work((news) => {
      latest = `${label}: ${news.message}`;
      if (news.total !== undefined) total = news.total;
      if (news.done !== undefined && news.done > done) {
        done = news.done;
        since = -1;
      }
      send();
    });
  } finally {
    clearInterval(timer);
  }
}
