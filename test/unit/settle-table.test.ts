import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { saturation } from '../../src/core/machine-load.js';
import { AwaitingServerError } from '../../src/drivers/driver.js';
import { layoutVerdict, pageState, unansweredVerdict } from '../../src/drivers/stuck-probe.js';
import { TabRecord } from '../../src/drivers/tab-record.js';
import {
  SETTLE_RULES,
  decide,
  decideRead,
  settleNotes,
  type PageMark,
  type ReadDecision,
  type ReadObservation,
  type ReadRule,
  type ReadRules,
  type SettleObservation,
  type SettleOutcome,
  type SettleRule,
  type SettleRules,
} from '../../src/ops/settle-table.js';

/** The page's mark when the action started nothing: no mutation, request or navigation. */
const AT_REST: PageMark = {
  mutations: 0,
  sinceLastMutationMs: 0,
  requests: 0,
  requestsOpen: 0,
  timersPending: 0,
  framesPending: 0,
  navigations: 0,
  documentId: 'doc-1',
  parsing: false,
  loadPending: false,
};

const SAVE = 'http://app.test/save?q=x';

/** What the driver heard of a navigation that brought only its document: no resource loaded. */
const ARRIVED = { navigations: 1, requestsStarted: 1, resourcesStarted: 0 };

interface Look {
  elapsedMs?: number;
  look?: SettleObservation['look'];
  tabClosed?: boolean;
  dialogPending?: boolean;
  driver?: Partial<SettleObservation['driver']>;
  page?: Partial<PageMark> | SettleObservation['page'];
  documentBefore?: string | null;
  earlier?: Partial<SettleObservation['earlier']>;
}

function observation(l: Look): SettleObservation {
  const page = l.page && 'unreadable' in l.page ? l.page : { ...AT_REST, ...l.page };
  return {
    elapsedMs: l.elapsedMs ?? 20,
    look: l.look ?? 'again',
    tabClosed: l.tabClosed ?? false,
    dialogPending: l.dialogPending ?? false,
    driver: {
      requestsStarted: 0,
      // A row's requests are resources unless it says one was the navigation's own document.
      resourcesStarted: l.driver?.requestsStarted ?? 0,
      requestsInFlight: 0,
      navigations: 0,
      ...l.driver,
    },
    page,
    documentBefore: l.documentBefore === undefined ? 'doc-1' : l.documentBefore,
    earlier: { loaded: false, mutated: false, ...l.earlier },
  };
}

type Expected =
  | { kind: 'quiet'; rule: SettleRule }
  | { kind: 'wait'; ms: number; rule: SettleRule }
  | { kind: 'still_loading'; rule: SettleRule };

interface Row {
  /** The race it reproduces, as the history (git log of ops/settle.ts…) recorded it. */
  name: string;
  look: Look;
  rules?: Partial<SettleRules>;
  expected: Expected;
}

