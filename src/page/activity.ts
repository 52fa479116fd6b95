import type { ActivityMark } from './protocol.js';
import { ownQueueMicrotask, ownRequestAnimationFrame, ownSetTimeout } from './timers.js';

/** Identifies this document: a new one after a navigation has a new id. */
const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

export function documentId(): string {
  return id;
}

let observer: MutationObserver | null = null;
let mutations = 0;
let lastMutation = performance.now();
/** Marks so far: a request belongs to the mark it started under. */
let epoch = 0;
let requestsSinceMark = 0;
const unanswered = new Map<object, number>();

/**
 * Counts fetch and XHR requests as the page starts them. The driver hears of a request later,
 * sometimes after settling's grace has passed under load; this count is there the moment a click
 * handler calls fetch, so an action that started a request is never taken for one that did nothing.
 */
function watchRequests(): void {
  const started = (): (() => void) => {
    const token = {};
    requestsSinceMark++;
    unanswered.set(token, epoch);
    return () => unanswered.delete(token);
  };
  const pageFetch = window.fetch;
  if (typeof pageFetch === 'function') {
    window.fetch = function fetch(this: unknown, ...args: Parameters<typeof window.fetch>) {
      const answered = started();
      try {
        const response = pageFetch.apply(this, args);
        response.then(answered, answered);
        return response;
      } catch (e) {
        answered();
        throw e;
      }
    };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, ...args) {
    const answered = started();
    // Answered once its headers are in, like the driver's count: a slow body holds nothing.
    const check = () => {
      if (this.readyState >= XMLHttpRequest.HEADERS_RECEIVED) answered();
    };
    this.addEventListener('readystatechange', check);
    this.addEventListener('loadend', answered);
    try {
      return send.apply(this, args);
    } catch (e) {
      answered();
      throw e;
    }
  };
}

/**
 * A timer this short, set by what the action ran, is its deferred effect (a form handler that
 * navigates 150 ms later, a debounced search): settling waits for it. A longer one is a toast's
 * or a poll's, and is not waited for.
 */
const DEFERRED_TIMER_MS = 500;
/** Timers set since the mark and not yet run or cleared, by id. */
const deferred = new Set<number>();
/** Animation frames requested since the mark and not yet run or cancelled, by id. */
const frames = new Set<number>();
/**
 * The mark the running callback was set under: a timer a poll that began before the mark sets is
 * the poll's, not the action's. Undefined outside timer, interval and frame callbacks.
 */
let timerEpoch: number | undefined;
/**
 * A callback's `await`s resume as microtasks of its own task, before any other task runs: the
 * epoch stays set through this many hops of them (an async poll loop's `await sleep()` takes a few).
 */
const CARRY_HOPS = 16;

function releaseEpoch(outer: number | undefined, hops: number): void {
  ownQueueMicrotask(() => {
    if (hops > 0) releaseEpoch(outer, hops - 1);
    else timerEpoch = outer;
  });
}

/** Wraps a page callback to run under the mark it was set under. */
function underEpoch(handler: (...a: unknown[]) => void, setUnder: number) {
  return (...args: unknown[]) => {
    const outer = timerEpoch;
    timerEpoch = setUnder;
    try {
      handler.apply(window, args);
    } finally {
      releaseEpoch(outer, CARRY_HOPS);
    }
  };
}

/**
 * Counts the short timers the page sets from the action on; ours use timers.ts. Intervals and
 * animation frames are never the action's deferred effect, but what they set is theirs: they carry
 * the mark they were set under, like timers do.
 */
