import { OpError } from '../core/errors.js';
import { AwaitingServerError, type BrowserTab } from '../drivers/driver.js';
import { callPage } from '../drivers/page-script.js';
import {
  SETTLE_RULES,
  decide,
  settleNotes,
  type PageMark,
  type Seen,
  type SettleObservation,
  type Unreadable,
} from './settle-table.js';

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
  // A page waiting for its server answers nothing (the driver says so at once): the action (a
  // goto away) goes ahead unmarked.
  const point = await callPage(tab, [], 'checkpoint').catch(() => null);
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

/** The page's count of what it started since the mark, or why it cannot give one. */
async function pageMark(
  tab: BrowserTab,
  read: 'activity' | 'activityAfterFrame',
): Promise<PageMark | Unreadable> {
  try {
    return await callPage(tab, [], read);
  } catch (e) {
    return { unreadable: e instanceof AwaitingServerError ? 'awaiting_server' : 'failed' };
  }
}

/**
 * One look at the tab: the page's mark first, then the driver's counters, so the driver's side is
 * the latest (a navigation it heard start after the page was read still holds the settle).
 */
async function observe(
  tab: BrowserTab,
  before: Baseline,
  started: number,
  look: SettleObservation['look'],
  earlier: Seen,
): Promise<SettleObservation> {
  const tabClosed = tab.isClosed();
  const dialogPending = !tabClosed && !!tab.pendingDialog();
  const page: PageMark | Unreadable =
    tabClosed || dialogPending
      ? { unreadable: 'failed' }
      : await pageMark(tab, look === 'first' ? 'activityAfterFrame' : 'activity');
  const a = tab.activity(before.requestSeq);
  return {
    elapsedMs: Date.now() - started,
    look,
    tabClosed,
    dialogPending,
    driver: {
      requestsStarted: a.requestsStarted - before.requestSeq,
      requestsInFlight: a.requestsInFlight,
      navigations: a.navigations - before.navigations,
      // Only the action's own: one the driver never heard end must not hold every action after it.
      awaitingServer: a.navigationsSent > before.navigationsSent ? a.awaitingServer : undefined,
    },
    page,
    earlier,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits for what an action started (src/ops/settle-table.ts decides how long): requests it made,
 * a navigation, a DOM that keeps changing. An action that started nothing costs one look after
 * the page's next frame. Returns notes on what happened.
 */
export async function settle(
  tab: BrowserTab,
  before: Baseline,
  settleTimeoutMs: number,
): Promise<string[]> {
  const rules = { ...SETTLE_RULES, timeoutMs: settleTimeoutMs };
  const started = Date.now();
  let seen: Seen = { loaded: false, mutated: false };
  let look: SettleObservation['look'] = 'first';
  let waited = false;
  let prior: SettleObservation['page'] | undefined;
  for (;;) {
    const o = await observe(tab, before, started, look, seen);
    const d = decide(o, rules);
    seen = d.seen;
    if (d.kind === 'wait') {
      waited = true;
      look = 'again';
      prior = o.page;
      await sleep(d.ms);
      continue;
    }
    // The look that decided names the document; one stopped by a dialog has the look before it,
    // and one that could not read the page asks once more (unreadable is no new document).
    const named = o.dialogPending ? prior : o.page;
    const documentAfter =
      named && !('unreadable' in named)
        ? named.documentId
        : o.tabClosed || o.dialogPending
          ? null
          : await callPage(tab, [], 'documentId').catch(() => null);
    return settleNotes({
      tabClosed: tab.isClosed(),
      urlBefore: before.url,
      urlAfter: tab.isClosed() ? before.url : tab.url(),
      documentBefore: before.documentId,
      documentAfter,
      driverNavigated: tab.activity().navigations > before.navigations,
      mutated: seen.mutated,
      waitedMs: waited ? Date.now() - started : undefined,
      stillLoadingAfterMs: d.kind === 'still_loading' ? settleTimeoutMs : undefined,
    });
  }
}

/**
 * Waits, within the op's time, until a page whose navigation is waiting for its server takes
 * commands again. The driver knows: a page call fails at once with AwaitingServerError until the
 * server answers, so this asks again on every poll without anything reaching the page.
 */
export async function untilPageAnswers(tab: BrowserTab, deadline: number): Promise<void> {
  while (tab.activity().awaitingServer) {
    try {
      await tab.evaluate([], '0');
      return;
    } catch (e) {
      // Any other failure (the document was replaced as it answered) is not a wait for a server.
      if (!(e instanceof AwaitingServerError)) return;
      if (Date.now() >= deadline) throw e;
    }
    await sleep(Math.min(SETTLE_RULES.pollMs, Math.max(deadline - Date.now(), 1)));
  }
}

/** After an action that navigated: a load that failed is an error, even behind Chromium's own error page. */
export function checkNavigation(tab: BrowserTab, before: Baseline): void {
  const a = tab.activity();
  if (a.navigations <= before.navigations && a.lastNavigation === before.lastNavigation) return;
  const last = a.lastNavigation;
  if (!last || last === before.lastNavigation) {
    if (tab.showsErrorPage()) throw navigationError(tab.url(), 'the browser showed its error page');
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
      ? 'nothing is listening there: check that the site is running'
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