/** One row per race. Read top to bottom: what one look saw, and what settling does about it. */
const TABLE: Row[] = [
  // Nothing started: the cheap path every action that does nothing takes.
  {
    name: 'nothing started: one look after the next frame answers at once',
    look: { look: 'first', elapsedMs: 18 },
    expected: { kind: 'quiet', rule: 'nothing_started' },
  },
  {
    name: 'orbiting button: a CSS animation mutates nothing, so a click costs one look',
    look: { look: 'first', elapsedMs: 20, page: { sinceLastMutationMs: 4000 } },
    expected: { kind: 'quiet', rule: 'nothing_started' },
  },
  {
    name: 'SETTLE_TIMEOUT_MS 0: the one look still decides quiet, not still_loading',
    look: { look: 'first', elapsedMs: 25 },
    rules: { timeoutMs: 0 },
    expected: { kind: 'quiet', rule: 'nothing_started' },
  },
  {
    name: 'a page without the Navigation API: the first look waits out the grace',
    look: { look: 'first', elapsedMs: 12, page: { navigations: undefined } },
    expected: { kind: 'wait', ms: 18, rule: 'no_navigation_api_grace' },
  },
  {
    name: 'a page without the Navigation API: after the grace, nothing heard is nothing started',
    look: { look: 'again', elapsedMs: 31, page: { navigations: undefined } },
    expected: { kind: 'quiet', rule: 'nothing_started' },
  },
  {
    name: 'a page without the Navigation API: a navigation the driver heard in the grace holds',
    look: {
      look: 'again',
      elapsedMs: 31,
      page: { navigations: undefined },
      driver: { navigations: 1, requestsStarted: 1, awaitingServer: SAVE },
    },
    expected: { kind: 'wait', ms: 25, rule: 'awaiting_server' },
  },
  // DOM-only changes: the handler rendered by itself.
  {
    name: 'DOM-only render over several frames: waits until 50 ms without a mutation',
    look: { page: { mutations: 3, sinceLastMutationMs: 16 } },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'DOM-only render: quiet is due before the next poll, so it looks again just then',
    look: { page: { mutations: 3, sinceLastMutationMs: 40 } },
    expected: { kind: 'wait', ms: 12, rule: 'dom_changing' },
  },
  {
    name: 'DOM-only render: 50 ms without a mutation is settled',
    look: { page: { mutations: 3, sinceLastMutationMs: 52 } },
    expected: { kind: 'quiet', rule: 'quiet' },
  },
  {
    name: 'a DOM that never stops changing (a ticking clock): still_loading at the deadline',
    look: { elapsedMs: 5000, page: { mutations: 250, sinceLastMutationMs: 8 } },
    expected: { kind: 'still_loading', rule: 'deadline' },
  },
  // Requests.
  {
    name: 'SPA transient: the route change fetched, so its render gets 120 ms of quiet',
    look: {
      driver: { requestsStarted: 1 },
      page: { requests: 1, mutations: 5, sinceLastMutationMs: 60 },
    },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'SPA transient: a spinner removed 120 ms ago is settled',
    look: {
      driver: { requestsStarted: 1 },
      page: { requests: 1, mutations: 5, sinceLastMutationMs: 121 },
    },
    expected: { kind: 'quiet', rule: 'quiet' },
  },
  {
    name: 'SPA transient: once a request was seen the longer window holds to the end',
    look: { earlier: { loaded: true }, page: { mutations: 2, sinceLastMutationMs: 80 } },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'request heard late by the driver: the page counted it the moment fetch was called',
    look: { look: 'first', page: { requests: 1, requestsOpen: 1 } },
    expected: { kind: 'wait', ms: 25, rule: 'requests_in_flight' },
  },
  {
    name: 'a request only the driver sees (a beacon, a worker) holds while in flight',
    look: { driver: { requestsStarted: 1, requestsInFlight: 1 }, page: { mutations: 0 } },
    expected: { kind: 'wait', ms: 25, rule: 'requests_in_flight' },
  },
  {
    name: 'stream or long body: answered (headers in) is settled, the body is not waited for',
    look: {
      driver: { requestsStarted: 1, requestsInFlight: 0 },
      page: { requests: 1, requestsOpen: 0, mutations: 1, sinceLastMutationMs: 130 },
    },
    expected: { kind: 'quiet', rule: 'quiet' },
  },
  {
    name: 'a request that outlives the settle: still_loading at the deadline',
    look: { elapsedMs: 5010, driver: { requestsStarted: 1, requestsInFlight: 1 } },
    expected: { kind: 'still_loading', rule: 'deadline' },
  },
  // Navigations.
  {
    name: 'navigation awaiting its server (held form post): the page answers nothing, settling waits',
    look: {
      driver: { requestsStarted: 1, requestsInFlight: 1, navigations: 1, awaitingServer: SAVE },
      page: { unreadable: 'awaiting_server' },
    },
    expected: { kind: 'wait', ms: 25, rule: 'awaiting_server' },
  },
  {
    name: 'held form post read before the driver heard it start: the page being left reads at rest',
    look: {
      driver: { requestsStarted: 1, navigations: 1, awaitingServer: SAVE },
      page: { navigations: 1, sinceLastMutationMs: 900 },
    },
    expected: { kind: 'wait', ms: 25, rule: 'awaiting_server' },
  },
  {
    name: 'held form post at the deadline: still_loading, the action answers while the server holds',
    look: {
      elapsedMs: 5000,
      driver: { requestsStarted: 1, navigations: 1, awaitingServer: SAVE },
      page: { unreadable: 'awaiting_server' },
    },
    expected: { kind: 'still_loading', rule: 'deadline' },
  },
  {
    name: 'a page held by a navigation the action did not start waits like any unreadable page',
    look: { page: { unreadable: 'awaiting_server' } },
    expected: { kind: 'wait', ms: 25, rule: 'page_unreadable' },
  },
  {
    name: 'navigation the page reported but the driver has not heard yet (a GET form submission)',
    look: { elapsedMs: 40, page: { navigations: 1, sinceLastMutationMs: 300 } },
    expected: { kind: 'wait', ms: 25, rule: 'navigation_unheard' },
  },
  {
    name: 'a cancelled navigation never reaches the network: past the catch-up bound it holds nothing',
    look: { elapsedMs: 2000, page: { navigations: 1, sinceLastMutationMs: 2000 } },
    expected: { kind: 'quiet', rule: 'quiet' },
  },
  // page/activity.ts reports only navigations that may replace the document: the three below
  // read navigations: 0 and settle on the DOM alone (they held for driverCatchUpMs before).
  {
    name: 'SPA route change: pushState is a same-document navigation the driver never hears',
    look: { elapsedMs: 40, page: { navigations: 0, mutations: 2, sinceLastMutationMs: 60 } },
    expected: { kind: 'quiet', rule: 'quiet' },
  },
  {
    name: 'SPA route change: a navigation the router intercepted, unheard by the BiDi driver, renders',
    look: { elapsedMs: 40, page: { navigations: 0, mutations: 2, sinceLastMutationMs: 20 } },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'a navigation the page cancelled (an unsaved-changes guard) holds nothing',
    look: { elapsedMs: 40, page: { navigations: 0, mutations: 1, sinceLastMutationMs: 80 } },
    expected: { kind: 'quiet', rule: 'quiet' },
  },
  {
    name: 'document being replaced: a read that met the swap looks again',
    look: { driver: { navigations: 1, requestsStarted: 1 }, page: { unreadable: 'failed' } },
    expected: { kind: 'wait', ms: 25, rule: 'page_unreadable' },
  },
  {
    name: 'navigation landed: the new document counts from zero, and gets 120 ms of quiet',
    look: { driver: { navigations: 1, requestsStarted: 3 }, page: { sinceLastMutationMs: 40 } },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'navigation landed and the new document is quiet: settled',
    look: { driver: { navigations: 1, requestsStarted: 3 }, page: { sinceLastMutationMs: 125 } },
    expected: { kind: 'quiet', rule: 'quiet' },
  },
  {
    name: 'SPA route change by pushState: the page reported it, the driver heard it at once',
    look: {
      driver: { navigations: 1 },
      page: { navigations: 1, mutations: 4, sinceLastMutationMs: 130 },
    },
    expected: { kind: 'quiet', rule: 'quiet' },
  },
  {
    name: 'download click: its navigation became a download; the request heard is the download',
    look: {
      driver: { requestsStarted: 1, requestsInFlight: 0 },
      page: { navigations: 1, sinceLastMutationMs: 150 },
    },
    expected: { kind: 'quiet', rule: 'quiet' },
  },
  {
    name: 'download click before the browser called it a download: its navigation is awaited',
    look: {
      driver: { requestsStarted: 1, requestsInFlight: 1, awaitingServer: 'http://app.test/f.csv' },
      page: { navigations: 1 },
    },
    expected: { kind: 'wait', ms: 25, rule: 'awaiting_server' },
  },
  // A document whose body arrives slowly: the parser is the one still working.
  {
    name: 'slow body: the new document is quiet between its chunks, but still parsing holds',
    look: {
      driver: { navigations: 1, requestsStarted: 1 },
      page: { documentId: 'doc-2', parsing: true, sinceLastMutationMs: 400 },
    },
    expected: { kind: 'wait', ms: 25, rule: 'document_parsing' },
  },
  {
    name: 'Firefox shows the new document empty and loading before it tells of the commit',
    look: {
      driver: { requestsStarted: 1, navigations: 0 },
      page: { documentId: 'doc-2', parsing: true, sinceLastMutationMs: 150 },
    },
    expected: { kind: 'wait', ms: 25, rule: 'document_parsing' },
  },
  {
    name: 'slow body after a held form post: the page was unread before, the new one is parsing',
    look: {
      driver: { navigations: 1, requestsStarted: 1 },
      page: { documentId: 'doc-2', parsing: true, sinceLastMutationMs: 300 },
      documentBefore: null,
    },
    expected: { kind: 'wait', ms: 25, rule: 'document_parsing' },
  },
  {
    name: 'a page still parsing that the action did not replace: its own loading holds nothing',
    look: {
      driver: { requestsStarted: 1 },
      page: { requests: 1, parsing: true, mutations: 2, sinceLastMutationMs: 130 },
    },
    expected: { kind: 'quiet', rule: 'quiet' },
  },
  {
    name: 'a document streamed forever: still_loading at the deadline',
    look: {
      elapsedMs: 5000,
      driver: { navigations: 1, requestsStarted: 1 },
      page: { documentId: 'doc-2', parsing: true, sinceLastMutationMs: 600 },
    },
    expected: { kind: 'still_loading', rule: 'deadline' },
  },
  // The tab itself.
  {
    name: 'dialog opened by the action: it is the outcome, settling stops',
    look: { dialogPending: true, page: { unreadable: 'failed' } },
    expected: { kind: 'quiet', rule: 'dialog_opened' },
  },
  {
    name: 'dialog opened while a request is in flight: still the outcome',
    look: { dialogPending: true, driver: { requestsStarted: 1, requestsInFlight: 1 } },
    expected: { kind: 'quiet', rule: 'dialog_opened' },
  },
  // A handler that defers its effect: setTimeout(() => location.href = …, 150) or a debounce.
  {
    name: 'deferred navigation: a short timer the handler set holds the first look',
    look: { look: 'first', elapsedMs: 60, page: { timersPending: 1, sinceLastMutationMs: 60 } },
    expected: { kind: 'wait', ms: 25, rule: 'timer_pending' },
  },
  {
    name: 'deferred navigation: the timer ran and navigated; the navigation holds from here',
    look: { elapsedMs: 420, page: { timersPending: 0, navigations: 1 } },
    expected: { kind: 'wait', ms: 25, rule: 'navigation_unheard' },
  },
  {
    name: 'a poll that keeps setting short timers holds no longer than deferredMs',
    look: { elapsedMs: 700, page: { timersPending: 1 } },
    expected: { kind: 'quiet', rule: 'nothing_started' },
  },
  {
    name: 'a short timer beside a render: quiet once the render is and the timer ran',
    look: { elapsedMs: 300, page: { timersPending: 1, mutations: 2, sinceLastMutationMs: 200 } },
    expected: { kind: 'wait', ms: 25, rule: 'timer_pending' },
  },
  // A handler that renders at once: a click on "Clicked N times" waited out the 50 ms DOM-only
  // window every time (click settle 53 ms of 112).
  {
    name: 'a handler that rendered at once and changed nothing through the next frame: one look',
    look: {
      look: 'first',
      page: { mutations: 1, sinceLastMutationMs: 12, quietThroughFrame: true },
    },
    expected: { kind: 'quiet', rule: 'rendered_at_once' },
  },
  {
    name: 'a render spread over frames (one more requested) holds the DOM-only window',
    look: {
      look: 'first',
      page: { mutations: 1, sinceLastMutationMs: 12, quietThroughFrame: true, framesPending: 1 },
    },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'an action that asked for a frame and changed nothing yet holds the DOM-only window',
    look: { look: 'first', page: { framesPending: 1, sinceLastMutationMs: 20 } },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'a frame loop the action started, changing nothing, is quiet after that window',
    look: { elapsedMs: 70, page: { framesPending: 1, sinceLastMutationMs: 60 } },
    expected: { kind: 'quiet', rule: 'quiet' },
  },
  {
    name: 'a render that went on changing through the frame holds the DOM-only window',
    look: {
      look: 'first',
      page: { mutations: 4, sinceLastMutationMs: 3, quietThroughFrame: false },
    },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'a spinner shown as a request went out: the request window holds, whatever the frame said',
    look: {
      look: 'first',
      driver: { requestsStarted: 1 },
      page: { mutations: 1, sinceLastMutationMs: 12, quietThroughFrame: true },
    },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'a short timer the handler set beside its render holds: its effect is still to come',
    look: {
      look: 'first',
      page: { mutations: 1, sinceLastMutationMs: 60, quietThroughFrame: true, timersPending: 1 },
    },
    expected: { kind: 'wait', ms: 25, rule: 'timer_pending' },
  },
  // A goto (or a click that navigates) and its new document. The page counts its load from
  // document start and its DOM from DOMContentLoaded: a goto to a static page waited out the
  // 120 ms quiet window for nothing (138 of its 185 ms, 4.98x raw playwright-core's goto).
  {
    name: 'a new document unchanged since DOMContentLoaded, nothing of its own started: at rest',
    look: {
      look: 'first',
      driver: ARRIVED,
      page: { documentId: 'doc-2', sinceLastMutationMs: 15 },
    },
    expected: { kind: 'quiet', rule: 'document_at_rest' },
  },
  {
    // Firefox: `find` in the frame read an empty frame after a goto answered at rest (CI, 2 of 4 runs).
    name: 'a new document whose frame is still loading (no load event, no request the driver saw) is not at rest',
    look: {
      look: 'first',
      driver: ARRIVED,
      page: { documentId: 'doc-2', loadPending: true, sinceLastMutationMs: 15 },
    },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'a new document that rendered after DOMContentLoaded gets the quiet window',
    look: {
      look: 'first',
      driver: ARRIVED,
      page: { documentId: 'doc-2', mutations: 3, sinceLastMutationMs: 10 },
    },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'a new document that deferred its render to a short timer is not at rest',
    look: {
      look: 'first',
      driver: ARRIVED,
      page: { documentId: 'doc-2', timersPending: 1, sinceLastMutationMs: 15 },
    },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: "a new document's load poll (short timers over and over) holds no longer than the quiet window",
    look: {
      elapsedMs: 200,
      driver: ARRIVED,
      page: { documentId: 'doc-2', timersPending: 1, sinceLastMutationMs: 130 },
    },
    expected: { kind: 'quiet', rule: 'quiet' },
  },
  {
    name: 'a new document whose script arrived (headers in, not run yet) is not at rest',
    look: {
      look: 'first',
      driver: { navigations: 1, requestsStarted: 2, resourcesStarted: 1 },
      page: { documentId: 'doc-2', sinceLastMutationMs: 15 },
    },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'a new document that fetched at load (answered, its render to come) is not at rest',
    look: {
      look: 'first',
      driver: ARRIVED,
      page: { documentId: 'doc-2', requests: 1, sinceLastMutationMs: 15 },
    },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'a click that navigates: the old document, unchanged, is never at rest',
    look: {
      look: 'first',
      driver: ARRIVED,
      page: { sinceLastMutationMs: 15 },
    },
    expected: { kind: 'wait', ms: 25, rule: 'dom_changing' },
  },
  {
    name: 'tab closed by the action (window.close): nothing left to wait for',
    look: { tabClosed: true, page: { unreadable: 'failed' } },
    expected: { kind: 'quiet', rule: 'tab_closed' },
  },
];

