import { OpError } from '../core/errors.js';
import { within } from '../core/within.js';
import type { BrowserTab } from '../drivers/driver.js';
import { callPage } from '../drivers/page-script.js';
import type { ActivityMark } from '../page/protocol.js';

/** After a request or a navigation, a DOM counts as settled after this long without mutations. */
const QUIET_MS = 120;
/**
 * When the action started no request and no navigation, its handler changed the DOM itself: a
 * shorter quiet window still catches a render spread over a few frames or a timer's follow-up.
 */
const DOM_ONLY_QUIET_MS = 50;
/**
 * Where the page cannot report its own navigations (no Navigation API), long enough for a click
 * handler's navigation to reach the driver.
 */
const GRACE_MS = 30;
const POLL_MS = 25;
/**
 * How long a navigation the page reported may go unheard by the driver. Until the driver sees it
 * start, the old document would read as quiet; a navigation that never reaches the network (one
 * the page cancelled) stops holding the settle after this.
 */
const DRIVER_CATCH_UP_MS = 2000;
/**
 * A page read gets the settle's time left, and never less than this: a look taken at the deadline
 * (or with SETTLE_TIMEOUT_MS 0) still decides between quiet and still_loading.
 */
const READ_AT_LEAST_MS = 1000;

export interface Baseline {
  url: string;
  documentId: string | null;
  /** DOM mutations since the previous action's mark; null when the page could not be read. */
  mutations: number | null;
  requestSeq: number;
  navigations: number;
  navigationsSent: number;
  lastNavigation?: unknown;
}

export async function baseline(tab: BrowserTab): Promise<Baseline> {
  const a = tab.activity();
  const read = callPage(tab, [], 'checkpoint');
  // A page waiting for its server answers nothing: the action (a goto away) goes ahead unmarked.
  const point = await (a.awaitingServer ? within(read, READ_AT_LEAST_MS, null) : read).catch(
    () => null,
  );
  return {
    url: tab.url(),
    documentId: point?.documentId ?? null,
    mutations: point?.mutations ?? null,
    requestSeq: a.requestsStarted,
    navigations: a.navigations,
    navigationsSent: a.navigationsSent,
    lastNavigation: a.lastNavigation,
  };
}

/**
 * The URL of a navigation the action started that is still waiting for its server. Only the
 * action's own: one the driver never heard end must not hold every action after it.
 */
export function loadingSince(tab: BrowserTab, before: Baseline): string | undefined {
  const a = tab.activity();
  return a.navigationsSent > before.navigationsSent ? a.awaitingServer : undefined;
}

/**
 * The page's count of what it started, or null when it cannot say in `ms`: the document is being
 * replaced, or Chromium is holding page commands while a navigation waits for its server.
 */
