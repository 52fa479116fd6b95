import { firstLine, OpError } from '../../core/errors.js';
import { BidiUnanswered } from './bidi.js';
import { matchableCapabilities, type BuiltCapabilities } from './capabilities.js';
import type { GridStatus } from './grid-status.js';
import { MANAGED_DOWNLOADS_OPTION } from './managed-downloads.js';

/** The Grid's own words when its queue gave up (LocalNewSessionQueue, Selenium 4.48). */
export const QUEUE_TIMEOUT_MESSAGES = [
  'New session request timed out',
  'Timed out creating session',
] as const;

/** The router's own SessionNotCreatedException messages: the Grid failed, not a node (seed 004 ruling 24). */
export const GRID_SIDE_MESSAGES = [
  'Unable to find owning node for slot',
  'Interrupted when creating the session',
  'An error occurred creating the session',
  'No capabilities found in session request payload',
  'Client has gone away',
] as const;

/** SwiftBrowse's own queue limit (GRID_QUEUE_WAIT_MS) ran out before a node took the browser. */
export class QueueWaitExpired extends Error {
  constructor(readonly waitMs: number) {
    super(`GRID_QUEUE_WAIT_MS (${waitMs} ms) ran out`);
  }
}

/** A chromedriver or geckodriver that found no X display for a headed browser. */
const NO_DISPLAY = /Missing X server|\$DISPLAY|cannot open display|no DISPLAY/i;

/** Chromedriver's words when the browser process ended as it started (a headed one: no display). */
const BROWSER_EXITED = /Chrome instance exited|Chrome failed to start|DevToolsActivePort/i;

/** What the Grid's /status says of its nodes when none is UP: none at all, or each one's state. */
function noLiveNode(grid: GridStatus, gridUrl: string): string {
  if (grid.nodes === 0)
    return `the Grid at ${gridUrl} has no node at all (its /status lists 0 nodes)`;
  const listed = grid.nodeStates.map((n) => `${n.uri} ${n.availability}`).join(', ');
  return `the Grid at ${gridUrl} has no live node (its /status lists ${listed}; none is UP)`;
}

/** On a Grid where only some nodes offer managed downloads, a browser asked for them waits for those. */
function downloadNodes(built: BuiltCapabilities, grid: GridStatus | undefined): string {
  if (built.capabilities['se:downloadsEnabled'] !== true || grid?.downloads !== 'some') return '';
  const offering = grid.nodeStates.filter((n) => n.downloads).map((n) => n.uri);
  return ` It also asked for managed downloads, which only ${offering.join(', ')} offer${offering.length === 1 ? 's' : ''} on this Grid: those nodes may all be busy (the operator can start the others with ${MANAGED_DOWNLOADS_OPTION}).`;
}

/** The router's words when the node it sent a new session to did not answer (Selenium 4.48). */
const NODE_DID_NOT_ANSWER =
  /Connection error \(POST (https?:\/\/[^\s)]+?)\/se\/grid\/node\/session\)/;

/**
 * The Grid sent the browser to a node that is gone but still listed (it drops a dead node only
 * at its health check, minutes later): no capabilities are at fault, and which nodes are live says
 * whether trying again can help.
 */
function nodeDidNotAnswer(node: string, gridUrl: string, grid: GridStatus | undefined): OpError {
  const state = grid?.nodeStates.find((n) => n.uri === node)?.availability;
  const others = (grid?.liveNodes ?? 0) - (state === 'UP' ? 1 : 0);
  const listed = state ? `the Grid still lists it as ${state}` : 'the Grid no longer lists it';
  const next =
    others > 0
      ? `The Grid lists ${others} other live node${others === 1 ? '' : 's'}: open again, and it may start there.`
      : `The Grid has no other live node, so no capabilities could match: try again in a few minutes (the Grid drops a dead node at its health check), or ask the operator to check the Grid's nodes at ${gridUrl}/ui.`;
  return new OpError(
    'backend',
    `No live Grid node took this browser: the Grid at ${gridUrl} sent it to node ${node}, which did not answer (the node went away; ${listed}). ${next}`,
    { details: { grid: 'node_unreachable', node } },
  );
}