describe('the settle decision table', () => {
  for (const row of TABLE) {
    test(row.name, () => {
      const rules = { ...SETTLE_RULES, timeoutMs: 5000, ...row.rules };
      const d = decide(observation(row.look), rules);
      const got =
        d.kind === 'wait'
          ? { kind: d.kind, ms: d.ms, rule: d.rule }
          : { kind: d.kind, rule: d.rule };
      assert.deepEqual(got, row.expected);
    });
  }

  test('a request or a navigation seen once stays seen; so does a mutation', () => {
    const rules = { ...SETTLE_RULES, timeoutMs: 5000 };
    const d = decide(observation({ page: { requests: 1, requestsOpen: 1, mutations: 2 } }), rules);
    assert.deepEqual(d.seen, { loaded: true, mutated: true });
    const later = decide(
      observation({ earlier: d.seen, page: { sinceLastMutationMs: 10 } }),
      rules,
    );
    assert.deepEqual(later.seen, { loaded: true, mutated: true });
  });

  test('every rule of the table has a row', () => {
    const rows = new Set(TABLE.map((r) => r.expected.rule));
    const rules: SettleRule[] = [
      'tab_closed',
      'dialog_opened',
      'no_navigation_api_grace',
      'nothing_started',
      'document_at_rest',
      'rendered_at_once',
      'quiet',
      'deadline',
      'awaiting_server',
      'page_unreadable',
      'navigation_unheard',
      'requests_in_flight',
      'document_parsing',
      'dom_changing',
      'timer_pending',
    ];
    assert.deepEqual(
      rules.filter((r) => !rows.has(r)),
      [],
    );
  });
});

