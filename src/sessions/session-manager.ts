import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { firstLine, OpError, toOpError } from '../core/errors.js';
import { checkName } from '../core/names.js';
import {
  navigationTarget,
  policyActive,
  refusedBy,
  requestRefusedBy,
  urlPolicy,
  type UrlPolicy,
} from '../core/url-policy.js';
import { within } from '../core/within.js';
import { machineLoad, saturation } from '../core/machine-load.js';
import { layoutVerdict, unansweredVerdict } from '../drivers/stuck-probe.js';
import { Admission } from './admission.js';
import {
  STOP_MS,
  type BrowserLoss,
  type BrowserSession,
  type BrowserTab,
  type Driver,
  type OpenOptions,
} from '../drivers/driver.js';
import { keptFilesDir, sessionFilesDir } from '../files/file-store.js';
import { endedRecord, openedRecord, type EndedBy } from './browser-record.js';
import { Session } from './session.js';
import { defaultSettings, type SessionSettings } from './settings.js';
import type { SessionRecord, SessionStore } from './store.js';

/** One stdio process serves one client; an unnamed one gets this private name no caller can produce (DESIGN §6). */
export const STDIO_SESSION = '_stdio';

/** A navigation the server's URL policy forbids (DESIGN §3.6). */
export function policyError(url: string, reason: string): OpError {
  return new OpError(
    'permission_denied',
    `Navigation to ${url} was refused by this server's URL policy: ${reason}. This is the operator's rule and no argument overrides it; work on an allowed site, or ask the operator.`,
  );
}

export type Backend = SessionSettings['backend'];

/** How long an op waits for its record's save: a healthy store answers well within it. */
const SAVE_WAIT_MS = 250;

/** Crashed tabs already reported as `backend`: the next op that meets one replaces it. */
const crashReported = new WeakSet<BrowserTab>();

/** How long ending a browser may take before the session lets go of it (a hung Grid node). */
const CLOSE_WAIT_MS = 5000;

/**
 * How long a stuck tab's replacement may go on after its op answered (a busy Grid opening the new
 * tab) before the browser is ended instead.
 */
const REPLACE_LIMIT_MS = 15_000;
const PENDING = Symbol('pending');

/**
 * How long an op that met a gone browser waits for its backend to say why (a Grid asked whether
 * the node still answers) before answering without the cause.
 */
const LOSS_ASK_MS = 2000;

/**
 * What freeing a session did to the op that held it (its deadline passed with the page stuck in
 * script, or a close ended its browser): that op answers with this error and note.
 */
export interface Interruption {
  error: OpError;
  note: string;
  /** The page's script was stopped and the page stays: the op's calls fail as the stop takes hold. */
  stopped?: true;
}

export interface EnsureOptions {
  /** Load the remembered URL into a browser brought back after a crash, idle release or restart. */
  restore: boolean;
  /** `open` without `fresh`: also restore after an explicit close. */
  resume?: boolean;
  /** The op's caller went away: a browser still being opened for it is given up (Grid queue). */
  signal?: AbortSignal;
}

/** Holds every session by name, keeps their records in the store, opens browsers within the limit. */
function profileHeld(profile: string): OpError {
  return new OpError(
    'invalid_argument',
    `Profile "${profile}" is in use by another session; a profile is held by one session at a time. Choose another profile, or close that session first.`,
  );
}

