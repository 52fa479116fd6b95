import { parseArgs } from '../core/args.js';
import type { Condition } from '../core/condition.js';
import { OpError, toOpError } from '../core/errors.js';
import { scrub } from '../core/redact.js';
import { within } from '../core/within.js';
import { compactResult, type ActionResult, type Check, type Evidence } from '../core/result.js';
import type { BrowserTab } from '../drivers/driver.js';
import type { FileStore } from '../files/file-store.js';
import type { Secrets } from '../secrets/secrets.js';
import type { FlowLibrary } from '../flows/library.js';
import { auditStep, type RunRef } from '../flows/runner.js';
import { verdictOf } from '../flows/verdict.js';
import { captureScreen, type Screen } from '../logs/frames.js';
import type { SessionLog } from '../logs/session-log.js';
import type { Session } from '../sessions/session.js';
import { policyError, type SessionManager } from '../sessions/session-manager.js';
import type { CommonArgs, OpContext, OpDefinition, OpOutcome, Surface } from './define.js';
import { bindReading, probedBox } from './element.js';
import { downloadNote } from './files.js';
import { baseline, checkNavigation, loadingSince, settle, untilPageAnswers } from './settle.js';
import { changesAfter, elementDiff, readShells, trackBaseline, type Changes } from './track.js';
import { failureMessage, verify } from './verify.js';

export interface OpRequest {
  op: string;
  args: unknown;
  session: Session;
  surface: Surface;
  /** Approval policy for this call's surface (DESIGN §3.6). */
  approval?: boolean;
  signal?: AbortSignal;
  /** Told when a batch starts each step, so a surface can report progress (MCP). */
  onProgress?: (message: string) => void;
  /** The flow run and step this op is part of (DESIGN §8), for the session log and the report. */
  run?: RunRef;
}