describe('the wait before an op reads the page', () => {
  const rules: ReadRules = { pollMs: 25, opLeftMs: 10_000, parseMs: 5000 };
  const rows: {
    name: string;
    look: ReadObservation;
    rules?: Partial<ReadRules>;
    expected: ReadDecision;
  }[] = [
    {
      name: 'a parsed document is read at once',
      look: { elapsedMs: 0, document: 'parsed' },
      expected: { kind: 'read', rule: 'parsed' },
    },
    {
      name: 'held form post: the read waits for the server within the op time',
      look: { elapsedMs: 900, document: 'awaiting_server' },
      expected: { kind: 'wait', ms: 25, rule: 'awaiting_server' },
    },
    {
      name: 'held form post past the op time: the op is a timeout naming the URL',
      look: { elapsedMs: 1000, document: 'awaiting_server' },
      rules: { opLeftMs: 1000 },
      expected: { kind: 'timeout', rule: 'server_deadline' },
    },
    {
      name: 'Firefox: the server answered, the new document is empty and loading: wait',
      look: { elapsedMs: 10, document: 'parsing' },
      expected: { kind: 'wait', ms: 25, rule: 'document_parsing' },
    },
    {
      name: 'a parse that ends just before the next poll is looked at just then',
      look: { elapsedMs: 4990, document: 'parsing' },
      expected: { kind: 'wait', ms: 10, rule: 'document_parsing' },
    },
    {
      name: 'a document streamed forever is read as it stands after the settle budget',
      look: { elapsedMs: 5000, document: 'parsing' },
      expected: { kind: 'read', stillLoading: true, rule: 'parse_deadline' },
    },
    {
      name: 'a document a read already gave up on is not waited for again',
      look: { elapsedMs: 0, document: 'parsing' },
      rules: { parseMs: 0 },
      expected: { kind: 'read', stillLoading: true, rule: 'parse_deadline' },
    },
    {
      name: 'a page that cannot be read: the op itself says what failed',
      look: { elapsedMs: 0, document: 'unreadable' },
      expected: { kind: 'read', rule: 'page_unreadable' },
    },
  ];
  for (const row of rows)
    test(row.name, () =>
      assert.deepEqual(decideRead(row.look, { ...rules, ...row.rules }), row.expected),
    );

  test('every rule of the read wait has a row', () => {
    const all: ReadRule[] = [
      'parsed',
      'awaiting_server',
      'server_deadline',
      'document_parsing',
      'parse_deadline',
      'page_unreadable',
    ];
    const covered = new Set(rows.map((r) => r.expected.rule));
    assert.deepEqual(
      all.filter((r) => !covered.has(r)),
      [],
    );
  });
});