export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private readonly loading = new Map<string, Promise<Session>>();
  /** Which session holds each persistent profile. */
  private readonly profiles = new Map<string, string>();
  /** Sessions whose last save failed: saved again as soon as the store answers. */
  private readonly unsaved = new Set<string>();
  /** What was done to each session's running op to free the session; its op reports it. */
  private readonly interrupted = new WeakMap<Session, Interruption>();
  /** Time each session has spent opening browsers (a Grid queue, a restore), for op deadlines. */
  private readonly opening = new WeakMap<Session, { since?: number; spentMs: number }>();
  /** Sessions whose browser a close ended under a running op, before the close's turn came. */
  private readonly closedEarly = new WeakSet<Session>();
  /** Why each browser that went away did, once its backend said. */
  private readonly losses = new WeakMap<BrowserSession, BrowserLoss>();
  readonly policy: UrlPolicy;
  /** Local browsers open one at a time while the machine is saturated. */
  private readonly admission: Admission;
  private readonly sweeper?: NodeJS.Timeout;

  constructor(
    readonly config: Config,
    readonly drivers: Partial<Record<Backend, Driver>>,
    readonly store: SessionStore,
    private readonly logger?: Logger,
  ) {
    this.policy = urlPolicy(config);
    this.admission = new Admission(config.admissionWait);
    const shortest = Math.min(config.sessionTtl || Infinity, config.sessionRecordTtl || Infinity);
    if (shortest !== Infinity) {
      const every = Math.max(1000, Math.min(shortest / 2, 60_000));
      this.sweeper = setInterval(
        () =>
          void this.sweep().catch((e: Error) =>
            this.logger?.warn({ err: e.message }, 'idle sessions not swept'),
          ),
        every,
      );
      this.sweeper.unref();
    }
    store.onReconnect(() => void this.saveUnsaved());
  }

  /** The session of this name: live here, else its stored record, else a new one. */
  async get(name: string): Promise<Session> {
    if (name !== STDIO_SESSION) checkName('session', name);
    const live = this.sessions.get(name);
    if (live) return live;
    let pending = this.loading.get(name);
    if (!pending) {
      pending = this.store.load(name).then((record) => {
        const session = record
          ? Session.fromRecord(record)
          : new Session(name, defaultSettings(this.config));
        this.sessions.set(name, session);
        this.loading.delete(name);
        return session;
      });
      pending.catch(() => this.loading.delete(name));
      this.loading.set(name, pending);
    }
    return pending;
  }

  /**
   * The session of this name as it is, live here or stored, without creating, registering or
   * touching it (a GET must not); a name never used reads as a new session would be, `known: false`.
   */
  async peek(name: string): Promise<{ session: Session; known: boolean }> {
    if (name !== STDIO_SESSION) checkName('session', name);
    const live = this.sessions.get(name) ?? (await this.loading.get(name));
    if (live) return { session: live, known: true };
    const record = await this.store.load(name);
    if (record) return { session: Session.fromRecord(record), known: true };
    return { session: new Session(name, defaultSettings(this.config)), known: false };
  }

  /** A session live in this process, without loading or creating one. */
  find(name: string): Session | undefined {
    return this.sessions.get(name);
  }

  list(): Session[] {
    return [...this.sessions.values()];
  }

  /** Every known session: live ones as they are now, the rest as stored. */
  async records(): Promise<SessionRecord[]> {
    const byName = new Map((await this.store.list()).map((r) => [r.name, r]));
    for (const s of this.sessions.values()) byName.set(s.name, s.record());
    return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  liveBrowsers(): number {
    return this.list().filter((s) => s.hasBrowser()).length;
  }

  downloadsDir(session: Session): string {
    return sessionFilesDir(this.config.dataDir, session.name);
  }

  driverFor(settings: SessionSettings): Driver {
    const driver = this.drivers[settings.backend];
    if (!driver) {
      throw new OpError(
        'unsupported',
        settings.backend === 'grid'
          ? 'This server has no Selenium Grid (GRID_URL is unset), so backend "grid" cannot run. Use backend "playwright", or ask the operator to set GRID_URL.'
          : 'This server runs no local browser. Use backend "grid".',
      );
    }
    return driver;
  }

  /**
   * The URL an op asked to load (`goto`, `open`, `tab_new`), read and checked before any browser
   * opens: not a URL is `invalid_argument`, a URL the policy forbids `permission_denied`.
   */
  checkNavigation(op: string, input: string): string {
    const url = navigationTarget(op, input);
    const reason = refusedBy(this.policy, url);
    if (reason) throw policyError(url, reason);
    return url;
  }

  /**
   * Saves the session's record. A store failure never fails the op that ran, nor holds it past a
   * moment: the session goes on in memory, and its record is saved again when the store is back.
   */
  async persist(session: Session): Promise<void> {
    // A store that failed this session's last save is not waited for again until it answers.
    const wait = !this.unsaved.has(session.name);
    const saved = this.save(session);
    if (wait) await within(saved, SAVE_WAIT_MS, undefined);
  }

  /** Saves the record; resolves either way, remembering a session whose save failed. */
  private save(session: Session): Promise<void> {
    return this.store.save(session.record()).then(
      () => void this.unsaved.delete(session.name),
      (e: Error) => {
        // Once per session and outage: every op of a session would repeat it.
        if (!this.unsaved.has(session.name))
          this.logger?.warn(
            { session: session.name, err: e.message },
            'session not saved; it is saved when the store answers again',
          );
        this.unsaved.add(session.name);
      },
    );
  }

  private async saveUnsaved(): Promise<void> {
    const sessions = [...this.unsaved].flatMap((name) => this.sessions.get(name) ?? []);
    this.unsaved.clear();
    await Promise.all(sessions.map((s) => this.save(s)));
    if (sessions.length)
      this.logger?.info(
        { sessions: sessions.map((s) => s.name) },
        'the session store answers again; records saved',
      );
  }

  /**
   * The session's browser, opening one if it has none. A browser that died since the last op is
   * reported once as `backend` (cookies and logins went with it); the next call brings a new one
   * back on the last URL and says so in `notes`.
   */
  async ensureBrowser(
    session: Session,
    options: EnsureOptions,
    notes: string[] = [],
  ): Promise<{ browser: BrowserSession; opened: boolean }> {
    if (session.replacingTab) await this.whileOpening(session, () => session.replacingTab!);
    if (session.browser && !session.browser.isClosed())
      return { browser: session.browser, opened: false };
    if (session.browser) {
      await this.askWhyLost(session);
      throw this.lost(session);
    }
    return this.whileOpening(session, () => this.openBrowser(session, options, notes));
  }

  /** Runs `open` as opening time, which an op's deadline does not count (openingMs). */
  private async whileOpening<T>(session: Session, open: () => Promise<T>): Promise<T> {
    const opening = this.opening.get(session) ?? { spentMs: 0 };
    this.opening.set(session, opening);
    opening.since = Date.now();
    try {
      return await open();
    } finally {
      opening.spentMs += Date.now() - opening.since;
      opening.since = undefined;
    }
  }

  /**
   * Milliseconds the session has spent opening a browser since `from` (epoch ms): an op's
   * deadline counts from when its browser is there, since a Grid may queue the open for minutes.
   */
  openingMs(session: Session, from: number, spentBefore: number): number {
    const o = this.opening.get(session);
    if (!o) return 0;
    return o.spentMs - spentBefore + (o.since ? Date.now() - Math.max(o.since, from) : 0);
  }

  /** The session's total opening time so far (the `spentBefore` of openingMs). */
  openingSpent(session: Session): number {
    return this.opening.get(session)?.spentMs ?? 0;
  }

  private async openBrowser(
    session: Session,
    options: EnsureOptions,
    notes: string[],
  ): Promise<{ browser: BrowserSession; opened: boolean }> {
    const previous = session.browserState;
    const driver = this.driverFor(session.settings);
    const openOptions = this.openOptions(session);
    if (session.handle) {
      const attached = await driver.attach(session.handle, openOptions).catch(() => undefined);
      if (attached) {
        this.adopt(session, attached, true);
        notes.push(`reattached: the server restarted and found this session's browser again`);
        // The policy may have changed while no server held the browser: a refused page goes.
        for (const tab of attached.tabs()) {
          const refused = refusedBy(this.policy, tab.url());
          if (!refused) continue;
          notes.push(
            `restore_refused: ${tab.url()} in tab ${tab.id} is now outside the URL policy (${refused}); the tab was emptied`,
          );
          await tab
            .goto('about:blank', session.settings.navigationTimeoutMs)
            .catch(() => undefined);
        }
        return { browser: attached, opened: false };
      }
      session.handle = undefined;
    }
    if (this.liveBrowsers() >= this.config.maxSessions) {
      throw new OpError(
        'session_limit',
        `All ${this.config.maxSessions} browsers (MAX_SESSIONS) are in use, so session "${session.name}" cannot open one. Close a session you no longer need, or ask the operator to raise MAX_SESSIONS.`,
      );
    }
    const profile = session.settings.profile;
    const holder = profile ? this.profiles.get(profile) : undefined;
    if (profile && holder && holder !== session.name) throw profileHeld(profile);
    // A Grid browser runs elsewhere and the Grid queues its own openings.
    const admitted =
      session.settings.backend === 'grid' ? undefined : await this.admission.admit(session.name);
    if (admitted?.note) notes.push(admitted.note);
    const started = Date.now();
    const browser = await driver
      .open({ ...openOptions, signal: options.signal })
      .catch((e: unknown) => {
        this.logger?.warn(
          { session: session.name, err: firstLine(toOpError(e).message) },
          `session "${session.name}" could not open a browser`,
        );
        throw e;
      })
      .finally(() => admitted?.release());
    if (profile) this.profiles.set(profile, session.name);
    this.adopt(session, browser);
    const running = browser.running();
    this.logger?.info(
      {
        session: session.name,
        browser: running.browser,
        version: running.version,
        ms: Date.now() - started,
      },
      `session "${session.name}" opened ${running.browser} ${running.version} in ${Date.now() - started} ms`,
    );
    const url = session.lastUrl;
    const comeBack = previous !== 'closed' || options.resume;
    const refused = url ? refusedBy(this.policy, url) : undefined;
    if (options.restore && comeBack && url && refused) {
      // The policy may have changed since the page was reached: the new browser stays blank.
      notes.push(`restore_refused: the last URL ${url} is now outside the URL policy (${refused})`);
    } else if (options.restore && comeBack && url && url !== 'about:blank') {
      notes.push(this.restoreNote(session, previous, url));
      const tab = session.activeTab();
      const loaded = await tab
        ?.goto(url, session.settings.navigationTimeoutMs)
        .catch((e: Error) => ({ error: e.message }));
      if (loaded?.error) notes.push(`restore_failed: ${url} did not load (${loaded.error})`);
    }
    return { browser, opened: true };
  }

  /**
   * The session's active tab. One whose page crashed is reported once as `backend`, as a dead
   * browser is; the next call puts a new tab in its place (same id, same cookies) on its last URL
   * and says so in `notes`.
   */
  async ensureTab(session: Session, notes: string[]): Promise<BrowserTab | undefined> {
    const tab = session.activeTab();
    if (tab && !tab.crashed()) await session.bringToFront(tab);
    if (!tab?.crashed()) return tab;
    if (!crashReported.has(tab)) throw this.crashed(session, tab);
    // A new tab and its load are opening, as a new browser is: the op's own time starts after.
    return this.whileOpening(session, () => this.reopenCrashed(session, tab, notes));
  }

  private async reopenCrashed(
    session: Session,
    tab: BrowserTab,
    notes: string[],
  ): Promise<BrowserTab> {
    const url = tab.url();
    const fresh = await session.browser!.replaceTab(tab);
    session.activeTabId = fresh.id;
    session.frontTabId = undefined;
    session.pointer = undefined;
    session.reading.forgetPages();
    const refused = refusedBy(this.policy, url);
    if (refused) {
      notes.push(
        `restore_refused: tab ${fresh.id} had crashed; its last URL ${url} is now outside the URL policy (${refused}), so the new tab stays blank`,
      );
      return fresh;
    }
    notes.push(
      `tab_recovered: tab ${fresh.id} had crashed; a new tab opened in its place on its last URL ${url}; cookies and logins are kept, what the page held (form input, scroll position, script state) is gone`,
    );
    if (url && url !== 'about:blank') {
      const loaded = await fresh
        .goto(url, session.settings.navigationTimeoutMs)
        .catch((e: Error) => ({ error: e.message }));
      if (loaded.error) notes.push(`restore_failed: ${url} did not load (${loaded.error})`);
    }
    return fresh;
  }

  /**
   * The one `backend` answer for what broke under an op: the browser died, or the active tab
   * crashed; undefined when neither (the op's own error stands).
   */
  failure(session: Session): OpError | undefined {
    const interrupted = this.interrupted.get(session);
    if (interrupted) return interrupted.error;
    if (session.browser?.isClosed()) return this.lost(session);
    const tab = session.activeTab();
    if (tab?.crashed() && !crashReported.has(tab)) return this.crashed(session, tab);
    return undefined;
  }

  /**
   * Frees a session whose op ran past its time with the page stuck in script (an endless loop, a
   * catastrophic regex): Playwright stops the script and the page stays; WebDriver cannot, so the
   * tab is closed and a new one opens on the last page an op finished on. Undefined when the page
   * answers (nothing is stuck: a slow promise, a server still sending the page); 'rendering' when
   * it is laying out a large document, which nothing can stop or shorten, until it has been so at
   * every deadline for LAYOUT_LIMIT: then it is taken for stuck and its tab replaced. 'starved'
   * when nothing answered on a saturated machine, the first time (unansweredVerdict). A tab's
   * replacement is waited for until `answerBy` (the op's own answer time) at most; one still
   * coming then is finished in the background, and the next op waits for it.
   */
  async interrupt(
    session: Session,
    op: string,
    timeoutMs: number,
    waitMs: number,
    answerBy = Date.now() + waitMs,
  ): Promise<Interruption | 'rendering' | 'starved' | undefined> {
    const browser = session.browser;
    const tab = session.activeTab();
    if (!browser || browser.isClosed() || !tab || tab.isClosed() || tab.crashed()) return undefined;
    const until = Date.now() + waitMs;
    const url = tab.url();
    const starved = saturation(machineLoad());
    // On a saturated machine a page that does not answer may only be starved of CPU: said so.
    const ran = starved
      ? `${op} did not finish within its timeout of ${timeoutMs} ms: the page ${url} did not answer in time, and ${starved}, so it may have been starved of CPU rather than held by an endless script; it was taken for stuck`
      : `${op} did not finish within its timeout of ${timeoutMs} ms: a script in the page ${url} kept running (an endless loop, a handler that never returns, or a regex that does not end)`;
    // The page's questions end early enough for a stop to be sent within the wait; a tab that
    // overruns it learned nothing in time, as one whose browser did not answer.
    const outcome = await within(tab.interrupt(until - STOP_MS), waitMs, 'unanswered' as const);
    const silent =
      outcome === 'unanswered'
        ? unansweredVerdict(session.unanswered, tab.id, !!starved)
        : undefined;
    session.unanswered = silent === 'wait' ? tab.id : undefined;
    if (silent === 'wait') return 'starved';
    const layout =
      outcome === 'rendering'
        ? layoutVerdict(session.layingOut, tab.id, Date.now(), this.config.layoutLimit)
        : undefined;
    session.layingOut = layout?.stuck ? undefined : layout?.streak;
    if (outcome === 'answering') return undefined;
    if (layout && !layout.stuck) return 'rendering';
    if (outcome === 'stopped') {
      return this.interrupted
        .set(session, {
          error: new OpError(
            'timeout',
            `${ran}, so the script was stopped. The page and its state (form input, scroll) are kept; what ${op} did before the script ran stands, the rest did not happen. Read the page (snapshot) before going on; if the page runs the script again on its next event, goto another page.`,
          ),
          note: `script_stopped: the page's script ran past ${op}'s timeout and was stopped; the page stays, but it may run the script again on its next event (a click, a timer)`,
          stopped: true,
        })
        .get(session);
    }
    // WebDriver cannot stop a script, and nothing stops a layout: the tab goes, and its state.
    const held = layout
      ? `${op} did not finish within its timeout of ${timeoutMs} ms: the page ${url} has been laying out at every op's deadline for ${Math.round((Date.now() - layout.streak.since) / 1000)} s (LAYOUT_LIMIT ${this.config.layoutLimit / 1000} s), so it was taken for stuck`
      : ran;
    const cause = layout ? 'nothing can stop a layout' : "WebDriver cannot stop a page's script";
    const what = layout
      ? 'the page laid out past LAYOUT_LIMIT'
      : `the page's script ran past ${op}'s timeout`;
    const back =
      session.lastUrl && !refusedBy(this.policy, session.lastUrl) ? session.lastUrl : undefined;
    const replacing = browser.replaceTab(tab).catch(() => undefined);
    // Waiting past the op's own answer time saves nothing: a replacement still coming is finished
    // in the background (a layout past LAYOUT_LIMIT answered 4.1 s after a 1 s timeout under load).
    const fresh = await within(
      replacing,
      Math.max(Math.min(until, answerBy) - Date.now(), 0),
      PENDING,
    );
    if (!fresh) {
      this.abandonBrowser(session);
      return this.interrupted
        .set(session, {
          error: new OpError(
            'timeout',
            `${held}, and the browser could not stop it nor close the tab, so the browser was ended. Send the next op as usual: a new browser opens${back ? ` on ${back}` : ''}, without the cookies and logins of the old one${session.settings.profile ? ' (the profile keeps them)' : ''}.`,
          ),
          note: `browser_ended: ${what} and the tab could not be closed; the browser was ended, its cookies and in-page state are lost`,
        })
        .get(session);
    }
    // A busy Grid can take longer than the op's margin to open a tab: the op answers now, and the
    // next op waits for the new tab rather than losing the browser and its cookies.
    if (fresh === PENDING) session.replacingTab = this.finishReplacing(session, replacing, back);
    else this.useReplacement(session, fresh, back);
    const where = back ? `reloaded at ${back}` : 'left blank';
    const was = fresh === PENDING ? 'is being' : 'was';
    return this.interrupted
      .set(session, {
        error: new OpError(
          'timeout',
          `${held}, and ${cause}, so tab ${tab.id} ${was} closed and ${back ? `reopened at ${back}` : 'reopened blank'}. Cookies and logins are kept; the page's own state (form input, scroll, script state) was lost, and what ${op} did may not have happened. Read the page (snapshot) before going on.`,
        ),
        note: `tab_interrupted: ${what}; the tab ${was} ${where}, its in-page state (form input, scroll) was lost`,
      })
      .get(session);
  }

  /** Makes a stuck tab's replacement the active tab, loading the last page an op finished on. */
  private useReplacement(session: Session, fresh: BrowserTab, back: string | undefined): void {
    session.activeTabId = fresh.id;
    session.frontTabId = undefined;
    session.pointer = undefined;
    session.reading.forgetPages();
    // The load is not waited for: the next op waits for the page as it does after any goto.
    if (back && back !== 'about:blank')
      void fresh.goto(back, session.settings.navigationTimeoutMs).catch(() => undefined);
  }

  /** Ends a replacement that outlasted its op: used when it comes, the browser ended when not. */
  private async finishReplacing(
    session: Session,
    replacing: Promise<BrowserTab | undefined>,
    back: string | undefined,
  ): Promise<void> {
    const browser = session.browser;
    const fresh = await within(replacing, REPLACE_LIMIT_MS, undefined);
    session.replacingTab = undefined;
    // A close or a new browser since leaves nothing to finish.
    if (!browser || session.browser !== browser) return;
    if (fresh) this.useReplacement(session, fresh, back);
    else this.abandonBrowser(session);
  }

  /**
   * Lets go of a browser that stays stuck after its page was interrupted: marked lost, so the next
   * op opens a new one on the last URL; its close is not waited for.
   */
  abandonBrowser(session: Session): void {
    const browser = this.dropBrowser(session, 'lost', 'stuck');
    if (browser) void within(browser.close(), CLOSE_WAIT_MS, undefined);
  }

  /** What stopped the session's running op, if anything did; it stays for that op's answer. */
  pendingInterruption(session: Session): Interruption | undefined {
    return this.interrupted.get(session);
  }

  /** What freeing the session did to its running op, once: that op reports it. */
  takeInterruption(session: Session): Interruption | undefined {
    const interrupted = this.interrupted.get(session);
    this.interrupted.delete(session);
    return interrupted;
  }

  /**
   * Ends the browser under an op that still runs (a close or DELETE /browser came, and does not
   * wait behind it): that op answers that its browser was closed. True when there was one.
   */
  async closeUnder(session: Session, op: string): Promise<boolean> {
    const url = session.activeTab()?.url();
    this.interrupted.set(session, {
      error: new OpError(
        'timeout',
        `The session's browser was closed by a close call (or DELETE /browser) while this op ran${url ? ` on ${url}` : ''}, so it did not finish; nothing more reaches the page. The next op opens a new browser${session.lastUrl ? ` on ${session.lastUrl}` : ''}.`,
      ),
      note: `closed_under: ${op} arrived while this op ran and ended the browser`,
    });
    // The op answers now: a page stuck in script can hold its browser's close and every call.
    for (const deadline of session.deadlines) deadline.cut();
    const had = await this.closeBrowser(session, 'caller');
    if (had) this.closedEarly.add(session);
    return had;
  }

  /** True once after closeUnder ended a browser: the close that asked reports it as closed. */
  takeClosedEarly(session: Session): boolean {
    return this.closedEarly.delete(session);
  }

  private crashed(session: Session, tab: BrowserTab): OpError {
    crashReported.add(tab);
    return new OpError(
      'backend',
      `Tab ${tab.id} of session "${session.name}" crashed (its page's renderer process died, e.g. out of memory or killed) while on ${tab.url()}. Send the next op as usual: the tab is reopened on that URL, with the cookies and logins kept and the page's own state (form input, scroll position) lost.`,
      { details: { tab: tab.id, url: tab.url(), crashed: true } },
    );
  }

  private restoreNote(session: Session, previous: Session['browserState'], url: string): string {
    const lost = session.settings.profile
      ? `the persistent profile "${session.settings.profile}" kept its cookies and logins`
      : 'cookies and logins from before are gone (a persistent profile would keep them)';
    const why = {
      lost: 'recovered: the browser had died',
      released: `reopened: the browser was released after ${idleSpan(this.config.sessionTtl)} idle (SESSION_TTL)`,
      open: 'resumed: the server restarted',
      closed: 'reopened',
    }[previous];
    return `${why}; a new browser opened on the last URL ${url}; ${lost}`;
  }

  private adopt(session: Session, browser: BrowserSession, reattached = false): void {
    browser.onTabOpened((tab) => {
      // A tab the page opens comes to the front over the one ops act on.
      session.frontTabId = undefined;
      session.events.tabOpened(tab.id);
    });
    session.browser = browser;
    session.browserState = 'open';
    session.handle = browser.handle();
    session.activeTabId = browser.tabs()[0]?.id;
    session.frontTabId = undefined;
    // A re-attached browser's pointer is where the stored record says; a new one's is unknown.
    if (!reattached) session.pointer = undefined;
    session.reading.forgetPages();
    // A re-attached browser is the one the stored record describes: its start stays as it was.
    const kept = session.browserRecord;
    if (!reattached || !kept?.ran || kept.ended)
      session.browserRecord = openedRecord(
        session.settings,
        browser,
        this.config.sessionTtl,
        Date.now(),
      );
  }

  /**
   * Asks a browser that went away why (a Grid: whether its node still answers), within
   * LOSS_ASK_MS, so `failure` and `lost` can say; a browser still running is not asked.
   */
  async askWhyLost(session: Session): Promise<void> {
    const browser = session.browser;
    if (!browser?.isClosed() || !browser.lossCause || this.losses.has(browser)) return;
    const loss = await within(browser.lossCause(), LOSS_ASK_MS, undefined).catch(() => undefined);
    if (loss) this.losses.set(browser, loss);
  }

  /** Marks a dead browser lost and describes it as the one `backend` answer. */
  lost(session: Session): OpError {
    const by = lostBy(session);
    const loss = session.browser && this.losses.get(session.browser);
    this.dropBrowser(session, 'lost', by, loss);
    if (loss) return this.nodeLost(session, loss);
    // A Grid browser that is gone was ended by the Grid: reaped when idle, or its node went away.
    const died =
      by === 'grid'
        ? `was ended by the Grid (reaped by its session timeout after idling, its node went away, or an operator ended it)`
        : 'died (crashed or was killed)';
    this.logger?.warn(
      { session: session.name },
      `the browser of session "${session.name}" ${died}`,
    );
    return new OpError(
      'backend',
      `The browser of session "${session.name}" ${died}${session.lastUrl ? ` while on ${session.lastUrl}` : ''}. Send the next op as usual: a new browser opens on the last URL${session.settings.profile ? '' : ', without the cookies and logins of the old one'}.`,
    );
  }

  /** The answer for a browser whose Grid node went away: which node, what was lost, what next. */
  private nodeLost(session: Session, loss: BrowserLoss): OpError {
    const where = session.lastUrl ? ` while on ${session.lastUrl}` : '';
    const next = session.lastUrl ? ` on the last URL ${session.lastUrl}` : '';
    return new OpError(
      'backend',
      `The browser of session "${session.name}" was lost with its Grid node${where}: node ${loss.node} went away (${loss.detail}), and the browser with it; its tabs, cookies, logins and the page's state (form input, scroll) are gone. Send the next op as usual: it opens a new browser${next}; if the Grid has no live node, that open says so, and the operator must bring one back.`,
      { details: { grid: loss.reason, node: loss.node } },
    );
  }

  /** The one way a session lets go of its browser: its state, and who ended it in its record. */
  private dropBrowser(
    session: Session,
    state: Session['browserState'],
    by: EndedBy,
    loss?: BrowserLoss,
  ): BrowserSession | undefined {
    const browser = session.browser;
    if (browser && session.browserRecord)
      session.browserRecord = endedRecord(session.browserRecord, by, Date.now(), loss?.reason);
    session.browser = undefined;
    session.activeTabId = undefined;
    session.pointer = undefined;
    session.handle = undefined;
    session.browserState = state;
    session.reading.forgetPages();
    const profile = session.settings.profile;
    if (profile && this.profiles.get(profile) === session.name) this.profiles.delete(profile);
    return browser;
  }

  /** Refuses settings their backend could never open, before the held browser is ended. */
  async checkSettings(session: Session, settings: SessionSettings): Promise<void> {
    await this.driverFor(settings).check?.(this.openOptions(session, settings));
    const holder = settings.profile ? this.profiles.get(settings.profile) : undefined;
    if (holder && holder !== session.name) throw profileHeld(settings.profile!);
  }

  openOptions(session: Session, s: SessionSettings = session.settings): OpenOptions {
    const dir = this.downloadsDir(session);
    return {
      session: session.name,
      browser: s.browser,
      version: s.version,
      clientVersion: s.clientVersion,
      browserFrom: s.browserFrom,
      headless: s.headless,
      viewport: s.viewport,
      downloadsDir: dir,
      locale: s.locale,
      userAgent: s.userAgent,
      storageStatePath: s.storageState ? this.storageStatePath(session, s.storageState) : undefined,
      profileDir: s.profile ? join(this.config.dataDir, 'profiles', s.profile) : undefined,
      insecure: s.insecure,
      webdriver: {
        record: s.record,
        pageLoadTimeoutMs: s.pageLoadTimeoutMs,
        scriptTimeoutMs: s.scriptTimeoutMs,
        capabilities: s.capabilities,
      },
      refuseNavigation: policyActive(this.policy)
        ? (url) => {
            const reason = refusedBy(this.policy, url);
            if (reason) session.events.navigationRefused(url, reason);
            return reason;
          }
        : undefined,
      refuseRequest: policyActive(this.policy)
        ? (url) => requestRefusedBy(this.policy, url)
        : undefined,
    };
  }

  /** A storage-state file by name: the session's kept files first, then its browser files. */
  storageStatePath(session: Session, name: string): string {
    const candidates = [
      join(keptFilesDir(this.config.dataDir, session.name), name),
      join(this.downloadsDir(session), name),
    ];
    const found = candidates.find((p) => existsSync(p));
    if (!found) {
      throw new OpError(
        'invalid_argument',
        `No storage-state file "${name}" in session "${session.name}"'s files. Save one first with state_save, or leave storage_state out.`,
      );
    }
    return found;
  }

  /** Ends the session's browser on purpose; `by` says who asked, for the browser record. */
  async closeBrowser(session: Session, by: 'caller' | 'operator'): Promise<boolean> {
    const had = session.hasBrowser();
    // A browser that died before the close came was not ended by whoever closed it.
    const browser = this.dropBrowser(session, 'closed', had ? by : lostBy(session));
    // A browser that does not end (a page stuck in script, a Grid node gone quiet) is let go of.
    if (browser) await within(browser.close(), CLOSE_WAIT_MS, undefined);
    // Browser files (downloads, screenshots) go with the browser; kept copies live elsewhere.
    if (browser) await rm(this.downloadsDir(session), { recursive: true, force: true });
    return had;
  }

  /** Ends the session's browser and forgets its record; a new op starts it from nothing. */
  async forget(name: string): Promise<boolean> {
    const session = this.sessions.get(name);
    // The record goes with it, so who ended the browser is written nowhere anyone reads.
    if (session) await this.closeBrowser(session, 'operator');
    const known = !!session || !!(await this.store.load(name));
    this.sessions.delete(name);
    this.unsaved.delete(name);
    await this.store.delete(name);
    return known;
  }

  /**
   * Releases browsers idle past SESSION_TTL (their sessions come back on the last URL) and lets
   * go of sessions idle past SESSION_RECORD_TTL (the store forgets their records by itself).
   */
  async sweep(now = Date.now()): Promise<string[]> {
    const released: string[] = [];
    const { sessionTtl, sessionRecordTtl } = this.config;
    for (const s of this.list()) {
      if (s.busy) continue;
      if (sessionRecordTtl && now - s.lastActiveAt >= sessionRecordTtl) {
        await this.forget(s.name);
        continue;
      }
      if (!sessionTtl || !s.hasBrowser() || now - s.lastActiveAt < sessionTtl) continue;
      await this.dropBrowser(s, 'released', 'idle')?.close();
      await this.persist(s);
      released.push(s.name);
      this.logger?.info({ session: s.name }, 'idle session released its browser');
    }
    return released;
  }

  /**
   * Ends this process's hold on every browser. With a store that outlives the process, records
   * keep saying `open`, so the next server brings each browser back (or re-attaches to it).
   */
  async shutdown(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    const durable = this.store.kind !== 'memory';
    await Promise.all(
      this.list().map(async (s) => {
        const browser = s.browser;
        if (!browser) return;
        if (durable) await this.persist(s);
        // A Grid browser outlives this process: leave it for the next server to re-attach.
        if (durable && browser.handle()) return;
        await browser.close();
      }),
    );
    await Promise.all(Object.values(this.drivers).map((d) => d.shutdown()));
    await this.store.close();
  }
}

/** Who ended a browser that died: a Grid browser that stops answering was as often taken by the Grid (reaped, node gone) as crashed. */
function lostBy(session: Session): EndedBy {
  return session.settings.backend === 'grid' ? 'grid' : 'crashed';
}

/** `90 s`, `15 min`: SESSION_TTL as a person would say it. */
function idleSpan(ms: number): string {
  return ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;
}
