/**
 * Settling's decision table: pure, no I/O, no timers. `settle()` observes the tab, asks `decide`,
 * and sleeps or stops as told; every timing rule is a named row here (test/unit/settle-table.test.ts
 * holds one case per race the history recorded). A new race is a new row, not a branch elsewhere.
 */

import type { ActivityMark } from '../page/protocol.js';

/** The page's own count since the action's mark (page/activity.ts). */
export type PageMark = ActivityMark;

/**
 * Why the page gave no mark: the driver says a navigation is waiting for its server (Chromium runs
 * no script in the page until it answers), or the read failed (the document was being replaced).
 */
export type Unreadable = { unreadable: 'awaiting_server' | 'failed' };

/** One look at the tab after an action, taken in one place (settle.ts observe()). */
export interface SettleObservation {
  /** Since the action returned. */
  elapsedMs: number;
  /** The first look is taken after the page's next frame; later ones at once. */
  look: 'first' | 'again';
  tabClosed: boolean;
  dialogPending: boolean;
  /** What the driver heard since the action's baseline. */
  driver: {
    requestsStarted: number;
    /** Of those, the ones that are not a main-frame navigation: a script, an image, a fetch. */
    resourcesStarted: number;
    /** Requests started since the baseline and not answered (headers in) yet. */
    requestsInFlight: number;
    /** Main-frame navigations the driver saw commit or start. */
    navigations: number;
    /** URL of a navigation the action started that is still waiting for its server. */
    awaitingServer?: string;
  };
  page: PageMark | Unreadable;
  /** The document the action started on; null when it could not be read (a navigation waited). */
  documentBefore: string | null;
  /** What earlier looks of this settle saw: once a load or a mutation is seen, it stays seen. */
  earlier: Seen;
}

export interface Seen {
  /** A request or a navigation: the longer quiet window holds to the end. */
  loaded: boolean;
  mutated: boolean;
}

export interface SettleRules {
  /** The settle's budget (SETTLE_TIMEOUT_MS): past it the answer is still_loading. */
  timeoutMs: number;
  /** After a request or a navigation, the DOM counts as settled after this long without mutations. */
  quietMs: number;
  /** An action that started no request and no navigation: a render spread over a few frames. */
  domOnlyQuietMs: number;
  /** Without the Navigation API the page cannot report a navigation: the driver gets this long. */
  graceMs: number;
  pollMs: number;
  /**
   * How long a navigation the page reported may go unheard by the driver. The page reports only
   * those that may replace it (page/activity.ts): a same-document or a cancelled one never holds.
   */
  driverCatchUpMs: number;
  /**
   * How long short timers the action's handlers set (page/activity.ts) may hold the settle: their
   * effect (a navigation, a render) then holds it by the rows above. A poll that keeps setting
   * them costs no more than this.
   */
  deferredMs: number;
}

export const SETTLE_RULES: Omit<SettleRules, 'timeoutMs'> = {
  quietMs: 120,
  domOnlyQuietMs: 50,
  graceMs: 30,
  pollMs: 25,
  driverCatchUpMs: 2000,
  deferredMs: 700,
};

/** The table's rows, by name: what decided, for tests and for a reader. */
export type SettleRule =
  | 'tab_closed'
  | 'dialog_opened'
  | 'no_navigation_api_grace'
  | 'nothing_started'
  | 'document_at_rest'
  | 'rendered_at_once'
  | 'quiet'
  | 'deadline'
  | 'awaiting_server'
  | 'page_unreadable'
  | 'navigation_unheard'
  | 'requests_in_flight'
  | 'document_parsing'
  | 'dom_changing'
  | 'timer_pending';

export type SettleDecision = (
  { kind: 'quiet' } | { kind: 'wait'; ms: number } | { kind: 'still_loading' }
) & { rule: SettleRule; seen: Seen };