describe('the notes a settle gives', () => {
  const base: SettleOutcome = {
    tabClosed: false,
    urlBefore: 'http://app.test/',
    urlAfter: 'http://app.test/',
    documentBefore: 'doc-1',
    documentAfter: 'doc-1',
    driverNavigated: false,
    mutated: false,
  };
  const cases: { name: string; outcome: Partial<SettleOutcome>; notes: string[] }[] = [
    { name: 'nothing happened', outcome: {}, notes: [] },
    {
      name: 'a new document is navigated',
      outcome: { documentAfter: 'doc-2' },
      notes: ['navigated'],
    },
    {
      name: 'a pushState route change is url_changed with its render',
      outcome: { urlAfter: 'http://app.test/#/b', mutated: true },
      notes: ['url_changed', 'dom_changed'],
    },
    {
      name: 'unread before (a navigation was waiting): a load the driver saw is navigated',
      outcome: { documentBefore: null, documentAfter: 'doc-2', driverNavigated: true },
      notes: ['navigated'],
    },
    {
      name: 'unreadable after (a dialog): no evidence of a new document',
      outcome: { documentAfter: null, urlAfter: 'http://app.test/next' },
      notes: ['url_changed'],
    },
    { name: 'the tab closed', outcome: { tabClosed: true, mutated: true }, notes: ['tab_closed'] },
    {
      name: 'held form post at the deadline: the page being left, still loading',
      outcome: { stillLoadingAfterMs: 5000, urlAfter: SAVE },
      notes: ['url_changed', 'still_loading after 5000 ms'],
    },
    {
      name: 'a wait longer than 200 ms is waited_for_render',
      outcome: { mutated: true, waitedMs: 240 },
      notes: ['dom_changed', 'waited_for_render'],
    },
  ];
  for (const c of cases)
    test(c.name, () => assert.deepEqual(settleNotes({ ...base, ...c.outcome }), c.notes));
});

