import { frameLimits } from '../frames.js';
import { STORM_WINDOW_MS } from '../../page/protocol.js';
import { parseArgs } from '../../core/args.js';
import type { Condition } from '../../core/condition.js';
import { OpError, toOpError } from '../../core/errors.js';
import { scrub } from '../../core/redact.js';
import { within } from '../../core/within.js';
import { compactResult, timingSince, type ActionResult, type Evidence } from '../../core/result.js';
import { AwaitingServerError, type BrowserTab } from '../../drivers/driver.js';
import type { FileStore } from '../../files/file-store.js';
import { auditStep } from '../../flows/runner.js';
import { verdictOf } from '../../flows/verdict.js';
import { captureScreen, type Screen } from '../../logs/frames.js';
import type { OpEvents } from '../../sessions/op-events.js';
import type { Session } from '../../sessions/session.js';
import { policyError } from '../../sessions/session-manager.js';
import type { CommonArgs, OpContext, OpDefinition } from '../define.js';
import type { ElementContext } from '../element.js';
import { downloadNote } from '../files.js';
import type { OpRequest, OpRuntime } from '../run-op.js';
import { baseline, checkNavigation, settle, untilReadable } from '../settle.js';
import type { Baseline } from '../settle.js';
import {
  changesAfter,
  elementDiff,
  readShells,
  trackBaseline,
  type Changes,
  type Shells,
} from '../track.js';
import { failureMessage, verify } from '../verify.js';
import { dismissDialog } from '../dialog-in-the-way.js';
import { withinBudget } from '../deadline.js';
import { PhaseTimes, ResultBuilder } from './result-builder.js';

type Args = CommonArgs & Record<string, unknown>;
type TrackBefore = Awaited<ReturnType<typeof trackBaseline>>;

/** One op as it goes through the phases: what each phase leaves for the next. */
export interface OpRun {
  rt: OpRuntime;
  request: OpRequest;
  session: Session;
  /** Undefined for an unknown op name: prepare refuses it, finish still answers. */
  op?: OpDefinition;
  started: number;
  /** The session's browser-opening time before this op: opening one does not count against it. */
  openingBefore: number;
  actionId: string;
  timeoutMs: number;
  result: ResultBuilder;
  phases: PhaseTimes;
  /** Tabs opened and navigations refused while this op runs. */
  events: OpEvents;
  /** What this op's element lookups share: the reading memory, the probed box, page-call times. */
  elements: ElementContext;
  /** Runs a nested op (a batch step) through the whole pipeline. */
  nested: (request: OpRequest) => Promise<ActionResult>;
  args?: Args;
  ctx?: OpContext;
  /** Input reached the page: from then on the op is never retried. */
  delivered: boolean;
  /** When an acting op's action returned (epoch ms): a title read before it may be stale. */
  actedAt?: number;
  /** The tab the op works on: the one it started on, then the one it left active. */
  tab?: BrowserTab;
  /** The tab the op started on; settling is measured on it. */
  actedOn?: BrowserTab;
  wantChanges: boolean;
  before?: Baseline;
  trackBefore?: TrackBefore;
  shellsBefore?: Shells;
  downloadsBefore: number;
  /** Tabs opened before the action (while the browser was brought back) are not the action's. */
  tabsOpenedBefore: number;
  /** The action's settle ran: what the page does later (during verify) can be settled after it. */
  settled: boolean;
  /** Where the page stood when verify started waiting; set only when it had to wait. */
  waitedFrom?: Baseline;
  /** A verify that could not run to its end (a bad condition, a dead page), thrown after changes. */
  verifyFailure?: unknown;
}