function watchTimers(): void {
  // The DOM's timers, typed here: Node's types, also in this build, give setTimeout another shape.
  type SetTimer = (handler: unknown, ms?: number, ...args: unknown[]) => number;
  const timers = window as unknown as {
    setTimeout: SetTimer;
    setInterval: SetTimer;
    clearTimeout: (id?: number) => void;
    requestAnimationFrame: (run: (t: number) => void) => number;
    cancelAnimationFrame: (id: number) => void;
  };
  const pageSetTimeout = timers.setTimeout;
  const pageSetInterval = timers.setInterval;
  const pageClearTimeout = timers.clearTimeout;
  const pageRequestAnimationFrame = timers.requestAnimationFrame;
  const pageCancelAnimationFrame = timers.cancelAnimationFrame;
  timers.setTimeout = function setTimeout(handler, ms, ...args) {
    if (typeof handler !== 'function') return pageSetTimeout.call(window, handler, ms, ...args);
    const setUnder = timerEpoch ?? epoch;
    const run = underEpoch(handler as (...a: unknown[]) => void, setUnder);
    const id = pageSetTimeout.call(
      window,
      (...callArgs: unknown[]) => {
        deferred.delete(id);
        run(...callArgs);
      },
      ms,
      ...args,
    );
    if (setUnder === epoch && (Number(ms) || 0) <= DEFERRED_TIMER_MS) deferred.add(id);
    return id;
  };
  timers.setInterval = function setInterval(handler, ms, ...args) {
    if (typeof handler !== 'function') return pageSetInterval.call(window, handler, ms, ...args);
    const run = underEpoch(handler as (...a: unknown[]) => void, timerEpoch ?? epoch);
    return pageSetInterval.call(window, run, ms, ...args);
  };
  timers.requestAnimationFrame = function requestAnimationFrame(run) {
    if (typeof run !== 'function') return pageRequestAnimationFrame.call(window, run);
    const setUnder = timerEpoch ?? epoch;
    const inFrame = underEpoch(run as (...a: unknown[]) => void, setUnder);
    const id = pageRequestAnimationFrame.call(window, (t: number) => {
      frames.delete(id);
      inFrame(t);
    });
    if (setUnder === epoch) frames.add(id);
    return id;
  };
  timers.cancelAnimationFrame = function cancelAnimationFrame(id) {
    frames.delete(id);
    pageCancelAnimationFrame.call(window, id);
  };
  timers.clearTimeout = function clearTimeout(id) {
    if (id !== undefined) deferred.delete(id);
    pageClearTimeout.call(window, id);
  };
}

/**
 * Watching starts as the script installs: at document start where the driver preloads it
 * (page-script.ts). What the page starts as it loads (requests, short timers, navigations) is
 * counted as the load's own until the first action's mark; its DOM from the end of parsing, so
 * a settle after a navigation reads a page that rendered nothing since its DOMContentLoaded as at
 * rest (settle-table.ts 'document_at_rest') rather than waiting out a quiet window.
 */
export function watchActivity(): void {
  watchRequests();
  watchTimers();
  watchInput();
  watchNavigations();
  if (document.readyState === 'loading')
    document.addEventListener('DOMContentLoaded', watchDom, { once: true, capture: true });
  else watchDom();
}

/** The parts of the Navigation API read here (TypeScript's DOM lib does not declare it yet). */
interface NavigateEventLike extends Event {
  /** Absent in a browser without the property: such a navigation counts, as it always did. */
  destination?: { url?: string; sameDocument?: boolean };
}
interface NavigationLike extends EventTarget {
  currentEntry?: { url?: string | null } | null;
}
/** The Navigation API names every navigation the document starts, the moment it starts it. */
const navigationApi = (globalThis as { navigation?: NavigationLike }).navigation;
/**
 * Navigations since the mark that may replace this document. The driver hears those late (a
 * request first), so the settle holds for them; a same-document one (pushState, a fragment, one
 * a router intercepted) is no new document, and one the page cancelled is none at all.
 */
let leaving: NavigateEventLike[] = [];

function onNavigate(e: NavigateEventLike): void {
  if (e.destination?.sameDocument === true) {
    // A route change: the render that follows gets its quiet window from here, like a mutation.
    lastMutation = performance.now();
    return;
  }
  leaving.push(e);
}

/** An intercepted navigation commits in this document: it leaves nothing. */
function onEntryChange(): void {
  const url = navigationApi?.currentEntry?.url;
  if (!url) return;
  const before = leaving.length;
  leaving = leaving.filter((e) => e.destination?.url !== url);
  if (leaving.length < before) lastMutation = performance.now();
}
/**
 * Form submissions since the mark. A submission navigates in a task of its own, so its `navigate`
 * event can come after a first look; the `submit` event is there as the click returns.
 */
let submits: SubmitEvent[] = [];

/** A submission the page let through that replaces this document (not a dialog, not a new tab). */
function navigatesHere(e: SubmitEvent): boolean {
  if (e.defaultPrevented || !(e.target instanceof HTMLFormElement)) return false;
  const submitter = e.submitter as HTMLButtonElement | HTMLInputElement | null;
  const method = submitter?.getAttribute('formmethod') ?? e.target.getAttribute('method') ?? '';
  const target = submitter?.getAttribute('formtarget') ?? e.target.getAttribute('target') ?? '';
  return method.toLowerCase() !== 'dialog' && ['', '_self'].includes(target.toLowerCase());
}

/**
 * The action's input as the page saw it since the mark: `seen` once a key, a press or a typed
 * character reached it; `scrolls` once one may scroll the page (the wheel, a scroll key outside a
 * field), which the browser does on a later frame, not in the event's handlers.
 */
let input = { seen: false, scrolls: false };

/** Keys that scroll the page when pressed outside a field. */
const SCROLL_KEYS = new Set([
  ' ',
  'PageDown',
  'PageUp',
  'Home',
  'End',
  'ArrowDown',
  'ArrowUp',
  'ArrowLeft',
  'ArrowRight',
]);

