import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpError } from '../../core/errors.js';
import { within } from '../../core/within.js';
import {
  askedVersion,
  browserEntry,
  type BrowserInfo,
  type BrowserSession,
  type Driver,
  type OpenOptions,
} from '../driver.js';
import { findFirefox } from '../find-browser.js';
import { Bidi } from './bidi.js';
import { FIREFOX_PREFS, firefoxOptionPrefs } from './capabilities.js';
import { fromFirefoxStart, fromWebDriver } from './errors.js';
import type { CollectedDownloads, CrashVerdict, SessionControl } from './session-control.js';
import { WebDriverSession, type SentCapabilities } from './webdriver-driver.js';

/** How long a tab's page may take to answer `1` before a crash check gives up on it. */
const CRASH_CONFIRM_MS = 1000;
/**
 * How long a closing Firefox may take to say so, and then to exit, before it is killed. A named
 * profile gets longer: Firefox writes local storage and cookies to it as it shuts down.
 */
const CLOSE_MS = 1000;
const EXIT_MS = 2000;
const PROFILE_EXIT_MS = 10_000;

/**
 * Firefox's own network, update and first-run furniture, off: on a closed network it stalls or
 * opens pages of its own, and prompts would steal focus from the page being driven.
 */
const LOCAL_PREFS: Record<string, unknown> = {
  ...FIREFOX_PREFS,
  'browser.startup.page': 0,
  'browser.startup.homepage': 'about:blank',
  'browser.newtabpage.enabled': false,
  'browser.shell.checkDefaultBrowser': false,
  'browser.aboutwelcome.enabled': false,
  'browser.sessionstore.resume_from_crash': false,
  'browser.download.folderList': 2,
  'browser.download.start_downloads_in_tmp_dir': false,
  'browser.download.alwaysOpenPanel': false,
  'browser.download.panel.shown': true,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'browser.safebrowsing.downloads.enabled': false,
  'app.update.disabledForTesting': true,
  'app.normandy.enabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.enabled': false,
  'extensions.update.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'network.proxy.type': 0,
  // A page's window.open is a popup the caller drives, not one to block.
  'dom.disable_open_during_load': false,
  'pdfjs.disabled': true,
};

/** Firefoxes this process started: ended with it, as a local Chromium is. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A user.js line: Firefox reads the profile's preferences from it at start. */
function prefLine(name: string, value: unknown): string {
  return `user_pref(${JSON.stringify(name)}, ${JSON.stringify(value)});`;
}

/** Finished downloads in `dir`: Firefox writes each straight there (a `.part` file until it is whole). */
function finishedDownloads(dir: string, have: ReadonlySet<string>): CollectedDownloads {
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter(
      (n) => !have.has(n) && !n.endsWith('.part') && statSync(join(dir, n)).isFile(),
    );
  } catch {
    // No folder yet: nothing was downloaded.
  }
  // A whole file keeps no `.part` beside it.
  const got = names.filter((n) => !names.includes(`${n}.part`));
  return { got, unwritten: [] };
}

/** A running Firefox, its BiDi session, and the profile it was started on. */
class FirefoxProcess {
  private exited = false;

  constructor(
    private readonly child: ChildProcess,
    readonly bidi: Bidi,
    readonly version: string,
    /** A profile made for this browser alone, removed when it ends; a named profile is kept. */
    private readonly tempProfile: string | undefined,
  ) {
    child.once('exit', () => (this.exited = true));
    bidi.setLiveness(() => this.alive());
  }

  /**
   * Starts Firefox on `profile` and opens its one BiDi session; ends it again if that fails.
   * `startMs` bounds each of the two waits: for its BiDi listener, then for its first answer.
   */
  static async start(
    path: string,
    profile: string,
    tempProfile: string | undefined,
    headless: boolean,
    insecure: boolean,
    startMs: number,
  ): Promise<FirefoxProcess> {
    const { child, ws } = await startFirefox(path, profile, headless, startMs).catch((e) => {
      if (tempProfile) rmSync(tempProfile, { recursive: true, force: true });
      throw e;
    });
    let bidi: Bidi | undefined;
    try {
      const connected = await Bidi.connect(`${ws}/session`, {
        capabilities: {
          acceptInsecureCerts: insecure,
          // Dialogs are answered by the session's dialog gate, never by the browser on its own.
          unhandledPromptBehavior: { default: 'ignore' },
        },
        waitMs: startMs,
      });
      bidi = connected.bidi;
      const version = connected.session?.capabilities.browserVersion ?? 'unknown';
      return new FirefoxProcess(child, bidi, version, tempProfile);
    } catch (e) {
      child.kill('SIGKILL');
      if (tempProfile) rmSync(tempProfile, { recursive: true, force: true });
      throw fromFirefoxStart(e, path, startMs);
    }
  }