export interface OpRuntime {
  sessions: SessionManager;
  ops: ReadonlyMap<string, OpDefinition>;
  secrets: Secrets;
  files: FileStore;
  flows: FlowLibrary;
  /** The per-session log (DESIGN §12); absent when SESSION_LOG is off. */
  logs?: SessionLog;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs one op on its session, one at a time; every surface calls this. */
export function runOp(rt: OpRuntime, request: OpRequest): Promise<ActionResult> {
  const op = rt.ops.get(request.op);
  // status never waits behind other ops (DESIGN §6).
  if (op && !op.browser) return execute(rt, request);
  return request.session.exclusive(() =>
    request.signal?.aborted ? notStarted(rt, request) : execute(rt, request),
  );
}

/**
 * A caller that went away while its op waited in the session's queue (HTTP client disconnected,
 * MCP request cancelled) gets nothing run (DESIGN §3.2): it may resend, and a resent click must
 * not be a second click. The session log keeps the answer nobody received.
 */
async function notStarted(rt: OpRuntime, request: OpRequest): Promise<ActionResult> {
  const { session } = request;
  const now = Date.now();
  const result: ActionResult = {
    ok: false,
    op: request.op,
    action_id: session.nextActionId(),
    session_id: session.name,
    verification: { status: 'not_checked' },
    error: new OpError(
      'timeout',
      `Not started: the caller went away (the HTTP client disconnected or the MCP request was cancelled) while ${request.op} waited behind this session's earlier ops, so nothing reached the page. Send it again if it is still wanted.`,
    ).toInfo(),
    timing: { started_at_ms: now, duration_ms: 0, timeout_ms: session.settings.timeoutMs },
  };
  await rt.sessions.persist(session);
  const final = scrub(result, session.bound);
  rt.logs?.record({
    result: final,
    args: scrub(request.args, session.bound),
    run: request.run,
    acts: false,
  });
  return final;
}

async function execute(rt: OpRuntime, request: OpRequest): Promise<ActionResult> {
  const { session } = request;
  // The previous op's frame is taken before this op can change the page; an op that only reads
  // it (snapshot, find, status…) does not wait.
  const changer = rt.ops.get(request.op);
  if (changer?.acts || changer?.name === 'open' || changer?.name === 'close')
    await rt.logs?.captured(session.name);
  const started = Date.now();
  const actionId = session.nextActionId();
  const op = rt.ops.get(request.op);
  const notes: string[] = [];
  let timeoutMs = session.settings.timeoutMs;
  let outcome: OpOutcome = {};
  let checks: Check[] | undefined;
  let error: OpError | undefined;
  let tab: BrowserTab | undefined;
  let conditions: Condition[] | undefined;
  session.refusedNavigations.splice(0, session.refusedNavigations.length - 20);
  const refusedBefore = session.refusedNavigations.length;
  try {
    if (!op) {
      throw new OpError(
        'invalid_argument',
        `Unknown op "${request.op}". Ops: ${[...rt.ops.keys()].join(', ')}.`,
      );
    }
    rt.secrets.refuseMisplaced({ session, op: op.name, ...auditStep(request.run) }, request.args);
    const args = parseArgs(op.name, op.args, request.args) as CommonArgs & Record<string, unknown>;
    timeoutMs = args.timeout ?? timeoutMs;
    conditions = args.expect;
    let delivered = false;
    let step = 0;
    const ctx: OpContext = {
      session,
      sessions: rt.sessions,
      config: rt.sessions.config,
      secrets: rt.secrets,
      files: rt.files,
      surface: request.surface,
      approval: request.approval ?? rt.sessions.config.approval,
      timeoutMs,
      deadline: started + timeoutMs,
      signal: request.signal,
      notes,
      tab: async () => {
        // A goto loads its own URL, so a browser brought back need not load the last one first.
        const restore = op.name !== 'goto';
        const { opened } = await rt.sessions.ensureBrowser(session, { restore }, notes);
        if (opened && !notes.includes('browser_opened')) notes.push('browser_opened');
        const active = await rt.sessions.ensureTab(session, notes);
        if (!active)
          throw new OpError(
            'backend',
            'The browser has no open tab; close the session and open it again.',
          );
        return active;
      },
      delivered: () => {
        delivered = true;
      },
      runNested: (name, nestedArgs, nested = {}) => {
        request.onProgress?.(nested.progress ?? `step ${++step}: ${name}`);
        return execute(rt, {
          ...request,
          op: name,
          args: nestedArgs,
          run: nested.run ?? request.run,
          signal: nested.signal ?? request.signal,
          surface: nested.surface ?? request.surface,
        });
      },
      ops: rt.ops,
      flows: rt.flows,
      run: request.run,
    };
    if (op.browser && op.name !== 'open' && op.name !== 'close') {
      tab = await ctx.tab();
      if (op.name !== 'dialog') await dismissDialog(tab, notes);
      if (op.readsPage) await untilPageAnswers(tab, started + timeoutMs);
    }
    const actedOn = tab;
    if (tab) bindReading(tab, session.reading);
    const wantChanges = op.acts && !!tab && (args.diff ?? rt.sessions.config.diff);
    const before = op.acts && tab ? await baseline(tab) : undefined;
    const trackBefore =
      wantChanges && tab && before
        ? await trackBaseline(tab, session.reading, before, started + timeoutMs)
        : undefined;
    const shellsBefore =
      wantChanges && args.element_diff && tab ? await readShells(tab) : undefined;
    const tabsOpenedBefore = session.openedTabs.length;
    const downloadsBefore = session.browser?.downloads().length ?? 0;
    let delay = 50;
    for (;;) {
      try {
        outcome = await op.run(ctx, args);
        break;
      } catch (e) {
        const err = toOpError(e);
        if (
          delivered ||
          !err.retriable ||
          Date.now() + delay >= started + timeoutMs ||
          request.signal?.aborted
        )
          throw err;
        // A dialog the page raised meanwhile is in the way of a read, as at the op's start.
        if (op.name !== 'dialog') await dismissDialog(session.activeTab(), notes);
        await sleep(delay);
        delay = Math.min(delay * 2, 250);
      }
    }
    tab = request.session.activeTab() ?? tab;
    // Settling is measured on the tab acted on; an op that switched tabs (new_tab) already waited.
    if (before && actedOn && tab === actedOn) {
      notes.push(...(await settle(tab, before, rt.sessions.config.settleTimeoutMs)));
      checkNavigation(tab, before);
    }
    if (wantChanges && tab && !tab.isClosed() && !tab.pendingDialog()) {
      const settled = tab;
      const readChanges = () =>
        changesAfter(settled, trackBefore, session.reading, {
          includeRemoved: args.include_removed ?? false,
          maxChars: rt.sessions.config.changesMaxChars,
          withholdNothing: op.name === 'reload',
          deadline: started + timeoutMs,
        });
      // The op's own time bounds a read, with a floor for an action that used it all.
      const bounded = () =>
        within(readChanges(), Math.max(started + timeoutMs - Date.now(), 1000), LATE);
      let changes: Changes | typeof LATE;
      try {
        // A page still waiting for its server cannot answer at all: it is not asked.
        changes = before && loadingSince(settled, before) ? LATE : await bounded();
      } catch (e) {
        // A navigation still landing replaced the document under the read; the action is done,
        // so it is not failed for that: settle on the new document and read once more.
        if (!(e instanceof OpError) || e.kind !== 'stale_element') throw e;
        const again = await baseline(settled);
        for (const note of await settle(settled, again, rt.sessions.config.settleTimeoutMs))
          if (!notes.includes(note)) notes.push(note);
        changes = await bounded();
      }
      if (changes === LATE) changes = { note: STILL_LOADING };
      else if (shellsBefore && !notes.includes('navigated')) {
        const elements = elementDiff(shellsBefore, await readShells(tab));
        if (elements) {
          changes.element_diff = elements;
          delete changes.no_change;
        }
      }
      outcome = { ...outcome, data: { ...outcome.data, changes } };
    }
    for (const id of session.openedTabs.slice(tabsOpenedBefore)) {
      const opened = session.browser?.tabs().find((t) => t.id === id);
      notes.push(`new_tab ${id}${opened ? ` ${opened.url()}` : ''} — tab_select to use it`);
    }
    const browser = session.browser;
    if (
      browser
        ?.downloads()
        .slice(downloadsBefore)
        .some((d) => d.state === 'saving')
    ) {
      // A download is reported as it ended, not as it began: saved or failed, within the op's time.
      const left = Math.max(started + timeoutMs - Date.now(), 1000);
      await within(browser.downloadsSettled(), left, undefined);
    }
    for (const download of session.browser?.downloads().slice(downloadsBefore) ?? []) {
      notes.push(downloadNote(download));
      // Only a file that is there gets a link.
      if (download.state !== 'saved') continue;
      outcome = {
        ...outcome,
        evidence: [
          ...(outcome.evidence ?? []),
          rt.files.evidence(session.name, 'download', download.name),
        ],
      };
    }
    dialogNotes(tab, notes);
    const dialog = tab?.pendingDialog();
    if (dialog)
      notes.push(
        `dialog_open (${dialog.type}: ${dialog.message.slice(0, 120)}) — answer it with the dialog op`,
      );
    if (conditions && tab) {
      // The op's whole timeout bounds it; an expect still gets a short window after a slow action.
      const expectMs = Math.max(started + timeoutMs - Date.now(), Math.min(timeoutMs, 2000));
      checks = await verify(tab, conditions, expectMs, {
        evaluate: rt.sessions.config.evaluate,
        signal: request.signal,
      });
      if (!checks.every((c) => c.passed)) {
        throw new OpError(
          'verification_failed',
          `${op.name} was done, but the expected outcome did not follow. ${failureMessage(checks, tab.url())} Do not repeat the action blindly: read the page first.`,
        );
      }
    }
    if (outcome.checks) checks = outcome.checks;
    if (outcome.error) error = outcome.error;
  } catch (e) {
    // The browser died or the tab crashed under the op: say so once; the next op brings it back.
    error = rt.sessions.failure(session) ?? toOpError(e);
    dialogNotes(session.activeTab() ?? tab, notes);
    // A failed check is reported once, under verification, not again in the error.
    if (!checks && Array.isArray(error.details?.checks)) {
      checks = error.details.checks as Check[];
      delete error.details.checks;
    }
  }
  const refused = session.refusedNavigations.slice(refusedBefore);
  if (refused.length) error = policyError(refused[0].url, refused[0].reason);
  tab = session.activeTab() ?? tab;
  const evidence: Evidence[] = [...(outcome.evidence ?? [])];
  // One capture serves the failure evidence and the log's frame.
  const screen =
    error && op?.acts && tab && error.kind !== 'invalid_argument'
      ? await captureScreen(tab)
      : undefined;
  if (screen) {
    const shot = await failureScreenshot(rt.files, session, screen, actionId);
    if (shot) evidence.push(shot);
  }
  const page =
    tab && !tab.isClosed() ? { url: tab.url(), title: await tab.title(), tab: tab.id } : undefined;
  if (page) session.rememberUrl(page.url);
  const verification: ActionResult['verification'] = checks
    ? { status: checks.every((c) => c.passed) ? 'passed' : 'failed', checks }
    : { status: 'not_checked' };
  const result: ActionResult = {
    ok: !error && outcome.ok !== false,
    op: request.op,
    action_id: actionId,
    session_id: session.name,
    target: outcome.target,
    page,
    verification,
    data: outcome.data,
    error: error?.toInfo(),
    evidence,
    notes,
    timing: { started_at_ms: started, duration_ms: Date.now() - started, timeout_ms: timeoutMs },
  };
  session.ops++;
  session.lastActiveAt = Date.now();
  await rt.sessions.persist(session);
  // Every result leaves through here: URL credentials and the session's bound values removed.
  const final = scrub(compactResult(result), session.bound);
  if (op?.browser) verdictOf(session).record(final, request.run);
  rt.logs?.record({
    result: final,
    args: scrub(request.args, session.bound),
    run: request.run,
    acts: !!op?.acts,
    tab,
    screen,
    box: tab && probedBox(tab, started),
  });
  return final;
}

/** A dialog in the op's way is dismissed, and the op says so. */
async function dismissDialog(tab: BrowserTab | undefined, notes: string[]): Promise<void> {
  const pending = tab?.pendingDialog();
  if (!tab || !pending) return;
  await tab.answerDialog({ accept: false });
  // One note for the op: the first dialog, and how many followed it.
  const at = notes.findIndex((n) => n.startsWith('dialog_dismissed ('));
  if (at < 0)
    return void notes.push(`dialog_dismissed (${pending.type}: ${pending.message.slice(0, 80)})`);
  const more = Number(/ and (\d+) more$/.exec(notes[at])?.[1] ?? 0);
  notes[at] = `${notes[at].replace(/ and \d+ more$/, '')} and ${more + 1} more`;
}

/** Dialogs the tab dismissed by itself during the op (in a navigation's way, a storm). */
function dialogNotes(tab: BrowserTab | undefined, notes: string[]): void {
  const d = tab?.takeDismissedDialogs();
  if (!d) return;
  const what = `${d.last.type}: ${d.last.message.slice(0, 80)}`;
  notes.push(
    d.storm
      ? `dialog_storm (${what}): the page opens dialogs faster than they can be answered; ${d.count} dismissed as they opened, and further ones will be while it goes on — goto another page or tab_close this tab to stop them`
      : `dialog_dismissed (${what})${d.count > 1 ? ` and ${d.count - 1} more` : ''}: the page opened it while SwiftBrowse read or left the page`,
  );
}

const LATE = Symbol('late');
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
