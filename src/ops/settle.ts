import { OpError } from '../core/errors.js';
import { AwaitingServerError, type BrowserTab } from '../drivers/driver.js';
import { callPage } from '../drivers/page-script.js';
import {
  SETTLE_RULES,
  decide,
  decideRead,
  settleNotes,
  type PageMark,
  type ReadObservation,
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
  resourceSeq: number;
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
    resourceSeq: a.resourcesStarted,
    navigations: a.navigations,
    navigationsSent: a.navigationsSent,
    lastNavigation: a.lastNavigation,
  };
}

/** The page's count of what it started since the mark, or why it cannot give one. */
async function pageMark(
  tab: BrowserTab,
  look: SettleObservation['look'],
  documentBefore: string | null,
): Promise<PageMark | Unreadable> {
  try {
    return look === 'first'
      ? await callPage(tab, [], 'activityAfterFrame', documentBefore)
      : await callPage(tab, [], 'activity');
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
      : await pageMark(tab, look, before.documentId);
  const a = tab.activity(before.requestSeq);
  return {
    elapsedMs: Date.now() - started,
    look,
    tabClosed,
    dialogPending,
    driver: {
      requestsStarted: a.requestsStarted - before.requestSeq,
      resourcesStarted: a.resourcesStarted - before.resourceSeq,
      requestsInFlight: a.requestsInFlight,
      navigations: a.navigations - before.navigations,
      // Only the action's own: one the driver never heard end must not hold every action after it.
      awaitingServer: a.navigationsSent > before.navigationsSent ? a.awaitingServer : undefined,
    },
    page,
    documentBefore: before.documentId,
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

/** Main-frame navigations a tab's driver heard, sent or committed: a new count may be a new document. */
const navigationCount = (tab: BrowserTab) => {
  const a = tab.activity();
  return a.navigations + a.navigationsSent;
};

/**
 * Per tab, the navigation count its document was last looked at for: parsed, nothing to ask
 * until the next navigation; still loading when a read gave up on it (since then), asked once
 * per read and not waited for again.
 */
const lastLooked = new WeakMap<BrowserTab, { count: number; parsed: boolean; since: number }>();

async function documentState(tab: BrowserTab): Promise<ReadObservation['document']> {
  try {
    return (await tab.evaluate([], 'document.readyState')) === 'loading' ? 'parsing' : 'parsed';
  } catch (e) {
    return e instanceof AwaitingServerError ? 'awaiting_server' : 'unreadable';
  }
}

/**
 * Waits until the page can be read for what it is (settle-table.ts decideRead): a navigation
 * waiting for its server is waited for within the op's time (the driver fails a page call to it
 * at once, so nothing reaches the page), a document still being parsed within `parseMs`, then
 * read as it stands with a `still_loading` note. A page nothing navigated since its last look
 * found it parsed costs no call.
 */
export async function untilReadable(
  tab: BrowserTab,
  limits: { deadline: number; parseMs: number },
  notes: { noteOnce(...notes: string[]): void },
): Promise<void> {
  const started = Date.now();
  const count = navigationCount(tab);
  const last = lastLooked.get(tab);
  const seen = last?.count === count ? last : undefined;
  if (seen?.parsed && !tab.activity().awaitingServer) return;
  const opLeftMs = limits.deadline - started;
  // A document a read already gave up on is asked once, not waited for again.
  const rules = {
    pollMs: SETTLE_RULES.pollMs,
    opLeftMs,
    parseMs: seen ? 0 : limits.parseMs,
  };
  for (;;) {
    const d = decideRead(
      { elapsedMs: Date.now() - started, document: await documentState(tab) },
      rules,
    );
    if (d.kind === 'wait') {
      await sleep(d.ms);
      continue;
    }
    if (d.kind === 'timeout')
      throw new AwaitingServerError(tab.activity().awaitingServer ?? tab.url());
    // Counted now: the wait may have heard the navigation it waited for commit.
    const since = seen?.since ?? started;
    lastLooked.set(tab, { count: navigationCount(tab), parsed: !d.stillLoading, since });
    if (d.stillLoading) notes.noteOnce(`still_loading after ${Date.now() - since} ms`);
    return;
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