export function decide(o: SettleObservation, rules: SettleRules): SettleDecision {
  const page = 'unreadable' in o.page ? undefined : o.page;
  const navigated = o.driver.navigations > 0 || (page?.navigations ?? 0) > 0;
  // The page's own count sees a request at once; the driver's may still be on its way.
  const network = o.driver.requestsStarted > 0 || (page?.requests ?? 0) > 0;
  const seen: Seen = {
    loaded: o.earlier.loaded || navigated || network,
    mutated: o.earlier.mutated || (page?.mutations ?? 0) > 0,
  };
  const stop = (rule: SettleRule): SettleDecision => ({ kind: 'quiet', rule, seen });

  if (o.tabClosed) return stop('tab_closed');
  if (o.dialogPending) return stop('dialog_opened');
  if (o.look === 'first' && page && page.navigations === undefined && o.elapsedMs < rules.graceMs)
    return { kind: 'wait', ms: rules.graceMs - o.elapsedMs, rule: 'no_navigation_api_grace', seen };
  // A new document's short timers are its load's, not the action's: they hold only the row below.
  const newDocument = !!page && page.documentId !== o.documentBefore;
  const deferred = !newDocument && (page?.timersPending ?? 0) > 0 && o.elapsedMs < rules.deferredMs;
  if (page && !navigated && !network && page.mutations === 0 && !deferred && !page.framesPending)
    return stop('nothing_started');
  // The action rendered in its own handler (a counter, a toggled class) and changed nothing through
  // the next frame, with no frame or short timer of its own to come: a render spread over frames
  // changes something in that frame or has one pending. Without this it waited out domOnlyQuietMs.
  if (
    page?.quietThroughFrame &&
    o.look === 'first' &&
    !navigated &&
    !network &&
    page.framesPending === 0 &&
    !deferred
  )
    return stop('rendered_at_once');
  // The action's new document, loaded, has changed nothing since its DOMContentLoaded, started no
  // request, navigation or short timer of its own, and loaded no resource: nothing is on its way.
  // The page counts its load from document start (page/activity.ts), so a render it deferred to a
  // timer, a fetch or a script still arriving keeps it out of this row and in the quiet window;
  // its load event counts the frames, whose requests BiDi does not report to the top context.
  if (
    page &&
    newDocument &&
    !page.parsing &&
    !page.loadPending &&
    page.mutations === 0 &&
    page.requests === 0 &&
    page.timersPending === 0 &&
    page.framesPending === 0 &&
    (page.navigations ?? 0) === 0 &&
    o.driver.resourcesStarted === 0 &&
    o.driver.requestsInFlight === 0 &&
    !o.driver.awaitingServer
  )
    return stop('document_at_rest');

  const quietMs = seen.loaded ? rules.quietMs : rules.domOnlyQuietMs;
  // Until the driver hears a navigation the page reported start, the old document reads as quiet.
  const unheard =
    (page?.navigations ?? 0) > 0 &&
    o.driver.navigations === 0 &&
    o.driver.requestsStarted === 0 &&
    o.elapsedMs < rules.driverCatchUpMs;
  // Judged on the driver's state at this look, not on the page's: a read taken before the driver
  // heard the action's navigation start shows the page being left, at rest.
  const holding: SettleRule | undefined = o.driver.awaitingServer
    ? 'awaiting_server'
    : !page
      ? 'page_unreadable'
      : unheard
        ? 'navigation_unheard'
        : o.driver.requestsInFlight > 0 || page.requestsOpen > 0
          ? 'requests_in_flight'
          : // The action's new document, its body still arriving: a pause in it is not quiet.
            page.parsing && page.documentId !== o.documentBefore
            ? 'document_parsing'
            : page.sinceLastMutationMs < quietMs
              ? 'dom_changing'
              : deferred
                ? 'timer_pending'
                : undefined;
  if (!holding) return stop('quiet');
  if (o.elapsedMs >= rules.timeoutMs) return { kind: 'still_loading', rule: 'deadline', seen };
  // Quiet is due sooner than the next poll: look again just then.
  const dueMs =
    holding === 'dom_changing' && page ? quietMs - page.sinceLastMutationMs + 2 : rules.pollMs;
  return { kind: 'wait', ms: Math.min(rules.pollMs, Math.max(dueMs, 2)), rule: holding, seen };
}