  alive(): Promise<boolean> {
    return Promise.resolve(!this.exited && !this.bidi.isClosed());
  }

  onExit(listener: () => void): void {
    if (this.exited) listener();
    else this.child.once('exit', listener);
  }

  /** A crashed content process leaves its context unable to run script; a living one answers `1`. */
  async pageCrashed(context: string): Promise<CrashVerdict> {
    if (this.exited) return 'crashed';
    const asked = this.bidi
      .call('script.evaluate', { expression: '1', target: { context }, awaitPromise: false })
      .then(
        () => 'alive' as const,
        (e: Error) => (/crash|no such frame|discarded/i.test(e.message) ? 'crashed' : 'alive'),
      );
    return within(asked, CRASH_CONFIRM_MS, 'unanswered' as const);
  }

  async end(): Promise<void> {
    await within(this.bidi.call('browser.close', {}), CLOSE_MS, undefined).catch(() => undefined);
    if (!this.exited) {
      const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
      const wait = this.tempProfile ? EXIT_MS : PROFILE_EXIT_MS;
      if ((await within(exited, wait, 'late' as const)) === 'late') this.child.kill('SIGKILL');
    }
    await this.bidi.close();
    if (this.tempProfile) rmSync(this.tempProfile, { recursive: true, force: true });
  }
}

/**
 * A session's local Firefox: the whole process for a named profile, or a user context of a
 * Firefox that is handed on to the next session with the same launch settings once this one ends.
 */
class FirefoxControl implements SessionControl {
  constructor(
    private readonly firefox: FirefoxProcess,
    private readonly userContext: string | undefined,
    /** Hands the Firefox on (`clean`: its user context is gone) or ends it. */
    private readonly release: (clean: boolean) => Promise<void>,
  ) {}

  alive(): Promise<boolean> {
    return this.firefox.alive();
  }

  pageCrashed(context: string): Promise<CrashVerdict> {
    return this.firefox.pageCrashed(context);
  }

  collectDownloads(dir: string, have: ReadonlySet<string>): Promise<CollectedDownloads> {
    return Promise.resolve(finishedDownloads(dir, have));
  }

  /**
   * Removing a user context closes its tabs and forgets its cookies and storage; a Firefox that
   * does not say it did in time (a page stuck in script) is ended, never handed on.
   */
  async end(): Promise<void> {
    if (!this.userContext) return this.firefox.end();
    const removed = this.firefox.bidi
      .call('browser.removeUserContext', { userContext: this.userContext })
      .then(() => true);
    await this.release(await within(removed, CLOSE_MS, false).catch(() => false));
  }
}

/** Starts Firefox and reads the BiDi address it prints; fails with its own words if it exits first. */
function startFirefox(
  path: string,
  profile: string,
  headless: boolean,
  startMs: number,
): Promise<{ child: ChildProcess; ws: string }> {
  const args = ['--remote-debugging-port=0', '--profile', profile, '--no-remote', 'about:blank'];
  if (headless) args.unshift('--headless');
  const child = spawn(path, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return new Promise((resolve, reject) => {
    let said = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new OpError(
          'backend',
          `Firefox (${path}) did not start its WebDriver BiDi listener within ${Math.round(startMs / 1000)} s (FIREFOX_START_TIMEOUT). A loaded machine or a new profile (set up on its first run) starts slowly: open again, and if it recurs ask the operator to raise FIREFOX_START_TIMEOUT. Check that it runs here (\`${path} --version\`), or open with browser "chromium".`,
        ),
      );
    }, startMs);
    const listen = (chunk: Buffer) => {
      said = (said + chunk.toString()).slice(-4000);
      const m = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(said);
      if (!m) return;
      clearTimeout(timer);
      child.stderr?.off('data', listen);
      // Firefox keeps writing to its pipes: they are drained so it never blocks on them.
      child.stderr?.resume();
      resolve({ child, ws: m[1] });
    };
    child.stdout?.resume();
    child.stderr?.on('data', listen);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new OpError('backend', `Firefox (${path}) could not be started: ${e.message}.`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      const last = said.trim().split('\n').slice(-3).join(' | ');
      const display =
        !headless && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY
          ? ' This machine has no display: open with headless true.'
          : '';
      reject(
        new OpError(
          'backend',
          `Firefox (${path}) exited (code ${code}) before it was ready: ${last || 'no output'}.${display}`,
        ),
      );
    });
  });
}

