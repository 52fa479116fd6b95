import { within } from '../core/within.js';
import { PROBE_WAIT_MS } from './driver.js';
import type { OwnCall } from './tab-record.js';

/**
 * How many times the link's own round trip a page may take to answer a trivial script before it
 * counts as stuck: a loaded machine or a distant Grid slows both alike, a page stuck in script
 * only the page.
 */
const LINK_FACTOR = 4;
/** Past this the page is stuck however slow the link: the op is already past its deadline. */
const PROBE_LIMIT_MS = 3000;

/**
 * SwiftBrowse's own page call (a lookup, a read) younger than this is waited for before the
 * probe, which would queue behind it: on a loaded machine a lookup's walk is not a stuck page.
 * An older one is the page's stuck script, or our own call held by it. Short, as the wait comes
 * out of the margin the op has to give its own answer.
 */
const OWN_CALL_MS = 500;

/**
 * Whether the page answers. A page counts as stuck only when a command the browser answers
 * without the page (`ping`) comes back and the page still has not answered `probe` within
 * LINK_FACTOR times that round trip (never less than PROBE_WAIT_MS): a slow link is not a stuck page.
 * `busy` is the tab's oldest page call of our own still in flight, unless the page's dialogs hold it.
 */
export async function pageAnswers(
  probe: () => Promise<unknown>,
  ping: () => Promise<unknown>,
  busy?: OwnCall,
): Promise<boolean> {
  if (busy && Date.now() - busy.startedAt < OWN_CALL_MS)
    await within(busy.settled, busy.startedAt + OWN_CALL_MS - Date.now(), undefined);
  const started = Date.now();
  const answered = probe().then(
    () => true,
    () => true, // a page that fails the call (replaced, closed) is not stuck in script
  );
  const linkMs = await within(
    ping().then(
      () => Date.now() - started,
      () => Date.now() - started,
    ),
    PROBE_LIMIT_MS,
    PROBE_LIMIT_MS,
  );
  const waitMs = Math.min(Math.max(PROBE_WAIT_MS, linkMs * LINK_FACTOR), PROBE_LIMIT_MS);
  return within(answered, started + waitMs - Date.now(), false);
}
