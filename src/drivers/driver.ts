/**
 * The Driver seam (DESIGN §7.1): the few things a backend must do. Locating, probing, reading
 * and diffing are built above it from the in-page script, so every backend behaves alike.
 */
import { OpError } from '../core/errors.js';

/** A frame as a path of iframe handles from the main frame; [] is the main frame. */
export type FramePath = readonly number[];

export type MouseButton = 'left' | 'right' | 'middle';

/** Browsers a session may ask for; a backend refuses one it cannot run with `unsupported`. */
export const BROWSER_NAMES = ['chromium', 'chrome', 'edge', 'firefox'] as const;
export type BrowserName = (typeof BROWSER_NAMES)[number];

/**
 * The version a local browser is asked to be, and who asked: `open`'s version over the HTTP
 * caller's (X-Version, `?version=`), as on the Grid; "latest" asks for none. The local backend
 * runs what is installed, so it refuses any other, from either layer, the same way.
 */
export function askedVersion(
  options: Pick<OpenOptions, 'version' | 'clientVersion'>,
): { value: string; by: string } | undefined {
  const [value, by] = options.version
    ? [options.version, 'version']
    : [options.clientVersion, 'X-Version (or ?version=)'];
  return value && value !== 'latest' ? { value, by } : undefined;
}

export interface OpenOptions {
  /** The session this browser serves (a Grid sees it as `se:swiftbrowseSession`). */
  session: string;
  browser: BrowserName;
  /** A browser version to ask for; undefined means whatever the backend has. */
  version?: string;
  /** The HTTP caller's version (X-Version, `?version=`): under `version`, over SESSION_VERSION. */
  clientVersion?: string;
  /** Who chose `browser` (settings.ts browserFrom); absent: the open's option. */
  browserFrom?: 'server' | 'client' | 'option';
  headless: boolean;
  viewport: { width: number; height: number };
  /** Where this session's downloads land. */
  downloadsDir: string;
  locale?: string;
  userAgent?: string;
  /** A storage-state JSON file (cookies, local storage) to start from. */
  storageStatePath?: string;
  /** A persistent profile directory: the session gets a browser process of its own. */
  profileDir?: string;
  /** Accept invalid TLS certificates. */
  insecure?: boolean;
  /** WebDriver-only named options and raw capabilities (seed 004); other backends ignore them. */
  webdriver?: {
    record?: boolean;
    pageLoadTimeoutMs?: number;
    scriptTimeoutMs?: number;
    capabilities?: Record<string, unknown>;
  };
  /**
   * The server's URL policy: called for every main-frame navigation (redirects, `location=`,
   * `window.open`, new tabs); a returned reason means the driver must stop it before it loads.
   */
  refuseNavigation?: (url: string) => string | undefined;
  /**
   * Called for every other request a page makes (frames, scripts, fetch) while the policy is
   * active: a returned reason means the driver fails it before it is sent (`file:` outside
   * FILE_URL_DIRS, metadata addresses).
   */
  refuseRequest?: (url: string) => string | undefined;
  /** Told while opening takes long (a Grid queue), for progress notifications. */
  onProgress?: (message: string) => void;
  /** The caller went away (HTTP disconnect, MCP cancel): stop waiting, end any browser that comes. */
  signal?: AbortSignal;
}

/** What actually ran, for `status`. */
export interface RunningBrowser {
  browser: string;
  version: string;
  /** Where it runs when that is not this machine (a Grid node URI). */
  node?: string;
}

export interface NavigationOutcome {
  /** HTTP status of the main document, when one arrived. */
  status?: number;
  /** The network error that stopped the load (net::ERR_NAME_NOT_RESOLVED…). */
  error?: string;
}

export interface DialogInfo {
  type: 'alert' | 'confirm' | 'prompt' | 'beforeunload';
  message: string;
  default_value?: string;
}

export interface DialogAnswer {
  accept: boolean;
  text?: string;
}

/** Dialogs a tab dismissed by itself (DialogGate): in a navigation's way, or in a storm. */
export interface DismissedDialogs {
  count: number;
  last: DialogInfo;
  /** The page opened them faster than ops could answer them one at a time. */
  storm: boolean;
}

/** Counters a settle wait reads before and after an action. */
export interface TabActivity {
  requestsStarted: number;
  /** Of those, the ones that are not a main-frame navigation (a script, an image, a fetch). */
  resourcesStarted: number;
  requestsInFlight: number;
  /** Main-frame navigations committed or started. */
  navigations: number;
  /** Outcome of the last main-frame document load. */
  lastNavigation?: NavigationOutcome & { url: string };
  /**
   * The URL of a main-frame navigation whose server has not answered yet. Chromium holds every
   * command to the page until it does: no script runs in it, the old document or the new.
   */
  awaitingServer?: string;
  /** Main-frame navigations started so far (an action's own are those past its baseline). */
  navigationsSent: number;
}

