/** The Grid's own /status, read without blocking: for `/ready`, `doctor`, `info()` and where a session runs. */
import { isMatchedOn } from './capabilities.js';

export interface GridStereotype {
  browserName?: string;
  browserVersion?: string;
  platformName?: string;
}

export interface GridStatus {
  /** The Grid says it can take new sessions. */
  ready: boolean;
  /** The Grid answered /status (false: `message` says why it could not be asked). */
  reached: boolean;
  /** The Grid's own words, or why it could not be asked. */
  message: string;
  nodes: number;
  /** Nodes the Grid lists as UP; a DOWN or DRAINING node takes no new browser. */
  liveNodes: number;
  /** Each node the Grid lists, by URI, with its availability (UP, DOWN, DRAINING). */
  nodeStates: GridNodeState[];
  slots: number;
  /** Slots running a session now. */
  busy: number;
  /** What the nodes offer, one entry per distinct browser and version. */
  stereotypes: GridStereotype[];
  /**
   * Managed downloads on the nodes that take browsers (the UP ones, else every one listed): `on`
   * on all, `off` on none, `some`, or `unknown` when the Grid lists no node or cannot be asked.
   */
  downloads: GridDownloads;
}

export type GridDownloads = 'on' | 'off' | 'some' | 'unknown';

export interface GridNodeState {
  uri: string;
  availability: string;
  /** The node runs with managed downloads: `se:downloadsEnabled` in its slots' stereotypes. */
  downloads: boolean;
  /**
   * What its slots are matched on, one entry per distinct stereotype: browserName, browserVersion,
   * platformName and prefixed keys such as a pool name; never a vendor block.
   */
  offers: Record<string, unknown>[];
}

interface StatusSlot {
  stereotype?: GridStereotype & Record<string, unknown>;
  session?: { sessionId?: string } | null;
}
interface StatusNode {
  uri?: string;
  availability?: string;
  slots?: StatusSlot[];
}
interface StatusBody {
  value?: { ready?: boolean; message?: string; nodes?: StatusNode[] };
}

async function readStatus(gridUrl: string, timeoutMs: number): Promise<StatusBody> {
  const response = await fetch(`${gridUrl.replace(/\/+$/, '')}/status`, {
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return (await response.json()) as StatusBody;
}

export async function gridStatus(gridUrl: string, timeoutMs = 3000): Promise<GridStatus> {
  try {
    const body = await readStatus(gridUrl, timeoutMs);
    const nodes = body.value?.nodes ?? [];
    const slots = nodes.flatMap((n) => n.slots ?? []);
    const seen = new Map<string, GridStereotype>();
    for (const s of slots) {
      const st = s.stereotype ?? {};
      const key = `${st.browserName}/${st.browserVersion ?? ''}`;
      if (!seen.has(key))
        seen.set(key, {
          browserName: st.browserName,
          browserVersion: st.browserVersion,
          platformName: st.platformName,
        });
    }
    const nodeStates = nodes.map(nodeState);
    return {
      reached: true,
      ready: body.value?.ready === true,
      message: body.value?.message ?? '',
      nodes: nodes.length,
      liveNodes: nodeStates.filter((n) => n.availability === 'UP').length,
      nodeStates,
      slots: slots.length,
      busy: slots.filter((s) => s.session).length,
      stereotypes: [...seen.values()],
      downloads: downloadsOn(nodeStates),
    };
  } catch (e) {
    const why =
      e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
    return {
      reached: false,
      ready: false,
      message: `cannot reach the Grid at ${gridUrl}: ${why}`,
      nodes: 0,
      liveNodes: 0,
      nodeStates: [],
      slots: 0,
      busy: 0,
      stereotypes: [],
      downloads: 'unknown',
    };
  }
}

function nodeState(node: StatusNode): GridNodeState {
  const stereotypes = (node.slots ?? []).map((s) => s.stereotype ?? {});
  const offers = new Map<string, Record<string, unknown>>();
  for (const st of stereotypes) {
    const offer = Object.fromEntries(Object.entries(st).filter(([key]) => isMatchedOn(key)));
    offers.set(JSON.stringify(offer), offer);
  }
  return {
    uri: node.uri ?? 'unknown',
    availability: node.availability ?? 'unknown',
    // Selenium turns managed downloads on for a whole node (--enable-managed-downloads).
    downloads: stereotypes.some((st) => st['se:downloadsEnabled'] === true),
    offers: [...offers.values()],
  };
}

/** The nodes a new browser may go to: the UP ones, or every one listed when none is UP. */
export function takingNodes(nodes: readonly GridNodeState[]): readonly GridNodeState[] {
  const up = nodes.filter((n) => n.availability === 'UP');
  return up.length ? up : nodes;
}

function downloadsOn(nodes: readonly GridNodeState[]): GridDownloads {
  const taking = takingNodes(nodes);
  const offering = taking.filter((n) => n.downloads).length;
  if (taking.length === 0) return 'unknown';
  return offering === taking.length ? 'on' : offering === 0 ? 'off' : 'some';
}

/** The URI of the node running a session, when the Grid lists it. */
export async function nodeOfSession(
  gridUrl: string,
  sessionId: string,
): Promise<string | undefined> {
  try {
    const body = await readStatus(gridUrl, 3000);
    for (const node of body.value?.nodes ?? [])
      if ((node.slots ?? []).some((s) => s.session?.sessionId === sessionId)) return node.uri;
  } catch {
    // the node is a courtesy for `status`; a Grid that does not say is not an error
  }
  return undefined;
}
