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

/** How long a page seen in script gets to finish it by itself before it is stopped. */
const FREED_MS = 100;

/**
 * What a page that ran past an op's time is doing: it answers (a slow promise, nothing stuck), it
 * runs a script that holds it (stop it), or it is laying out or painting a large document, which
 * no stop can shorten and stopping would only arm against the page's next script. 'unanswered':
 * the browser itself did not answer either, so nothing is known of the page (a starved machine).
 */
export type PageState = 'answering' | 'script' | 'rendering' | 'unanswered';

export interface PageQuestions {
  /** A trivial script in the page: it answers unless the page's thread is held. */
  probe: () => Promise<unknown>;
  /** A command the browser answers without the page: the link's own round trip. */
  ping: () => Promise<unknown>;
  /** The tab's oldest page call of our own still in flight, unless the page's dialogs hold it. */
  busy?: OwnCall;
  /**
   * A command the renderer answers between two steps of a running script but not during layout
   * (Chromium: `Performance.getMetrics`); without it a page that does not answer is in script.
   */
  inScript?: () => Promise<unknown>;
  /**
   * When the answer is due (epoch ms). A slow link widens the probe's window, but never past the
   * point where the render question still fits: a page asked too late is taken for stuck.
   */
  due?: number;
}

/**
 * Whether the page answers, and if not, why. A page counts as held only when `ping` comes back
 * and the page still has not answered `probe` within LINK_FACTOR times that round trip (never less
 * than PROBE_WAIT_MS): a slow link is not a stuck page, and a browser that does not answer `ping`
 * in the window says nothing of its page. A held page that answers `inScript` within
 * the same window (bounded by `due`) is running script; one that does not is rendering.
 */
export async function pageState(questions: PageQuestions): Promise<PageState> {
  const { probe, ping, busy, inScript, due = Infinity } = questions;
  if (busy && Date.now() - busy.startedAt < OWN_CALL_MS)
    await within(busy.settled, busy.startedAt + OWN_CALL_MS - Date.now(), undefined);
  const started = Date.now();
  const answered = probe().then(
    () => true,
    () => true, // a page that fails the call (replaced, closed) is not stuck in script
  );
  // The window ends by then however slow the link, so the render question still fits before `due`.
  const latest = Math.max(due - (inScript ? PROBE_WAIT_MS + FREED_MS : 0), started + PROBE_WAIT_MS);
  const pingMs = Math.min(PROBE_LIMIT_MS, latest - started);
  const linkMs = await within(
    ping().then(
      () => Date.now() - started,
      () => Date.now() - started,
    ),
    pingMs,
    undefined,
  );
  if (linkMs === undefined) return (await within(answered, 0, false)) ? 'answering' : 'unanswered';
  const waitMs = Math.min(Math.max(PROBE_WAIT_MS, linkMs * LINK_FACTOR), PROBE_LIMIT_MS);
  const probeEnds = Math.min(started + waitMs, latest);
  if (await within(answered, probeEnds - Date.now(), false)) return 'answering';
  if (!inScript) return 'script';
  // Asked only now: on a page at rest it would cost a round trip on every late op. A starved
  // machine slows this answer as it slows the link's: it gets the probe's window, up to `due`.
  const renderMs = Math.min(waitMs, Math.max(PROBE_WAIT_MS, due - Date.now() - FREED_MS));
  const how = await within(
    Promise.race([
      answered.then(() => 'answering' as const),
      inScript().then(
        () => 'script' as const,
        () => 'answering' as const, // a page that fails the call is gone, not stuck
      ),
    ]),
    renderMs,
    'rendering' as const,
  );
  if (how !== 'script') return how;
  // A stop sent to a page whose script just ended would wait for its next script: let it end first.
  return (await within(answered, FREED_MS, false)) ? 'answering' : 'script';
}

/** A tab found laying out at an op's deadline, and since when: what the layout limit reads. */
export interface LayoutStreak {
  tab: string;
  since: number;
}

/**
 * A page found laying out at an op's deadline is waited for, as nothing stops a layout, but not
 * for ever: found so at every deadline for `limitMs` or more (a page that lays itself out again
 * without end, or a starved script taken for a layout), it is stuck and its tab is replaced. The
 * streak starts at the first such deadline on a tab; an op answered in time ends it. 0: never.
 */
export function layoutVerdict(
  streak: LayoutStreak | undefined,
  tab: string,
  now: number,
  limitMs: number,
): { streak: LayoutStreak; stuck: boolean } {
  const kept = streak?.tab === tab ? streak : { tab, since: now };
  return { streak: kept, stuck: limitMs > 0 && now - kept.since >= limitMs };
}

/**
 * A page whose questions (the probe, the browser's own round trip, the stop) all went unanswered
 * within the interrupt's wait. On a machine that is not saturated it is stuck and its tab is
 * replaced. On a saturated one that says nothing of the page (a starved load reads the same, and
 * replacing it lost the page: 16 sessions' first goto at load 14 reopened blank), so it is
 * waited for once: stuck only when the same tab goes unanswered again at a later deadline with no
 * op answered in time between. `last` is the tab the previous deadline left unanswered.
 */
export function unansweredVerdict(
  last: string | undefined,
  tab: string,
  saturated: boolean,
): 'stuck' | 'wait' {
  return !saturated || last === tab ? 'stuck' : 'wait';
}