/**
 * A page call on a tab whose main-frame navigation is waiting for its server, or in flight when
 * one starts to: Chromium runs no script in such a page (the old document or the new) until the
 * server answers, so the driver fails the call at once instead of letting it hang.
 */
export class AwaitingServerError extends OpError {
  constructor(readonly url: string) {
    super(
      'timeout',
      `The page is still loading ${url}: its server has not answered, and the page takes no commands until it does. Wait and try again, or goto another page.`,
      { details: { awaiting_url: url } },
    );
  }
}

/**
 * A goto, reload, back or forward that did not reach DOMContentLoaded within its navigation
 * timeout; every backend answers it in these words.
 */
export function navigationTimeout(doing: string, ms: number): OpError {
  return new OpError(
    'timeout',
    `${doing} timed out after ${ms} ms: the page did not finish loading (a slow server or a heavy page). It may still load: read the page to see what the tab shows, or try again with a longer timeout.`,
    { details: { timeout_ms: ms } },
  );
}

/**
 * Every capture (screenshot, frame, PDF) applies this: a field a secret was typed into (marked
 * by the page script's markSecretField) is drawn without its text. Backends inject it for the
 * capture only.
 */
export const SECRET_FIELD_CSS =
  '[data-swiftbrowse-secret]{color:transparent!important;-webkit-text-fill-color:transparent!important;text-shadow:none!important;caret-color:transparent!important}';

/**
 * How much a viewport capture is scaled: frames are at most `maxWidth` CSS pixels wide, whatever
 * the viewport and the device scale factor. Every backend's captureViewport applies it.
 */
export function frameScale(viewportWidth: number, maxWidth: number): number {
  return Math.min(1, maxWidth / viewportWidth);
}

export interface ScreenshotOptions {
  fullPage?: boolean;
  clip?: { x: number; y: number; width: number; height: number };
  type: 'png' | 'jpeg';
  quality?: number;
  /** Told how many elements showing a typed secret as their own text were drawn blank. */
  onEchoes?: (count: number) => void;
}

/** Console levels, most severe first; every backend maps its own onto these. */
export const CONSOLE_LEVELS = ['error', 'warning', 'info', 'log', 'debug', 'trace'] as const;
export type ConsoleLevel = (typeof CONSOLE_LEVELS)[number];

/** One console message, or an uncaught error (`source: 'pageerror'`, level `error`). */
export interface ConsoleEntry {
  level: ConsoleLevel;
  text: string;
  source: 'console' | 'pageerror';
  /** Where it was logged or thrown: script URL and 1-based line, when known. */
  url?: string;
  line?: number;
  /** Epoch ms. */
  at: number;
}

/** What a request fetched, as the browser classifies it; anything else is `other`. */
export const RESOURCE_TYPES = [
  'document',
  'stylesheet',
  'image',
  'media',
  'font',
  'script',
  'xhr',
  'fetch',
  'eventsource',
  'websocket',
  'manifest',
  'texttrack',
  'other',
] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

/** One request; `status`, `failure`, `duration_ms` and `size` fill in as it completes. */
export interface NetworkEntry {
  method: string;
  url: string;
  resource_type: ResourceType;
  /** HTTP status of the response, once one arrived. */
  status?: number;
  /** Why it failed: the browser's error text (net::ERR_CONNECTION_REFUSED, blocked…). */
  failure?: string;
  /** From request start to the last byte or the failure. */
  duration_ms?: number;
  /** Response body bytes as received (compressed if the server compressed), when known. */
  size?: number;
  /** Epoch ms when the request started. */
  at: number;
}

/** A request that failed: refused, blocked or aborted, or answered with an HTTP 4xx/5xx. */
export const requestFailed = (e: NetworkEntry): boolean =>
  e.failure !== undefined || (e.status ?? 0) >= 400;

/**
 * A tab's bounded buffer: entries oldest first, and how many older ones were pushed out since
 * the tab opened or the buffer was last cleared.
 */
export interface EntryBuffer<T> {
  entries: readonly T[];
  dropped: number;
}

/**
 * How long a title read waits for the page. Chromium holds every command to a page whose
 * navigation waits for its server, so a slow form post would otherwise hold the op's answer.
 */
export const TITLE_WAIT_MS = 1000;

/**
 * What `interrupt()` found on a page that ran past an op's time: it answers (nothing stuck: a
 * slow promise, a navigation waiting for its server), it is still laying out a large document
 * (nothing to stop), its stuck script was stopped (the page and its state stay), it is stuck
 * and the backend cannot stop it (the tab has to go), or neither the page nor its browser answered
 * (nothing is known: a starved machine reads so).
 */