describe("the driver's knowledge: a navigation waiting for its server", () => {
  const probeNever = () => new Promise<never>(() => {});

  test('a page call on a tab awaiting its server fails at once, naming the URL', async () => {
    const record = new TabRecord<string>();
    record.navigationSent(SAVE);
    await assert.rejects(
      record.pageCall(() => Promise.resolve(1), probeNever),
      (e: unknown) => e instanceof AwaitingServerError && e.url === SAVE && e.kind === 'timeout',
    );
  });

  test('a call in flight when a navigation starts to wait fails at once', async () => {
    const record = new TabRecord<string>();
    const call = record.pageCall(() => new Promise<number>(() => {}), probeNever);
    record.navigationSent(SAVE);
    await assert.rejects(call, AwaitingServerError);
  });

  test('a same-document navigation (sent and ended in one task) fails nothing', async () => {
    const record = new TabRecord<string>();
    let answer = (_: number) => {};
    const call = record.pageCall(() => new Promise<number>((r) => (answer = r)), probeNever);
    record.navigationSent('http://app.test/#b');
    record.navigationEnded('http://app.test/#b');
    await Promise.resolve();
    answer(7);
    assert.equal(await call, 7);
  });

  test('the server answered: calls go through again', async () => {
    const record = new TabRecord<string>();
    record.navigationSent(SAVE);
    record.navigationAnswered(SAVE, 200);
    assert.equal(await record.pageCall(() => Promise.resolve(2), probeNever), 2);
  });

  test('the late load event of the page being left does not end the wait (its URL differs)', async () => {
    const record = new TabRecord<string>();
    record.navigationSent(SAVE);
    record.navigationEnded('http://app.test/form.html');
    assert.equal(record.activity().awaitingServer, SAVE);
    record.navigationEnded(`${SAVE}#done`);
    assert.equal(record.activity().awaitingServer, undefined, 'the fragment is ignored');
  });

  test('a page that answers the probe from the awaited URL is not held: calls go through', async () => {
    const record = new TabRecord<string>();
    record.navigationSent(SAVE);
    let probes = 0;
    let answer = (_href: string) => {};
    const probe = () => (probes++, new Promise<string>((r) => (answer = r)));
    await assert.rejects(
      record.pageCall(() => Promise.resolve(1), probe),
      AwaitingServerError,
    );
    await assert.rejects(
      record.pageCall(() => Promise.resolve(1), probe),
      AwaitingServerError,
    );
    assert.equal(probes, 1, 'one probe per awaited URL at a time');
    answer(`${SAVE}#top`);
    await new Promise((r) => setImmediate(r));
    assert.equal(await record.pageCall(() => Promise.resolve(3), probe), 3);
    assert.equal(record.activity().awaitingServer, SAVE, 'settling still waits for it');
  });

  test('the old document answering the probe (BiDi: before the request went out) is still held', async () => {
    const record = new TabRecord<string>();
    record.navigationSent(SAVE);
    let probes = 0;
    const probe = () => (probes++, Promise.resolve('http://app.test/form'));
    await assert.rejects(
      record.pageCall(() => Promise.resolve(1), probe),
      AwaitingServerError,
    );
    await new Promise((r) => setImmediate(r));
    await assert.rejects(
      record.pageCall(() => Promise.resolve(1), probe),
      AwaitingServerError,
    );
    assert.equal(probes, 2, 'an untrusted answer lets the next call ask again');
  });

  test('a download of the awaited URL, and an aborted navigation, are no failed load', () => {
    const record = new TabRecord<string>();
    record.navigationSent('http://app.test/f.csv');
    record.navigationFailed('http://app.test/f.csv', 'net::ERR_ABORTED');
    record.download('http://app.test/f.csv');
    assert.equal(record.activity().awaitingServer, undefined);
    assert.equal(record.activity().lastNavigation, undefined);
  });
});