/**
 * Firefox on this machine, driven over WebDriver BiDi directly (no geckodriver): Firefox serves
 * BiDi itself, so the session is the Grid backend's `WebDriverSession` over a local socket, with
 * this process in place of classic WebDriver. Each open session has a Firefox of its own, as it
 * had a process of its own before, but in a user context (its own cookies, storage and downloads
 * folder) that is removed when the session ends: the Firefox then waits for the next session with
 * the same launch settings, which opens in a fraction of a second instead of starting a browser.
 * A named profile is one Firefox's alone, ended with its session.
 */
export class LocalFirefoxDriver implements Driver {
  readonly backend = 'webdriver' as const;
  private readonly sessions = new Set<WebDriverSession>();
  /** An idle Firefox per launch settings (headless, insecure, the option preferences). */
  private readonly spares = new Map<string, FirefoxProcess>();
  private ending = false;
  private version?: string;

  constructor(
    private readonly configuredPath: string | undefined,
    private readonly blockedHosts: readonly string[],
    /** FIREFOX_START_TIMEOUT: each of a start's waits, for the listener and for the first answer. */
    private readonly startMs: number,
  ) {}

  private path(): string {
    const path = findFirefox(this.configuredPath);
    if (!path)
      throw new OpError(
        'unsupported',
        this.configuredPath
          ? `FIREFOX_PATH (${this.configuredPath}) is not an executable Firefox. Fix the path, or open with browser "chromium".`
          : 'No Firefox is installed on this machine (looked for firefox-esr and firefox). Install it (Debian: apt-get install -y firefox-esr), set FIREFOX_PATH, or open with browser "chromium".',
      );
    return path;
  }

  check(options: OpenOptions): void {
    this.path();
    const asked = askedVersion(options);
    if (asked && asked.value !== this.version)
      throw new OpError(
        'unsupported',
        `The local Firefox is the installed one${this.version ? ` (${this.version})` : ''}, not version ${asked.value} (asked by ${asked.by}); another version needs a Selenium Grid (GRID_URL, backend "grid"). Leave ${asked.by} out to use the installed one.`,
      );
  }

  /** Preferences go into the profile's user.js, which Firefox reads as it starts. */
  private startProcess(
    options: OpenOptions,
    prefs: Record<string, unknown>,
  ): Promise<FirefoxProcess> {
    const tempProfile = options.profileDir
      ? undefined
      : mkdtempSync(join(tmpdir(), 'swiftbrowse-firefox-'));
    const profile = options.profileDir ?? (tempProfile as string);
    mkdirSync(profile, { recursive: true });
    writeFileSync(
      join(profile, 'user.js'),
      Object.entries(prefs)
        .map(([k, v]) => prefLine(k, v))
        .join('\n') + '\n',
    );
    return FirefoxProcess.start(
      this.path(),
      profile,
      tempProfile,
      options.headless,
      options.insecure ?? false,
      this.startMs,
    );
  }

  /** A Firefox of the session's own: the idle one with its launch settings, or a new one. */
  private async firefoxFor(
    key: string,
    options: OpenOptions,
    prefs: Record<string, unknown>,
  ): Promise<FirefoxProcess> {
    const spare = this.spares.get(key);
    this.spares.delete(key);
    if (spare && (await spare.alive())) return spare;
    const started = await this.startProcess(options, prefs);
    started.onExit(() => {
      if (this.spares.get(key) === started) this.spares.delete(key);
    });
    return started;
  }

  /** A session's Firefox is kept for the next one when clean and none is kept yet; else ended. */
  private async release(key: string, firefox: FirefoxProcess, clean: boolean): Promise<void> {
    if (clean && !this.ending && !this.spares.has(key) && (await firefox.alive())) {
      this.spares.set(key, firefox);
      return;
    }
    await firefox.end();
  }