export function openRun(
  rt: OpRuntime,
  request: OpRequest,
  nested: (request: OpRequest) => Promise<ActionResult>,
): OpRun {
  const { session } = request;
  return {
    rt,
    request,
    session,
    op: rt.ops.get(request.op),
    started: Date.now(),
    openingBefore: rt.sessions.openingSpent(session),
    actionId: session.nextActionId(),
    timeoutMs: session.settings.timeoutMs,
    result: new ResultBuilder(),
    phases: new PhaseTimes(),
    events: session.events.watch(),
    elements: { reading: session.reading, frames: frameLimits(rt.sessions.config) },
    nested,
    delivered: false,
    wantChanges: false,
    downloadsBefore: 0,
    tabsOpenedBefore: 0,
    settled: false,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a step of an op answered long ago meets: the session has gone on without it. */
const released = (op: string) =>
  new OpError(
    'timeout',
    `${op} was answered at its deadline and the session went on to the next op; this late part of it does not reach the browser.`,
  );
/** When the op must be done; a browser opened for it moves it on, as in ops/deadline.ts. */
const deadlineOf = (run: OpRun) =>
  run.started +
  run.timeoutMs +
  run.rt.sessions.openingMs(run.session, run.started, run.openingBefore);
/** What is left of the op's time: every wait after the action fits in it (DESIGN §3.2). */
const leftOf = (run: OpRun) => Math.max(deadlineOf(run) - Date.now(), 0);
/** A settle within what is left of the op's time; with none left it still takes one look. */
const settleMs = (run: OpRun) => Math.min(run.rt.sessions.config.settleTimeoutMs, leftOf(run));
/** A tab a page call can be made on: open, and no dialog holding its page. */
const readable = (tab: BrowserTab | undefined): tab is BrowserTab =>
  !!tab && !tab.isClosed() && !tab.pendingDialog();

/** Parses the arguments, opens the tab, clears a dialog in the way and waits for a page that answers. */
export async function prepare(run: OpRun): Promise<void> {
  const { rt, request, session, op } = run;
  if (!op) {
    throw new OpError(
      'invalid_argument',
      `Unknown op "${request.op}". Ops: ${[...rt.ops.keys()].join(', ')}.`,
    );
  }
  rt.secrets.refuseMisplaced({ session, op: op.name, ...auditStep(request.run) }, request.args, op);
  const args = parseArgs(op.name, op.args, request.args) as Args;
  run.args = args;
  if (request.progress) {
    request.progress.result = run.result;
    request.progress.expect = args.expect;
  }
  run.timeoutMs = withinBudget(args.timeout ?? run.timeoutMs, request.endsBy, run.started);
  run.ctx = contextOf(run, op);
  if (op.browser && !op.managesBrowser) {
    run.tab = await run.ctx.tab();
    if (!op.answersDialogs) await dismissDialog(run.tab, run.result.notes);
    if (op.readsPage)
      await untilReadable(
        run.tab,
        // Half the op's time at most: the read itself still has the rest.
        { deadline: deadlineOf(run), parseMs: Math.min(settleMs(run), leftOf(run) / 2) },
        run.result,
      );
  }
  run.actedOn = run.tab;
}

function contextOf(run: OpRun, op: OpDefinition): OpContext {
  const { rt, request, session } = run;
  const notes = run.result.notes;
  let step = 0;
  return {
    session,
    sessions: rt.sessions,
    config: rt.sessions.config,
    secrets: rt.secrets,
    files: rt.files,
    surface: request.surface,
    approval: request.approval ?? rt.sessions.config.approval,
    timeoutMs: run.timeoutMs,
    get deadline() {
      return deadlineOf(run);
    },
    signal: request.signal,
    notes,
    events: run.events,
    elements: run.elements,
    tab: async () => {
      if (request.progress?.released) throw released(op.name);
      const interrupted = rt.sessions.pendingInterruption(session);
      if (interrupted) throw interrupted.error;
      const restore = op.restoresLastUrl;
      const { opened } = await rt.sessions.ensureBrowser(
        session,
        { restore, signal: request.signal },
        notes,
      );
      if (opened && !notes.includes('browser_opened')) notes.push('browser_opened');
      const active = await rt.sessions.ensureTab(session, notes);
      if (!active)
        throw new OpError(
          'backend',
          'The browser has no open tab; close the session and open it again.',
        );
      return active;
    },
    delivered: (input) => {
      run.delivered = true;
      if (input === 'queued' && request.progress) request.progress.sent = true;
      // Its input is on its way: a late answer names what it went to before the handler returns.
      run.result.outcome.target ??= run.elements.actionable;
    },
    runNested: (name, nestedArgs, nested = {}) => {
      request.onProgress?.(nested.progress ?? { message: `step ${++step}: ${name}` });
      return run.nested({
        ...request,
        progress: undefined,
        op: name,
        args: nestedArgs,
        run: nested.run ?? request.run,
        signal: nested.signal ?? request.signal,
        endsBy: nested.endsBy ?? request.endsBy,
        surface: nested.surface ?? request.surface,
      });
    },
    ops: rt.ops,
    flows: rt.flows,
    run: request.run,
  };
}

/** What the page was before the action: the settle baseline, the text track, element shells, downloads. */
export async function observeBefore(run: OpRun): Promise<void> {
  const { op, tab, args, session } = run;
  if (!op || !args) return;
  run.wantChanges = op.acts && !!tab && (args.diff ?? run.rt.sessions.config.diff);
  run.before = op.acts && tab ? await baseline(tab) : undefined;
  if (run.wantChanges && tab && run.before)
    run.trackBefore = await trackBaseline(
      tab,
      session.reading,
      run.before,
      deadlineOf(run),
      run.elements.frames,
    );
  if (run.wantChanges && args.element_diff && tab) run.shellsBefore = await readShells(tab);
  run.tabsOpenedBefore = run.events.openedTabs.length;
  run.downloadsBefore = session.browser?.downloads().length ?? 0;
}

/** Runs the handler; a recoverable failure before input reached the page is tried again, backing off. */
export async function act(run: OpRun): Promise<void> {
  const { op, ctx, args, request, session } = run;
  if (!op || !ctx || !args) return;
  let delay = 50;
  for (;;) {
    try {
      run.result.ran(await op.run(ctx, args));
      run.actedAt = Date.now();
      // Its action returned: the input reached the page, whatever settling and expect then take.
      if (op.acts && request.progress) request.progress.delivered = true;
      break;
    } catch (e) {
      // A browser ended or stopped under the op (close, interrupt, crash) ends it: no retry reopens one.
      await run.rt.sessions.askWhyLost(session);
      const err = run.rt.sessions.failure(session) ?? toOpError(e);
      if (
        run.delivered ||
        !err.recoverable ||
        request.progress?.released ||
        Date.now() + delay >= deadlineOf(run) ||
        request.signal?.aborted
      )
        throw err;
      // A dialog the page raised meanwhile is in the way of a read, as at the op's start.
      if (!op.answersDialogs) await dismissDialog(session.activeTab(), run.result.notes);
      await sleep(delay);
      delay = Math.min(delay * 2, 250);
    }
  }
  run.tab = session.activeTab() ?? run.tab;
}

/** Waits for what the action started, on the tab it acted on; a failed load is an error. */
export async function settleAction(run: OpRun): Promise<void> {
  const { tab, actedOn, before } = run;
  // Settling is measured on the tab acted on; an op that switched tabs (new_tab) already waited.
  if (!before || !actedOn || tab !== actedOn) return;
  run.result.note(...(await settle(tab, before, settleMs(run))));
  checkNavigation(tab, before);
  run.settled = true;
}

/** Tabs the page opened, downloads (reported as they ended) and dialogs, as notes and evidence. */
export async function collectSideEffects(run: OpRun): Promise<void> {
  const { session, result, tab } = run;
  for (const id of run.events.openedTabs.slice(run.tabsOpenedBefore)) {
    const opened = session.browser?.tabs().find((t) => t.id === id);
    result.note(`new_tab ${id}${opened ? ` ${opened.url()}` : ''} — tab_select to use it`);
  }
  const browser = session.browser;
  const downloads = () => browser?.downloads().slice(run.downloadsBefore) ?? [];
  if (browser && downloads().some((d) => d.state === 'saving')) {
    // A download is reported as it ended, not as it began: saved or failed, within the op's time.
    await within(browser.downloadsSettled(), leftOf(run), undefined);
  }
  for (const download of downloads()) {
    result.note(downloadNote(download));
    // Only a file that is there gets a link.
    if (download.state === 'saved')
      result.evidence.push(run.rt.files.evidence(session.name, 'download', download.name));
  }
  dialogNotes(tab, result.notes);
  const dialog = tab?.pendingDialog();
  if (dialog)
    result.note(
      `dialog_open (${dialog.type}: ${dialog.message.slice(0, 120)}) — answer it with the dialog op`,
    );
}

/**
 * Checks `expect`. A first look that holds costs nothing more; when it has to wait, where the page
 * stood is kept, so what the page did meanwhile is settled and read after (issue 17: one moment).
 */
export async function verifyExpect(run: OpRun): Promise<void> {
  const { tab, args, rt, request, result } = run;
  const conditions: Condition[] | undefined = args?.expect;
  if (!conditions || !tab) return;
  const options = {
    evaluate: rt.sessions.config.evaluate,
    signal: request.signal,
    elements: run.elements,
    clearDialog: run.op?.answersDialogs ? undefined : () => dismissDialog(tab, result.notes),
  };
  // The op's time bounds it: an action that used it all gets one look.
  const until = deadlineOf(run);
  try {
    let checks = await verify(tab, conditions, 0, options);
    if (!checks.every((c) => c.passed) && Date.now() < until) {
      if (run.settled && readable(tab)) run.waitedFrom = await baseline(tab);
      checks = await verify(tab, conditions, until - Date.now(), options);
    }
    result.checks = checks;
  } catch (e) {
    run.verifyFailure = e;
  }
}

/** After a verify that waited: what the page did meanwhile (a navigation, a render) is let settle. */
export async function settleAfterWait(run: OpRun): Promise<void> {
  const { tab, waitedFrom, result } = run;
  if (!waitedFrom || tab !== run.actedOn || !readable(tab)) return;
  // A page that never went quiet said so already; waiting for it again would only add the time.
  if (result.notes.some((n) => n.startsWith('still_loading'))) return;
  result.noteOnce(...(await settle(tab, waitedFrom, settleMs(run))));
}

/** data.changes, read once the last wait is over: the same moment as page and notes. */
export async function readChanges(run: OpRun): Promise<void> {
  const { tab, op, args, session, rt, result } = run;
  if (!run.wantChanges || !op || !args || !readable(tab)) return;
  const read = (): Promise<Changes | typeof LATE> =>
    changesAfter(tab, run.trackBefore, session.reading, {
      includeRemoved: args.include_removed ?? false,
      maxChars: rt.sessions.config.changesMaxChars,
      withholdNothing: op.rereadsWholePage,
      deadline: deadlineOf(run),
      frames: run.elements.frames,
    }).catch((e: unknown) => {
      // A page waiting for its server answers nothing: the driver says so at once.
      if (e instanceof AwaitingServerError) return LATE;
      throw e;
    });
  let changes: Changes | typeof LATE | typeof LANDING = await read().catch((e) => {
    if (e instanceof OpError && e.kind === 'stale_element') return LANDING;
    throw e;
  });
  // A navigation still landing replaced the document under the read, or one that started after
  // settling's last look waits for its server; the action is done, so it is not failed for that:
  // settle on the new document and read once more. One settling gave up on is not.
  if (
    changes === LANDING ||
    (changes === LATE && !result.notes.some((n) => n.startsWith('still_loading')))
  ) {
    const again = await baseline(tab);
    result.noteOnce(...(await settle(tab, again, settleMs(run))));
    changes = await read();
  }
  if (changes === LATE) changes = { note: STILL_LOADING };
  else if (run.shellsBefore && !result.notes.includes('navigated')) {
    const elements = elementDiff(run.shellsBefore, await readShells(tab));
    if (elements) {
      changes.element_diff = elements;
      delete changes.no_change;
    }
  }
  result.changes(changes);
}

/** The verdict of `expect`, given once changes are read: a failed one fails the op. */
export function judge(run: OpRun): void {
  const { result, op, tab } = run;
  if (run.verifyFailure !== undefined) throw run.verifyFailure;
  const checks = result.checks;
  if (checks && tab && op && !checks.every((c) => c.passed)) {
    throw new OpError(
      'verification_failed',
      `${op.name} was done, but the expected outcome did not follow. ${failureMessage(checks, tab.url())} Do not repeat the action blindly: read the page first.`,
    );
  }
  result.adoptOutcome();
}

/** The op failed: the browser's death said once, dialogs it dismissed noted. */
export async function fail(run: OpRun, e: unknown): Promise<void> {
  const { rt, session, result } = run;
  // The browser died or the tab crashed under the op: say so once; the next op brings it back.
  await rt.sessions.askWhyLost(session);
  result.failed(rt.sessions.failure(session) ?? toOpError(e));
  dialogNotes(session.activeTab() ?? run.tab, result.notes);
}

/** The page, evidence and result; the session persisted, the result scrubbed and logged. */
export async function finish(run: OpRun): Promise<ActionResult> {
  const began = performance.now();
  const { rt, request, session, op, result, started, actionId } = run;
  const { refusedNavigations } = run.events.take();
  const refused = refusedNavigations[0];
  if (refused) result.error = policyError(refused.url, refused.reason);
  const tab = session.activeTab() ?? run.tab;
  const screen = await failureEvidence(run, tab);
  const page =
    tab && !tab.isClosed()
      ? { url: tab.url(), title: await titleOf(run, tab), tab: tab.id }
      : undefined;
  if (page && !tab?.showsErrorPage()) session.rememberUrl(page.url);
  const built = result.build({
    op: request.op,
    action_id: actionId,
    session_id: session.name,
    page,
    timing: timingSince(
      started,
      run.timeoutMs,
      rt.sessions.openingMs(session, started, run.openingBefore),
    ),
  });
  session.ops++;
  session.lastActiveAt = Date.now();
  await rt.sessions.persist(session);
  // Every result leaves through here: URL credentials and the session's bound values removed.
  const final = scrub(compactResult(built), session.bound);
  if (op?.browser) verdictOf(session).record(final, request.run, op);
  run.phases.add('finish', performance.now() - began);
  rt.logs?.record({
    result: final,
    args: scrub(request.args, session.bound),
    run: request.run,
    acts: !!op?.acts,
    tab,
    screen,
    box: run.elements.probed,
    spans: run.elements.spans,
    phases: run.phases.record,
  });
  return final;
}

/**
 * The title as the op leaves the page: the one a page call read on its way back after the action
 * (the settle's look, the changes' walk), on the document shown now; else asked for.
 */
function titleOf(run: OpRun, tab: BrowserTab): Promise<string> {
  const since = run.op?.acts ? run.actedAt : run.started;
  const read = since === undefined ? undefined : tab.titleReadSince(since);
  return read === undefined ? tab.title() : Promise.resolve(read);
}

/** A failed acting op attaches the screen; one capture serves the evidence and the log's frame. */
async function failureEvidence(
  run: OpRun,
  tab: BrowserTab | undefined,
): Promise<Screen | undefined> {
  const { error } = run.result;
  if (!error || !run.op?.acts || !tab || error.kind === 'invalid_argument') return undefined;
  const screen = await captureScreen(tab);
  if (!screen) return undefined;
  const shot = await failureScreenshot(run.rt.files, run.session, screen, run.actionId);
  if (shot) run.result.evidence.push(shot);
  return screen;
}

/** Dialogs the tab dismissed by itself during the op (in a navigation's way, a storm). */
function dialogNotes(tab: BrowserTab | undefined, notes: string[]): void {
  const d = tab?.takeDismissedDialogs();
  if (!d) return;
  const what = `${d.last.type}: ${d.last.message.slice(0, 80)}`;
  notes.push(
    d.storm
      ? `dialog_storm (${what}): the page opens dialogs faster than they can be answered; ${d.count} dismissed as they opened, and further ones will be until it pauses for ${STORM_WINDOW_MS / 1000} s — goto another page or tab_close this tab to stop them`
      : `dialog_dismissed (${what})${d.count > 1 ? ` and ${d.count - 1} more` : ''}: the page opened it while SwiftBrowse read or left the page`,
  );
}

const LATE = Symbol('late');
const LANDING = Symbol('landing');
const STILL_LOADING =
  'not read: a navigation is waiting for its server, and the page answers nothing until then. Read it with snapshot once it has loaded.';

async function failureScreenshot(
  files: FileStore,
  session: Session,
  screen: Screen,
  actionId: string,
): Promise<Evidence | undefined> {
  try {
    const name = `failure-${actionId}.jpg`;
    await files.save(session.name, name, screen.jpeg);
    return files.evidence(session.name, 'screenshot', name);
  } catch {
    return undefined; // evidence is best effort: the error itself must still be returned
  }
}
