import type { BrowserLoss } from '../driver.js';
import { gridStatus, type GridStatus } from './grid-status.js';

/** How long the Grid's /status may take when asked why a browser went away. */
const ASK_GRID_MS = 1500;

/** How long a node's own /status may take: a live node answers it at once, busy or not. */
const ASK_NODE_MS = 1000;

/** Past this many live nodes a queue timeout is not for a dead node; the first ones are asked. */
const MAX_NODES_ASKED = 8;

/** The hub's words for a command whose node does not answer (Selenium 4.48's router). */
export const NODE_UNREACHABLE =
  /Unable to execute request for an existing session|Connection error \((?:GET|POST|DELETE) /i;

/** Why the node at `uri` does not answer its /status, or undefined when it does. */
export async function nodeSilence(uri: string): Promise<string | undefined> {
  try {
    await fetch(`${uri.replace(/\/+$/, '')}/status`, { signal: AbortSignal.timeout(ASK_NODE_MS) });
    return undefined;
  } catch (e) {
    const error = e as Error;
    if (error.name === 'TimeoutError') return `no answer within ${ASK_NODE_MS} ms`;
    return error.cause instanceof Error ? error.cause.message : error.message;
  }
}

/**
 * Asks the Grid and the node a browser ran on why the browser went away: undefined when the node
 * still answers (the Grid reaped or ended the session itself) or no node was recorded. `silent`
 * is why the node did not answer a moment ago, when that was just asked.
 */
export async function nodeLoss(
  gridUrl: string,
  node: string | undefined,
  silent?: string,
): Promise<BrowserLoss | undefined> {
  if (!node) return undefined;
  const [silence, grid] = await Promise.all([
    silent ?? nodeSilence(node),
    gridStatus(gridUrl, ASK_GRID_MS),
  ]);
  if (silence === undefined) return undefined;
  const listed = grid.nodeStates.find((n) => n.uri === node);
  const seen = !grid.reached
    ? `the Grid could not be asked either (${grid.message})`
    : !listed
      ? 'the Grid no longer lists it'
      : listed.availability === 'UP'
        ? 'the Grid still lists it as UP until its health check notices'
        : `the Grid lists it as ${listed.availability}`;
  return { reason: 'node_lost', node, detail: `it does not answer: ${silence}; ${seen}` };
}

/** The nodes the Grid lists as UP that do not answer their own /status, each with why. */
export async function silentLiveNodes(grid: GridStatus): Promise<[uri: string, why: string][]> {
  // A node listed without a URI cannot be asked, so it is never counted as silent.
  const live = grid.nodeStates
    .filter((n) => n.availability === 'UP' && /^https?:\/\//.test(n.uri))
    .slice(0, MAX_NODES_ASKED);
  const asked = await Promise.all(
    live.map(async (n) => [n.uri, await nodeSilence(n.uri)] as const),
  );
  return asked.flatMap(([uri, why]) => (why === undefined ? [] : [[uri, why] as [string, string]]));
}