async function domActivity(
  tab: BrowserTab,
  before: Baseline,
  ms: number,
  read: 'activity' | 'activityAfterFrame' = 'activity',
): Promise<ActivityMark | null> {
  if (loadingSince(tab, before)) return null;
  try {
    return await within(callPage(tab, [], read), Math.max(ms, READ_AT_LEAST_MS), null);
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits for what an action started: requests it made, a navigation, a DOM that keeps changing.
 * The page itself counts what it starts, so an action that started nothing costs one look after
 * the page's next frame. Returns notes on what happened.
 */
export async function settle(
  tab: BrowserTab,
  before: Baseline,
  settleTimeoutMs: number,
): Promise<string[]> {
  const started = Date.now();
  const deadline = started + settleTimeoutMs;
  let first = await domActivity(tab, before, settleTimeoutMs, 'activityAfterFrame');
  if (first && first.navigations === undefined) {
    await sleep(GRACE_MS - (Date.now() - started));
    first = null;
  }
  let mutated = false;
  let waited = false;
  let loaded = false;
  let dom: ActivityMark | null = null;
  for (;;) {
    if (tab.isClosed() || tab.pendingDialog()) break;
    const a = tab.activity(before.requestSeq);
    dom = first ?? (await domActivity(tab, before, deadline - Date.now()));
    first = null;
    const navigated = a.navigations > before.navigations || (dom?.navigations ?? 0) > 0;
    if (dom && dom.mutations > 0) mutated = true;
    // The page's own count sees a request at once; the driver's may still be on its way.
    const network = a.requestsStarted > before.requestSeq || (dom?.requests ?? 0) > 0;
    if (!navigated && !network && dom && dom.mutations === 0) break;
    // Once a request or a navigation is seen, the longer window holds to the end.
    if (navigated || network) loaded = true;
    const quietMs = loaded ? QUIET_MS : DOM_ONLY_QUIET_MS;
    const unheard =
      (dom?.navigations ?? 0) > 0 &&
      a.navigations === before.navigations &&
      a.requestsStarted === before.requestSeq &&
      Date.now() - started < DRIVER_CATCH_UP_MS;
    // Judged now, not when the page was read: a read taken before the driver heard the action's
    // navigation start shows the page being left, at rest.
    const quiet =
      !unheard &&
      !loadingSince(tab, before) &&
      a.requestsInFlight === 0 &&
      dom !== null &&
      dom.requestsOpen === 0 &&
      dom.sinceLastMutationMs >= quietMs;
    if (quiet) break;
    if (Date.now() >= deadline) {
      return [
        ...(await notesFor(tab, before, mutated, dom)),
        `still_loading after ${settleTimeoutMs} ms`,
      ];
    }
    waited = true;
    // Quiet is due sooner than the next poll: look again just then.
    const dueMs =
      dom && !unheard && a.requestsInFlight === 0 && dom.requestsOpen === 0
        ? quietMs - dom.sinceLastMutationMs + 2
        : POLL_MS;
    await sleep(Math.min(POLL_MS, Math.max(dueMs, 2)));
  }
  const notes = await notesFor(tab, before, mutated, dom);
  if (waited && Date.now() - started > 200) notes.push('waited_for_render');
  return notes;
}

/** `navigated` means a new document; a same-document route change (pushState) is `url_changed`. */
async function notesFor(
  tab: BrowserTab,
  before: Baseline,
  mutated: boolean,
  last: ActivityMark | null,
): Promise<string[]> {
  const notes: string[] = [];
  if (tab.isClosed()) return ['tab_closed'];
  // The last activity read already names the document; unreadable (a dialog blocks the page) is
  // not evidence of a new document.
  const documentId =
    last?.documentId ??
    (loadingSince(tab, before)
      ? null
      : await within(callPage(tab, [], 'documentId'), READ_AT_LEAST_MS, null).catch(() => null));
  // Unread before (the page was waiting for a server): a load the driver saw is the evidence.
  const replaced =
    before.documentId === null
      ? tab.activity().navigations > before.navigations
      : documentId !== before.documentId;
  if (documentId !== null && replaced) notes.push('navigated');
  else if (tab.url() !== before.url) notes.push('url_changed');
  if (mutated && !notes.includes('navigated')) notes.push('dom_changed');
  return notes;
}

/**
 * Waits, within the op's time, until a page whose navigation is waiting for its server takes
 * commands again: until then no script runs in it, so a read would hang past any timeout.
 */
export async function untilPageAnswers(tab: BrowserTab, deadline: number): Promise<void> {
  const url = tab.activity().awaitingServer;
  if (!url) return;
  const answered = tab.evaluate([], '0').then(
    () => true,
    () => true, // the document was replaced as it answered: the new one takes commands
  );
  if (await within(answered, deadline - Date.now(), false)) return;
  throw new OpError(
    'timeout',
    `The page is still loading ${url}: its server has not answered, and the page takes no commands until it does. Wait and try again, or goto another page.`,
  );
}

/** After an action that navigated: a load that failed is an error, even behind Chromium's own error page. */
export function checkNavigation(tab: BrowserTab, before: Baseline): void {
  const a = tab.activity();
  if (a.navigations <= before.navigations && a.lastNavigation === before.lastNavigation) return;
  const last = a.lastNavigation;
  if (!last || last === before.lastNavigation) {
    if (tab.url().startsWith('chrome-error://'))
      throw navigationError(tab.url(), 'the browser showed its error page');
    return;
  }
  if (last.error) throw navigationError(last.url, last.error);
  if (last.status !== undefined && last.status >= 400)
    throw navigationError(last.url, `HTTP ${last.status}`);
}

export function navigationError(url: string, cause: string): OpError {
  const advice = /NAME_NOT_RESOLVED/.test(cause)
    ? 'the host name does not resolve; check the URL'
    : /CONNECTION_REFUSED/.test(cause)
      ? 'nothing is listening there; is the site running?'
      : /CERT|SSL/.test(cause)
        ? 'the certificate was refused'
        : /HTTP 4/.test(cause)
          ? 'the server answered with an error page; check the URL'
          : /HTTP 5/.test(cause)
            ? 'the server failed; try again later or check the site'
            : 'check the URL and that the site is reachable';
  return new OpError('navigation_failed', `The page ${url} did not load (${cause}): ${advice}.`, {
    details: { url, cause },
  });
}