describe('the deadline: is the page stuck in script', () => {
  const ping = () => Promise.resolve();
  const after = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

  test('a page that answers the probe is not stuck', async () => {
    assert.equal(await pageState({ probe: () => Promise.resolve(1), ping }), 'answering');
  });

  test('a page that does not answer within the window is stuck', async () => {
    assert.equal(await pageState({ probe: () => new Promise(() => {}), ping }), 'script');
  });

  test('a probe queued behind our own slow lookup waits for it: the page is not stuck', async () => {
    const record = new TabRecord<string>();
    const lookup = after(450);
    void record.pageCall(
      () => lookup,
      () => Promise.resolve(),
    );
    // The page answers the probe only once the lookup ahead of it is done, as a renderer does.
    const state = await pageState({ probe: () => lookup, ping, busy: record.oldestCall() });
    assert.equal(state, 'answering');
  });

  test('our own call held past 500 ms is the stuck script: the probe does not wait for it', async () => {
    const record = new TabRecord<string>();
    void record.pageCall(
      () => new Promise(() => {}),
      () => Promise.resolve(),
    );
    await after(500);
    const started = Date.now();
    const busy = record.oldestCall();
    assert.equal(await pageState({ probe: () => new Promise(() => {}), ping, busy }), 'script');
    assert.ok(Date.now() - started < 700, `waited ${Date.now() - started} ms`);
  });

  const held = () => new Promise(() => {});

  test('a held page that answers between two steps of its script is in script', async () => {
    const inScript = () => after(40);
    assert.equal(await pageState({ probe: held, ping, inScript }), 'script');
  });

  test('a held page that does not answer even that is laying out: rendering, not stopped', async () => {
    assert.equal(await pageState({ probe: held, ping, inScript: held }), 'rendering');
  });

  test("on a starved machine the script question gets the link's time too: still in script", async () => {
    // The browser answers its own command in 200 ms, the page's renderer between two steps of its
    // script in 600 ms: both slowed alike, so the page is in script, not laying out.
    const slowPing = () => after(200);
    const state = await pageState({ probe: held, ping: slowPing, inScript: () => after(600) });
    assert.equal(state, 'script');
  });

  test('a page whose script ends as it is asked is left alone, not armed to stop', async () => {
    const ends = after(400);
    const state = await pageState({ probe: () => ends, ping, inScript: () => after(50) });
    assert.equal(state, 'answering');
  });

  test('a page that finishes its layout while asked answers', async () => {
    const laidOut = after(450);
    const state = await pageState({
      probe: () => laidOut,
      ping,
      inScript: () => laidOut.then(() => after(5)),
    });
    assert.equal(state, 'answering');
  });

  test('a slow link never crowds out the render question: the answer comes by its due time', async () => {
    const slowPing = () => after(1000);
    const started = Date.now();
    const state = await pageState({
      probe: held,
      ping: slowPing,
      inScript: held,
      due: started + 1500,
    });
    const took = Date.now() - started;
    // Without a due time the window would be 4 x 1000 ms: taken for stuck, the tab replaced.
    assert.equal(state, 'rendering');
    assert.ok(took < 1600, `answered after ${took} ms`);
  });

  test('a browser that does not answer its own command says nothing of the page: unanswered', async () => {
    // A while(true) page under load was once read as a starved one: the probe and the stop both
    // answered, only late. Unanswered is what the questions learned, not how long they took.
    const started = Date.now();
    const state = await pageState({ probe: held, ping: held, inScript: held, due: started + 800 });
    assert.equal(state, 'unanswered');
    assert.ok(Date.now() - started < 900, `answered after ${Date.now() - started} ms`);
  });

  test('a page that answers as the browser stays silent answers', async () => {
    const state = await pageState({ probe: () => after(100), ping: held, due: Date.now() + 600 });
    assert.equal(state, 'answering');
  });
});