export type InterruptOutcome = 'answering' | 'rendering' | 'stopped' | 'stuck' | 'unanswered';

/** How long `interrupt()` lets the page answer a trivial script before calling it stuck. */
export const PROBE_WAIT_MS = 300;
/**
 * What an interrupt keeps of its wait, after the questions' due time, for sending the stop itself.
 * A stop not sent by then is not sent: the caller has answered that nothing was stopped.
 */
export const STOP_MS = 300;

export interface BrowserTab {
  readonly id: string;
  /** The document's URL; on the browser's own error page, the URL that failed to load. */
  url(): string;
  /** True while the tab shows the browser's error page for a load that failed. */
  showsErrorPage(): boolean;
  /** The document's title, or the last one read when the page does not answer in TITLE_WAIT_MS. */
  title(): Promise<string>;
  /** The title last read, without asking the page: for an answer that cannot wait on it. */
  knownTitle(): string;
  /** A page call on the main frame, sent at `sentAt` (epoch ms), read the title on its way back. */
  titleRead(title: string, sentAt: number): void;
  /**
   * The title a main-frame page call sent at or after `since` read, on the document the tab
   * shows now; undefined when none did (ask with title()).
   */
  titleReadSince(since: number): string | undefined;
  goto(url: string, timeoutMs: number): Promise<NavigationOutcome>;
  /** Null when there was no history entry to go to. */
  back(timeoutMs: number): Promise<NavigationOutcome | null>;
  forward(timeoutMs: number): Promise<NavigationOutcome | null>;
  reload(timeoutMs: number): Promise<NavigationOutcome>;
  /**
   * Evaluates a JavaScript expression in a frame; a promise it returns is awaited. Fails with
   * AwaitingServerError while a main-frame navigation waits for its server (also captures).
   */
  evaluate(frame: FramePath, expression: string): Promise<unknown>;
  mouseMove(x: number, y: number): Promise<void>;
  mouseDown(button: MouseButton, clickCount: number): Promise<void>;
  mouseUp(button: MouseButton, clickCount: number): Promise<void>;
  wheel(dx: number, dy: number): Promise<void>;
  keyDown(key: string): Promise<void>;
  keyUp(key: string): Promise<void>;
  insertText(text: string): Promise<void>;
  /** Types text as a person does: each character a key press (keydown, input, keyup). */
  typeText(text: string): Promise<void>;
  screenshot(options: ScreenshotOptions): Promise<Buffer>;
  /**
   * A JPEG of the viewport exactly as it is, scaled down to at most `maxWidth` pixels: nothing in
   * the page is paused, finished or injected, so taking one after every action changes nothing.
   */
  captureViewport(options: { maxWidth: number; quality: number }): Promise<Buffer>;
  /**
   * The viewport as the compositor last painted it, for the session log: a JPEG at most
   * `maxWidth` wide from a screencast started for this one frame and stopped after it, so nothing
   * runs in the page (one busy in script still gives a frame) and nothing is encoded between ops,
   * however much the page animates. Absent on a backend without a screencast; undefined when no
   * frame came. Fields holding a secret are not blanked (captureViewport's are).
   */
  paintedFrame?(options: { maxWidth: number; quality: number }): Promise<Buffer | undefined>;
  pdf(): Promise<Buffer>;
  viewport(): { width: number; height: number };
  setViewport(width: number, height: number): Promise<void>;
  /** Sets files on the input element held under `handle` in `frame`. */
  setInputFiles(frame: FramePath, handle: number, paths: string[]): Promise<void>;
  /** Network and navigation counters; in-flight counts only requests numbered after `since`. */
  activity(since?: number): TabActivity;
  /** The dialog blocking this tab, if any. */
  pendingDialog(): DialogInfo | undefined;
  answerDialog(answer: DialogAnswer): Promise<void>;
  /** Answers the next dialog as it opens, once. */
  armDialog(answer: DialogAnswer): void;
  /** Dialogs the tab dismissed by itself since the last call (in a navigation's way, a storm). */
  takeDismissedDialogs(): DismissedDialogs | undefined;
  /** True once the page's renderer died; every call then fails until the tab is replaced. */
  crashed(): boolean;
  /**
   * Stops script stuck in the page (an endless loop, a catastrophic regex), in every frame, so
   * the calls waiting on it fail and the page takes commands again. A page that answers is left
   * alone: stopping is only ever done to a page that does not. `due` (epoch ms) is when the
   * caller needs the answer: the questions asked fit before it.
   */
  interrupt(due?: number): Promise<InterruptOutcome>;
  /**
   * Console messages and uncaught errors since the tab opened (so from document start of every
   * load), bounded (the oldest are dropped); `clear` empties the buffer after reading it.
   */
  consoleEntries(options?: { clear?: boolean }): EntryBuffer<ConsoleEntry>;
  /** Requests since the tab opened, bounded like the console; `clear` empties after reading. */
  networkEntries(options?: { clear?: boolean }): EntryBuffer<NetworkEntry>;
  bringToFront(): Promise<void>;
  close(): Promise<void>;
  isClosed(): boolean;
}

