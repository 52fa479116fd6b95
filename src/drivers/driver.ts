/**
 * The Driver seam (DESIGN §7.1): the few things a backend must do. Locating, probing, reading
 * and diffing are built above it from the in-page script, so every backend behaves alike.
 */

/** A frame as a path of iframe handles from the main frame; [] is the main frame. */
export type FramePath = readonly number[];

export type MouseButton = 'left' | 'right' | 'middle';

export interface OpenOptions {
  headless: boolean;
  viewport: { width: number; height: number };
  /** Where this session's downloads land. */
  downloadsDir: string;
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

/** Counters a settle wait reads before and after an action. */
export interface TabActivity {
  requestsStarted: number;
  requestsInFlight: number;
  /** Main-frame navigations committed or started. */
  navigations: number;
  /** Outcome of the last main-frame document load. */
  lastNavigation?: NavigationOutcome & { url: string };
}

export interface ScreenshotOptions {
  fullPage?: boolean;
  clip?: { x: number; y: number; width: number; height: number };
  type: 'png' | 'jpeg';
  quality?: number;
}

export interface BrowserTab {
  readonly id: string;
  url(): string;
  title(): Promise<string>;
  goto(url: string, timeoutMs: number): Promise<NavigationOutcome>;
  /** Null when there was no history entry to go to. */
  back(timeoutMs: number): Promise<NavigationOutcome | null>;
  forward(timeoutMs: number): Promise<NavigationOutcome | null>;
  reload(timeoutMs: number): Promise<NavigationOutcome>;
  /** Evaluates a JavaScript expression in a frame; a promise it returns is awaited. */
  evaluate(frame: FramePath, expression: string): Promise<unknown>;
  mouseMove(x: number, y: number): Promise<void>;
  mouseDown(button: MouseButton, clickCount: number): Promise<void>;
  mouseUp(button: MouseButton, clickCount: number): Promise<void>;
  wheel(dx: number, dy: number): Promise<void>;
  keyDown(key: string): Promise<void>;
  keyUp(key: string): Promise<void>;
  insertText(text: string): Promise<void>;
  screenshot(options: ScreenshotOptions): Promise<Buffer>;
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
  bringToFront(): Promise<void>;
  close(): Promise<void>;
  isClosed(): boolean;
}

/** One session's browser: an isolated context with its tabs. */
export interface BrowserSession {
  tabs(): BrowserTab[];
  newTab(): Promise<BrowserTab>;
  /** Called for tabs the page opened itself (target=_blank, window.open). */
  onTabOpened(listener: (tab: BrowserTab) => void): void;
  close(): Promise<void>;
  isClosed(): boolean;
}

export interface BrowserInfo {
  backend: 'playwright' | 'webdriver';
  browser: string;
  version: string;
}

export interface Driver {
  readonly backend: 'playwright' | 'webdriver';
  open(options: OpenOptions): Promise<BrowserSession>;
  info(): Promise<BrowserInfo>;
  shutdown(): Promise<void>;
}
