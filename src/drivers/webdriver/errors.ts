import { firstLine, OpError } from '../../core/errors.js';
import { matchableCapabilities, type BuiltCapabilities } from './capabilities.js';

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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whatever creating a Grid session threw, as an error a model can act on (seed 004 rulings 12, 16, 24, 25). */
export function fromNewSession(error: unknown, built: BuiltCapabilities, gridUrl: string): OpError {
  if (error instanceof OpError) return error;
  const message = messageOf(error);
  const name = error instanceof Error ? error.name : '';
  if (QUEUE_TIMEOUT_MESSAGES.some((m) => message.includes(m))) {
    const asked = matchableCapabilities(built.capabilities).join(', ');
    return new OpError(
      'backend',
      `No Grid node took this browser before the Grid gave up waiting: it asked for ${asked}. The Grid may have no node with these capabilities, or none free; check the browser, version and capabilities you sent, and the Grid console at ${gridUrl}/ui.`,
      { details: { grid: 'queue_timeout' } },
    );
  }
  const reason = firstLine(message);
  const gridSide = GRID_SIDE_MESSAGES.some((m) => message.includes(m));
  const refused =
    !gridSide && (name === 'SessionNotCreatedError' || /session not created/i.test(message));
  if (refused && (built.rawKeys.length > 0 || built.version)) {
    const suspects = [
      ...built.rawKeys.map((k) => `capabilities key "${k}"`),
      ...(built.version ? [`version "${built.version}"`] : []),
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
  const net = /net::(ERR_[A-Z_]+)/.exec(message);
  if (net)
    return new OpError('navigation_failed', `${doing} failed: ${net[1]}.`, {
      details: { error: net[1] },
    });
  return new OpError('backend', `${doing} failed: ${firstLine(message)}`);
}