function inField(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement ||
    (target instanceof HTMLElement && target.isContentEditable)
  );
}

function watchInput(): void {
  const seen = (e: Event) => {
    if (e.isTrusted) input.seen = true;
  };
  for (const type of ['keydown', 'pointerdown', 'pointerup', 'click', 'input'])
    window.addEventListener(type, seen, { capture: true, passive: true });
  window.addEventListener(
    'keydown',
    (e) => {
      if (SCROLL_KEYS.has(e.key) && !inField(e.target)) input.scrolls = true;
    },
    { capture: true, passive: true },
  );
  window.addEventListener('wheel', () => (input.scrolls = true), { capture: true, passive: true });
}

let watchingNavigations = false;

function watchNavigations(): void {
  if (watchingNavigations) return;
  watchingNavigations = true;
  navigationApi?.addEventListener('navigate', (e) => onNavigate(e));
  navigationApi?.addEventListener('currententrychange', onEntryChange);
  window.addEventListener('submit', (e) => submits.push(e as SubmitEvent), true);
}

/** Counts DOM mutations from now; the parser's own are the document arriving, not a render. */
function watchDom(): void {
  if (observer) return;
  lastMutation = performance.now();
  observer = new MutationObserver((records) => {
    mutations += records.length;
    lastMutation = performance.now();
  });
  observer.observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  });
}

/** Starts (or restarts) counting DOM mutations and requests, to tell when a page has gone quiet. */
export function mark(): void {
  mutations = 0;
  lastMutation = performance.now();
  epoch++;
  requestsSinceMark = 0;
  leaving = [];
  submits = [];
  deferred.clear();
  frames.clear();
  input = { seen: false, scrolls: false };
  watchNavigations();
  watchDom();
}

export function activity(): ActivityMark {
  // Read before its end of parsing (a body still arriving): the DOM counts from here.
  watchDom();
  let requestsOpen = 0;
  for (const started of unanswered.values()) if (started === epoch) requestsOpen++;
  return {
    mutations,
    sinceLastMutationMs: performance.now() - lastMutation,
    requests: requestsSinceMark,
    requestsOpen,
    timersPending: deferred.size,
    framesPending: frames.size,
    // A submission counts until its own navigate event does: the larger of the two. A cancel is
    // read now, once every listener of the event has run.
    navigations: navigationApi
      ? Math.max(
          leaving.filter((e) => !e.defaultPrevented).length,
          submits.filter(navigatesHere).length,
        )
      : undefined,
    documentId: id,
    parsing: document.readyState === 'loading',
    loadPending: document.readyState !== 'complete',
  };
}

/** A page that paints no frames (a hidden tab) still answers after this long. */
const FRAME_WAIT_LIMIT_MS = 30;

/**
 * Activity once what an action's handler deferred has run: its next animation frame, then a
 * task after it (a zero-delay timer, a scheduler's message). A handler that started nothing then
 * reads as quiet at once, where a fixed grace would cost every action its whole length; one that
 * rendered at once and changed nothing through that frame reads so too (`quietThroughFrame`).
 * An action whose input the page saw and that changed, started and deferred nothing at all is read
 * without the frame: every way its handlers could defer an effect (a frame, a short timer, a
 * request, a navigation) is counted. Input that may scroll gets its frame: the browser scrolls then.
 * So does a new document (not `documentBefore`) that has done nothing since its DOMContentLoaded:
 * it counted its load from document start.
 */
export async function activityAfterFrame(documentBefore?: string | null): Promise<ActivityMark> {
  watchDom();
  const now = activity();
  const arrived = documentBefore !== undefined && documentBefore !== id;
  if ((arrived || (input.seen && !input.scrolls)) && startedNothing(now))
    return { ...now, quietThroughFrame: true };
  const before = mutations;
  await new Promise<void>((resolve) => {
    ownRequestAnimationFrame(() => ownSetTimeout(resolve, 0));
    ownSetTimeout(resolve, FRAME_WAIT_LIMIT_MS);
  });
  return { ...activity(), quietThroughFrame: mutations === before };
}

/** Without the Navigation API a navigation cannot be counted: such a page always gets its frame. */
function startedNothing(a: ActivityMark): boolean {
  return (
    a.mutations === 0 &&
    a.requests === 0 &&
    a.navigations === 0 &&
    a.timersPending === 0 &&
    a.framesPending === 0
  );
}

/** Mutations since the last mark and this document's id, then a new mark: one call per action. */
export function checkpoint(): { documentId: string; mutations: number } {
  const { mutations } = activity();
  mark();
  return { documentId: id, mutations };
}
