import type { ProgressToken } from '@modelcontextprotocol/sdk/types.js';

/** How often a running call tells the client it is alive. */
export const HEARTBEAT_MS = 1000;

export interface ProgressSink {
  progressToken?: ProgressToken;
  send(params: { progressToken: ProgressToken; progress: number; message: string }): Promise<void>;
}

/**
 * Reports progress while `work` runs, when the client asked with a progressToken: a heartbeat
 * every second (clients reset their idle timers on it; a silent long wait gets aborted, seed 000
 * §F2.15) and at once whenever `report` is given news (a batch starting a step).
 */
export async function withProgress<T>(
  sink: ProgressSink,
  label: string,
  work: (report: (message: string) => void) => Promise<T>,
): Promise<T> {
  const token = sink.progressToken;
  if (token === undefined) return work(() => undefined);
  const started = Date.now();
  let count = 0;
  let latest = label;
  const send = () => {
    const seconds = Math.round((Date.now() - started) / 1000);
    // progress must rise with every notification; the count does, whatever the clock says.
    sink
      .send({ progressToken: token, progress: ++count, message: `${latest} (${seconds} s)` })
      .catch(() => undefined); // a client gone away must not fail the op
  };
  const timer = setInterval(send, HEARTBEAT_MS);
  try {
    return await work((message) => {
      latest = `${label}: ${message}`;
      send();
    });
  } finally {
    clearInterval(timer);
  }
}
