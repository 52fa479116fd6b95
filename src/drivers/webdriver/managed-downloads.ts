/**
 * The Grid's managed downloads (`se:downloadsEnabled`): asked for only where a node that would take
 * the browser offers them. A Grid started without `--enable-managed-downloads` (Selenium's default)
 * has no node matching a request that carries the capability, and would queue it until it gives up.
 */
import { isMatchedOn } from './capabilities.js';
import { takingNodes, type GridNodeState, type GridStatus } from './grid-status.js';

/** The Selenium node option that turns managed downloads on. */
export const MANAGED_DOWNLOADS_OPTION = '--enable-managed-downloads true';

/** Whether to ask for managed downloads, and when not, the nodes that would take the browser. */
export type DownloadsChoice = { ask: true } | { ask: false; nodes: string[] };

function sameValue(offered: unknown, asked: unknown): boolean {
  if (typeof offered === 'string' && typeof asked === 'string')
    return offered.toLowerCase() === asked.toLowerCase();
  return JSON.stringify(offered) === JSON.stringify(asked);
}

/**
 * A node's stereotype takes the request, in what Selenium's default slot matcher compares: the
 * browser, the version (a stereotype without one takes none asked) and prefixed keys both name.
 */
function takes(offer: Record<string, unknown>, asked: Record<string, unknown>): boolean {
  for (const [key, value] of Object.entries(asked)) {
    if (!isMatchedOn(key) || key === 'platformName') continue;
    if (key === 'browserVersion') {
      const v = offer.browserVersion;
      if (typeof v !== 'string' || !(v === value || v.startsWith(`${String(value)}.`)))
        return false;
    } else if (key in offer && !sameValue(offer[key], value)) return false;
  }
  return true;
}

/**
 * Asks for managed downloads where a node that would take this browser offers them, or where the
 * Grid cannot say (not reached, or no such node listed yet: an autoscaler starts one for the
 * request). Where every such node runs without them, the browser is asked for without.
 */
export function chooseDownloads(
  grid: GridStatus,
  capabilities: Record<string, unknown>,
): DownloadsChoice {
  if (!grid.reached) return { ask: true };
  const taking = takingNodes(grid.nodeStates).filter((n: GridNodeState) =>
    n.offers.some((offer) => takes(offer, capabilities)),
  );
  if (taking.length === 0 || taking.some((n) => n.downloads)) return { ask: true };
  return { ask: false, nodes: taking.map((n) => n.uri) };
}

/** What a download answers on a browser opened without managed downloads: where the file is, what to turn on. */
export function downloadsOffReason(node: string | undefined): string {
  const where = node ? `the Grid node ${node}` : 'the Grid node';
  return `${where} runs without managed downloads, so the file stays in the remote browser's download folder on that node and is not in the session's files. Ask the operator to start the Grid's nodes with ${MANAGED_DOWNLOADS_OPTION}; a browser opened after that (close, then open) brings its downloads here`;
}