/**
 * One look before an op reads or acts on the page (settle.ts untilReadable): is a navigation
 * still waiting for its server, and is the document it brought parsed yet. Firefox shows the new
 * document, empty and still loading, before it tells of the commit; Chromium shows a slow body's
 * first part. Either read would answer for a page that is not there yet.
 */
export interface ReadObservation {
  /** Since the op began waiting. */
  elapsedMs: number;
  document: 'awaiting_server' | 'parsing' | 'parsed' | 'unreadable';
}

export interface ReadRules {
  pollMs: number;
  /** The op's own time: a server that has not answered by then is the op's timeout. */
  opLeftMs: number;
  /** How long a document still being parsed is waited for (the settle budget within the op's time). */
  parseMs: number;
}

export type ReadRule =
  | 'parsed'
  | 'awaiting_server'
  | 'server_deadline'
  | 'document_parsing'
  | 'parse_deadline'
  | 'page_unreadable';

export type ReadDecision = (
  { kind: 'read'; stillLoading?: true } | { kind: 'wait'; ms: number } | { kind: 'timeout' }
) & { rule: ReadRule };

export function decideRead(o: ReadObservation, rules: ReadRules): ReadDecision {
  const waitWithin = (limitMs: number) =>
    Math.min(rules.pollMs, Math.max(limitMs - o.elapsedMs, 1));
  switch (o.document) {
    case 'parsed':
      return { kind: 'read', rule: 'parsed' };
    // The op's own read then says what failed; waiting would not change it.
    case 'unreadable':
      return { kind: 'read', rule: 'page_unreadable' };
    case 'awaiting_server':
      return o.elapsedMs >= rules.opLeftMs
        ? { kind: 'timeout', rule: 'server_deadline' }
        : { kind: 'wait', ms: waitWithin(rules.opLeftMs), rule: 'awaiting_server' };
    case 'parsing':
      // A stream that never ends is read as it stands, and said to be loading.
      return o.elapsedMs >= rules.parseMs
        ? { kind: 'read', stillLoading: true, rule: 'parse_deadline' }
        : { kind: 'wait', ms: waitWithin(rules.parseMs), rule: 'document_parsing' };
  }
}

/** What the settle saw, for its notes. */
export interface SettleOutcome {
  tabClosed: boolean;
  urlBefore: string;
  urlAfter: string;
  /** Null when the page could not be read (before: a navigation was waiting; after: a dialog). */
  documentBefore: string | null;
  documentAfter: string | null;
  /** The driver saw a main-frame navigation since the baseline. */
  driverNavigated: boolean;
  mutated: boolean;
  /** The settle waited at least once, for this long in all. */
  waitedMs?: number;
  /** Set when the settle ended at its deadline. */
  stillLoadingAfterMs?: number;
}

/** A settle that waited longer than this tells the caller it waited for a render. */
const RENDER_NOTE_MS = 200;

/** `navigated` means a new document; a same-document route change (pushState) is `url_changed`. */
export function settleNotes(s: SettleOutcome): string[] {
  if (s.tabClosed) return ['tab_closed'];
  const notes: string[] = [];
  // Unread before (the page was waiting for a server): a load the driver saw is the evidence.
  const replaced =
    s.documentBefore === null ? s.driverNavigated : s.documentAfter !== s.documentBefore;
  // Unreadable after (a dialog blocks the page) is not evidence of a new document.
  if (s.documentAfter !== null && replaced) notes.push('navigated');
  else if (s.urlAfter !== s.urlBefore) notes.push('url_changed');
  if (s.mutated && !notes.includes('navigated')) notes.push('dom_changed');
  if (s.stillLoadingAfterMs !== undefined)
    notes.push(`still_loading after ${s.stillLoadingAfterMs} ms`);
  else if (s.waitedMs !== undefined && s.waitedMs > RENDER_NOTE_MS) notes.push('waited_for_render');
  return notes;
}