/** A node offers this browser at the version asked for, so the version is not why it refused. */
function versionOffered(built: BuiltCapabilities, grid: GridStatus | undefined): boolean {
  const name = built.capabilities.browserName;
  return (grid?.stereotypes ?? []).some(
    (s) =>
      s.browserName === name &&
      typeof s.browserVersion === 'string' &&
      built.version !== undefined &&
      (s.browserVersion === built.version || s.browserVersion.startsWith(`${built.version}.`)),
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The Grid's queue, or GRID_QUEUE_WAIT_MS, gave up before a node took the browser. */
export function isQueueTimeout(error: unknown): boolean {
  return (
    error instanceof QueueWaitExpired ||
    QUEUE_TIMEOUT_MESSAGES.some((m) => messageOf(error).includes(m))
  );
}

/**
 * Whatever creating a Grid session threw, as an error a model can act on (seed 004 rulings 12, 16,
 * 24, 25); `grid` is the Grid's /status read after the failure, when it could be, and `silent`
 * its UP nodes that did not answer their own /status then.
 */
export function fromNewSession(
  error: unknown,
  built: BuiltCapabilities,
  gridUrl: string,
  grid?: GridStatus,
  silent: readonly [uri: string, why: string][] = [],
): OpError {
  if (error instanceof OpError) return error;
  const message = messageOf(error);
  const name = error instanceof Error ? error.name : '';
  const ownWait = error instanceof QueueWaitExpired;
  if (isQueueTimeout(error)) {
    const who = ownWait
      ? `within ${Math.round(error.waitMs / 1000)} s (GRID_QUEUE_WAIT_MS)`
      : 'before the Grid gave up waiting';
    // A Grid that answered and lists no node UP: nothing could match, whatever was asked.
    if (grid?.reached && grid.liveNodes === 0)
      return new OpError(
        'backend',
        `No Grid node took this browser ${who}: ${noLiveNode(grid, gridUrl)}, so no capabilities could match. A node was lost, or an autoscaler has not started one yet; try again later, or ask the operator to check the Grid's nodes.`,
        { details: { grid: 'no_node' } },
      );
    // A dead node the Grid still lists as UP holds its slots with the sessions it lost.
    if (grid && grid.liveNodes > 0 && silent.length === grid.liveNodes) {
      const named = silent.map(([uri, why]) => `${uri} (${why})`).join(', ');
      return new OpError(
        'backend',
        `No Grid node took this browser ${who}: the Grid at ${gridUrl} lists ${grid.liveNodes === 1 ? 'one node' : `${grid.liveNodes} nodes`} as UP, but none answers: ${named}. The node went away and the Grid has not noticed yet (its health check drops a dead node within minutes), so it has no live node and no capabilities could match. Try again in a few minutes, or ask the operator to check the Grid's nodes at ${gridUrl}/ui.`,
        { details: { grid: 'no_live_node', nodes: silent.map(([uri]) => uri) } },
      );
    }
    const asked = matchableCapabilities(built.capabilities).join(', ');
    return new OpError(
      'backend',
      `No Grid node took this browser ${who}: it asked for ${asked}. The Grid may have no node with these capabilities, or none free; check the browser, version and capabilities you sent, and the Grid console at ${gridUrl}/ui.${downloadNodes(built, grid)}`,
      { details: { grid: 'queue_timeout' } },
    );
  }
  const unanswered = NODE_DID_NOT_ANSWER.exec(message);
  if (unanswered) return nodeDidNotAnswer(unanswered[1], gridUrl, grid);
  const reason = firstLine(message);
  const gridSide = GRID_SIDE_MESSAGES.some((m) => message.includes(m));
  const refused =
    !gridSide && (name === 'SessionNotCreatedError' || /session not created/i.test(message));
  if (refused && (NO_DISPLAY.test(message) || (built.headed && BROWSER_EXITED.test(message))))
    return new OpError(
      'backend',
      `A Grid node could not start a headed browser (${reason}): the usual cause is a node with no display. Open with headless: true, or ask the operator for a node with a display (Xvfb or VNC).`,
      { details: { grid: 'no_display' } },
    );
  const suspectVersion = built.version !== undefined && !versionOffered(built, grid);
  if (refused && (built.rawKeys.length > 0 || suspectVersion)) {
    const suspects = [
      ...built.rawKeys.map((k) => `capabilities key "${k}"`),
      ...(suspectVersion ? [`version "${built.version}"`] : []),
    ];
    return new OpError(
      'invalid_argument',
      `A Grid node refused to start the browser: ${reason}. The usual cause is what this open asked for: ${suspects.join(', ')}. Leave it out or correct it, and open again.`,
      { details: { raw_keys: built.rawKeys, version: built.version ?? null } },
    );
  }
  if (refused)
    return new OpError(
      'backend',
      `A Grid node could not start the browser: ${reason}. Trying again may succeed.`,
    );
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|fetch failed/i.test(message))
    return new OpError(
      'backend',
      `The Selenium Grid at ${gridUrl} cannot be reached (${reason}). Check GRID_URL and that the Grid is running.`,
    );
  return new OpError('backend', `The Selenium Grid failed to open a browser: ${reason}`);
}

/** Whatever a WebDriver command threw, as an OpError; `doing` names the step for the message. */
/**
 * Firefox's network error names onto Chromium's, so an answer names a failure the same way on
 * every browser (`ERR_NAME_NOT_RESOLVED`, not `NS_ERROR_UNKNOWN_HOST`).
 */
const FIREFOX_NET_ERRORS: Record<string, string> = {
  NS_ERROR_UNKNOWN_HOST: 'ERR_NAME_NOT_RESOLVED',
  NS_ERROR_CONNECTION_REFUSED: 'ERR_CONNECTION_REFUSED',
  NS_ERROR_NET_TIMEOUT: 'ERR_TIMED_OUT',
  NS_ERROR_NET_RESET: 'ERR_CONNECTION_RESET',
  NS_ERROR_NET_INTERRUPT: 'ERR_CONNECTION_CLOSED',
  NS_ERROR_NET_EMPTY_RESPONSE: 'ERR_EMPTY_RESPONSE',
  NS_ERROR_OFFLINE: 'ERR_INTERNET_DISCONNECTED',
  NS_ERROR_PORT_ACCESS_NOT_ALLOWED: 'ERR_UNSAFE_PORT',
  NS_ERROR_REDIRECT_LOOP: 'ERR_TOO_MANY_REDIRECTS',
  NS_ERROR_UNKNOWN_PROTOCOL: 'ERR_UNKNOWN_URL_SCHEME',
  NS_ERROR_MALFORMED_URI: 'ERR_INVALID_URL',
  NS_ERROR_FILE_NOT_FOUND: 'ERR_FILE_NOT_FOUND',
  NS_BINDING_ABORTED: 'ERR_ABORTED',
  NS_ERROR_ABORT: 'ERR_ABORTED',
  NS_ERROR_FAILURE: 'ERR_FAILED',
  NS_ERROR_PROXY_CONNECTION_REFUSED: 'ERR_PROXY_CONNECTION_FAILED',
  SEC_ERROR_UNKNOWN_ISSUER: 'ERR_CERT_AUTHORITY_INVALID',
  SEC_ERROR_EXPIRED_CERTIFICATE: 'ERR_CERT_DATE_INVALID',
  SSL_ERROR_BAD_CERT_DOMAIN: 'ERR_CERT_COMMON_NAME_INVALID',
  MOZILLA_PKIX_ERROR_SELF_SIGNED_CERT: 'ERR_CERT_AUTHORITY_INVALID',
};

/** The network error a browser's message names, in Chromium's words (`ERR_CONNECTION_REFUSED`). */
export function netError(message: string): string | undefined {
  const chromium = /net::(ERR_[A-Z_]+)/.exec(message);
  if (chromium) return chromium[1];
  const firefox = /\b((?:NS|SEC|SSL|MOZILLA_PKIX)_[A-Z_]+)\b/.exec(message);
  return firefox ? FIREFOX_NET_ERRORS[firefox[1]] : undefined;
}

/** Selenium's words when a BiDi command went unanswered for its fixed 30 s (RESPONSE_TIMEOUT). */
const SELENIUM_UNANSWERED = /Request with id \d+ timed out/;

/**
 * Why a local Firefox did not start, with the setting that bounds it: a start that overran it is
 * a slow machine or a first-run profile far more often than a broken Firefox.
 */
export function fromFirefoxStart(error: unknown, path: string, startMs: number): OpError {
  const seconds = Math.round(startMs / 1000);
  if (error instanceof BidiUnanswered)
    return new OpError(
      'backend',
      `Firefox (${path}) started but did not answer its first WebDriver BiDi command (${error.method}) within ${seconds} s (FIREFOX_START_TIMEOUT). A loaded machine or a new profile (Firefox sets one up on its first run) makes a start this slow: open again, and if it recurs ask the operator to raise FIREFOX_START_TIMEOUT (e.g. to ${seconds * 2}s), or open with browser "chromium".`,
      { details: { firefox: 'first_command_unanswered', waited_ms: startMs } },
    );
  return fromWebDriver(error, 'Starting Firefox');
}

export function fromWebDriver(error: unknown, doing: string): OpError {
  if (error instanceof OpError) return error;
  const message = messageOf(error);
  const name = error instanceof Error ? error.name : '';
  if (
    name === 'NoSuchSessionError' ||
    /invalid session id|no such window|BiDi connection closed/i.test(message)
  )
    return new OpError(
      'backend',
      `${doing} failed: the browser or tab was closed (or the Grid ended it). The next op opens a new browser.`,
    );
  if (name === 'TimeoutError' || /timeout/i.test(name))
    return new OpError('timeout', `${doing} timed out: ${firstLine(message)}`);
  if (name === 'StaleElementReferenceError' || /no such frame|stale element/i.test(message))
    return new OpError(
      'stale_element',
      `${doing} was interrupted: the page navigated or the frame was removed.`,
    );
  if (SELENIUM_UNANSWERED.test(message))
    return new OpError(
      'backend',
      `${doing} failed: the browser did not answer a WebDriver BiDi command within 30 s (Selenium's fixed limit): it is overloaded or stuck. Try again; if it recurs, close the session so the next op opens a new browser.`,
    );
  const net = netError(message);
  if (net)
    return new OpError('navigation_failed', `${doing} failed: ${net}.`, {
      details: { error: net },
    });
  return new OpError('backend', `${doing} failed: ${firstLine(message)}`);
}