  async open(options: OpenOptions): Promise<BrowserSession> {
    this.check(options);
    const path = this.path();
    try {
      mkdirSync(options.downloadsDir, { recursive: true });
    } catch {
      // A folder that cannot be made fails the downloads (said then), not the browser.
    }
    const optionPrefs = { ...LOCAL_PREFS, ...firefoxOptionPrefs(options) };
    const prefs = { ...optionPrefs, 'browser.download.dir': options.downloadsDir };
    const key = JSON.stringify([options.headless, options.insecure ?? false, optionPrefs]);
    const firefox = options.profileDir
      ? await this.startProcess(options, prefs)
      : await this.firefoxFor(key, options, optionPrefs);
    this.version = firefox.version;
    let userContext: string | undefined;
    try {
      if (!options.profileDir) {
        ({ userContext } = await firefox.bidi.call<{ userContext: string }>(
          'browser.createUserContext',
          {},
        ));
        await firefox.bidi.call('browser.setDownloadBehavior', {
          downloadBehavior: { type: 'allowed', destinationFolder: options.downloadsDir },
          userContexts: [userContext],
        });
      }
    } catch (e) {
      await firefox.end();
      throw fromWebDriver(e, 'Opening a Firefox user context');
    }
    const control = new FirefoxControl(firefox, userContext, (clean) =>
      this.release(key, firefox, clean),
    );
    try {
      const session = new WebDriverSession(
        control,
        firefox.bidi,
        userContext ?? 'local',
        { browser: 'firefox', version: firefox.version },
        launchReport(path, !!this.configuredPath, prefs, options),
        options.viewport,
        options.downloadsDir,
        { onGrid: false, userContext },
      );
      await session.start({
        setViewport: true,
        storageStatePath: options.storageStatePath,
        refuseNavigation: options.refuseNavigation,
        refuseRequest: options.refuseRequest,
        blockedHosts: this.blockedHosts,
        freshTab: true,
      });
      for (const s of this.sessions) if (s.isClosed()) this.sessions.delete(s);
      this.sessions.add(session);
      return session;
    } catch (e) {
      await control.end();
      throw fromWebDriver(e, 'Starting Firefox');
    }
  }

  attach(): Promise<BrowserSession | undefined> {
    return Promise.resolve(undefined); // a local browser ends with this process
  }

  /** The installed Firefox's version, from `--version` (it needs no profile nor display). */
  async info(): Promise<BrowserInfo> {
    if (!this.version) this.version = await firefoxVersion(this.path());
    return { backend: 'webdriver', browser: 'firefox', version: this.version };
  }

  async shutdown(): Promise<void> {
    this.ending = true;
    const all = [...this.sessions];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.close().catch(() => undefined)));
    const spares = [...this.spares.values()];
    this.spares.clear();
    await Promise.all(spares.map((f) => f.end().catch(() => undefined)));
  }
}

/** What a local Firefox was launched with, for the operator, as a Grid's capabilities report. */
function launchReport(
  path: string,
  pathFromConfig: boolean,
  prefs: Record<string, unknown>,
  options: OpenOptions,
): SentCapabilities {
  const optionPrefs = firefoxOptionPrefs(options);
  const sent: SentCapabilities['sent'] = [
    browserEntry(options),
    { key: 'executablePath', value: path, sources: [pathFromConfig ? 'config' : 'flow'] },
    { key: 'headless', value: options.headless, sources: ['option'] },
    {
      key: 'prefs',
      value: prefs,
      sources: Object.keys(optionPrefs).length ? ['flow', 'option'] : ['flow'],
    },
    { key: 'viewport', value: options.viewport, sources: ['option'] },
    { key: 'acceptInsecureCerts', value: options.insecure ?? false, sources: ['option'] },
  ];
  if (options.profileDir)
    sent.push({ key: 'profile', value: options.profileDir, sources: ['option'] });
  if (options.storageStatePath)
    sent.push({ key: 'storageState', value: options.storageStatePath, sources: ['option'] });
  return { asked: { browser: 'firefox', version: options.version ?? 'latest' }, sent, ignored: [] };
}

/** `firefox --version` says "Mozilla Firefox 153.8.0esr". */
export async function firefoxVersion(path: string): Promise<string> {
  const child = spawn(path, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const done = new Promise<void>((r) => child.once('close', () => r()));
  if ((await within(done, 10_000, 'late' as const)) === 'late') child.kill('SIGKILL');
  return /Firefox\s+(\S+)/.exec(out)?.[1] ?? 'unknown';
}