describe('the deadline: a page found laying out op after op', () => {
  const LIMIT = 30_000;

  test('the first deadline that finds it laying out waits for it: nothing stops a layout', () => {
    const v = layoutVerdict(undefined, 'tab-1', 1000, LIMIT);
    assert.deepEqual(v, { streak: { tab: 'tab-1', since: 1000 }, stuck: false });
  });

  test('found laying out at every deadline for the limit, it is stuck and its tab replaced', () => {
    // A hostile page laying itself out without end, or a starved script read as a layout, held a
    // session for over 7 minutes: every op answered "still rendering, nothing was stopped".
    const first = layoutVerdict(undefined, 'tab-1', 1000, LIMIT);
    assert.equal(layoutVerdict(first.streak, 'tab-1', 20_000, LIMIT).stuck, false);
    assert.equal(layoutVerdict(first.streak, 'tab-1', 31_000, LIMIT).stuck, true);
  });

  test("another tab's layout starts its own streak", () => {
    const first = layoutVerdict(undefined, 'tab-1', 1000, LIMIT);
    const other = layoutVerdict(first.streak, 'tab-2', 40_000, LIMIT);
    assert.deepEqual(other, { streak: { tab: 'tab-2', since: 40_000 }, stuck: false });
  });

  test('a limit of 0 waits for a layout for ever', () => {
    assert.equal(layoutVerdict({ tab: 't', since: 0 }, 't', 10 * 60_000, 0).stuck, false);
  });
});

describe('the deadline: a page and browser that answer no question in time', () => {
  test('on a machine with CPU to spare the page is stuck: its tab is replaced', () => {
    assert.equal(unansweredVerdict(undefined, 'tab-1', false), 'stuck');
  });

  test('on a saturated machine the first such deadline waits: a starved load reads the same', () => {
    // 16 sessions' first goto at load 14: the tab was replaced, the page reopened blank, and each
    // session's 20 later ops met about:blank.
    assert.equal(unansweredVerdict(undefined, 'tab-1', true), 'wait');
  });

  test('unanswered again at a later deadline of the same tab, it is stuck', () => {
    assert.equal(unansweredVerdict('tab-1', 'tab-1', true), 'stuck');
    assert.equal(unansweredVerdict('tab-1', 'tab-2', true), 'wait');
  });
});

describe('a page that does not answer on a saturated machine', () => {
  test('the answer says the page may be starved, naming the load and the event-loop delay', () => {
    assert.equal(
      saturation({ load: 14.2, cores: 2, loopDelayMs: 900 }),
      "the machine is saturated (load 14.2 on 2 cores, the server's event loop delayed up to 900 ms)",
    );
  });

  test('a late event loop alone is saturation: the server itself was starved', () => {
    assert.match(saturation({ load: 1, cores: 2, loopDelayMs: 450 }) ?? '', /delayed up to 450 ms/);
  });

  test('a loaded machine below two runnable per core, with a timely loop, is not', () => {
    assert.equal(saturation({ load: 3.9, cores: 2, loopDelayMs: 40 }), undefined);
  });
});