/** A file a page downloaded, saved under the name the site gave it into `downloadsDir`. */
export interface DownloadRecord {
  name: string;
  state: 'saving' | 'saved' | 'failed';
  /** Why it failed (the site aborted it, the name could not be a file name…). */
  error?: string;
  /** The backend cannot bring the file here (a Grid node without managed downloads); `error` says where it is. */
  unsupported?: true;
}

/** What a backend sent to open a browser (seed 004): the operator's view, not a model's. */
export interface CapabilitiesReport {
  asked: { browser: string; version: string };
  sent: readonly { key: string; value: unknown; sources: readonly string[] }[];
  /** Entries of the caller's or the config's that SwiftBrowse's own values beat. */
  ignored: readonly string[];
  /** A Grid video asked for (`record`): its name, and whether the Grid's answer kept se:recordVideo. */
  video?: { name: string; accepted: boolean };
}

/** A local launch report's first entry: the browser, and who chose it (BROWSER, X-Browser, open). */
export function browserEntry(options: OpenOptions): {
  key: string;
  value: unknown;
  sources: ('server' | 'client' | 'option')[];
} {
  return { key: 'browser', value: options.browser, sources: [options.browserFrom ?? 'option'] };
}

/** A storage state (Playwright's JSON shape): what `open {storage_state}` starts a browser from. */
export interface StorageState {
  cookies: ({ name: string; value: string; domain: string } & Record<string, unknown>)[];
  origins: { origin: string; localStorage: { name: string; value: string }[] }[];
}

/** Why a browser went away that nobody here closed, as its backend found out by asking. */
export interface BrowserLoss {
  /** The Grid node that held it stopped answering (killed, its machine or pod lost). */
  reason: 'node_lost';
  /** The node's URI, as the Grid listed it. */
  node: string;
  /** What the node and the Grid say now: "it does not answer: …; the Grid still lists it as UP". */
  detail: string;
}

/** One session's browser: an isolated context with its tabs. */
export interface BrowserSession {
  tabs(): BrowserTab[];
  /** Downloads the pages started, oldest first (DESIGN §11); they land in `downloadsDir`. */
  downloads(): readonly DownloadRecord[];
  /** Resolves once every download started so far has been saved or has failed. */
  downloadsSettled(): Promise<void>;
  newTab(): Promise<BrowserTab>;
  /**
   * A new blank tab in the place of `tab`, crashed or stuck in script: same id, same cookies (a
   * stuck one is closed first; its place among the tabs may change).
   */
  replaceTab(tab: BrowserTab): Promise<BrowserTab>;
  /** Called for tabs the page opened itself (target=_blank, window.open). */
  onTabOpened(listener: (tab: BrowserTab) => void): void;
  /** Cookies of every origin and local storage, as Playwright's storage-state JSON holds them. */
  storageState(): Promise<StorageState>;
  /**
   * What a store keeps to find this browser again after a server restart (a Grid session id);
   * undefined when the browser cannot outlive this process.
   */
  handle(): string | undefined;
  running(): RunningBrowser;
  /** What opened the browser: a WebDriver backend's capabilities, Playwright's launch options. */
  sentCapabilities?(): CapabilitiesReport | undefined;
  /** The Grid's session id and whether the Grid offers a live view (VNC) of it; operator-only. */
  gridSession?(): { id: string; liveView: boolean } | undefined;
  close(): Promise<void>;
  /** True after close() and also when the browser died or was taken away. */
  isClosed(): boolean;
  /** Once it is closed without close(): why, when the backend can ask (a Grid: its node). */
  lossCause?(): Promise<BrowserLoss | undefined>;
}

export interface BrowserInfo {
  backend: 'playwright' | 'webdriver';
  browser: string;
  version: string;
}

export interface Driver {
  readonly backend: 'playwright' | 'webdriver';
  open(options: OpenOptions): Promise<BrowserSession>;
  /**
   * Refuses options it could never open (a browser or version it lacks, a profile it cannot hold,
   * owned capability keys…), before anything is ended.
   */
  check?(options: OpenOptions): Promise<void> | void;
  /** Re-attaches to the browser a `handle()` named; undefined when it is gone (reaped, ended). */
  attach(handle: string, options: OpenOptions): Promise<BrowserSession | undefined>;
  info(): Promise<BrowserInfo>;
  shutdown(): Promise<void>;
}
