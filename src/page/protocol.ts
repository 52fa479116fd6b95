/**
 * What the server and the in-page script say to each other. Types and constants only: imported by
 * Node code and by the page bundle alike, so nothing here may touch the DOM.
 */

/**
 * More dialogs than this, nobody armed an answer for, opened within STORM_WINDOW_MS, make a storm:
 * a page that raises dialogs faster than ops can answer them one at a time.
 */
export const STORM_DIALOGS = 5;
export const STORM_WINDOW_MS = 2000;

export type TextMatcher = { exact: string } | { regex: string; flags: string };

export type PageStrategy =
  'role' | 'text' | 'label' | 'placeholder' | 'testid' | 'css' | 'xpath' | 'ref';

export interface PageTarget {
  strategy: PageStrategy;
  /** The strategy's value: a role, selector, address or (for text strategies) unused. */
  value: string;
  match?: TextMatcher;
  name?: TextMatcher;
  near?: TextMatcher;
  /** For `ref`: the fingerprint the element was read with. */
  print?: string;
  /** For `ref`: the document (its id) the address was read on; another one answers OTHER_DOCUMENT. */
  document?: string;
}

/** What a ref's locate answers as `stale` when the page now shows another document. */
export const OTHER_DOCUMENT = 'the page is another document now';

export interface ElementInfo {
  handle: number;
  /** Set on the server for an element found by ref. */
  ref?: string;
  tag: string;
  role?: string;
  name?: string;
  text?: string;
  visible: boolean;
  /** A short CSS-like description, e.g. `button#save.primary`. */
  desc: string;
}

export interface LocateResult {
  /** Matches in document order; visible ones only when any is visible. */
  matches: ElementInfo[];
  /** Matches before hidden duplicates were dropped. */
  total: number;
  /** For a failed `role` search: elements of that role and their names (near misses). */
  sameRole?: string[];
  error?: string;
  /** For `ref`: why the address no longer holds the element that was read. */
  stale?: string;
  /** Present when the search ran out of time: it looked at this many elements and stopped. */
  cut?: { elements: number };
}

export type Blocker =
  | 'detached'
  | 'hidden'
  | 'zero_size'
  | 'disabled'
  | 'readonly'
  | 'covered'
  | 'moving'
  | 'offscreen';

export interface Actionability {
  ok: boolean;
  blocker?: Blocker;
  /** One sentence: what blocks the element and what to try. */
  message?: string;
  /** Centre of the element in its frame's viewport. */
  point?: { x: number; y: number };
  box?: { x: number; y: number; width: number; height: number };
}

export interface ProbeOptions {
  /** Require the element to be enabled (clicks and fills). */
  enabled: boolean;
  /** Require the centre to receive events (pointer gestures). */
  hitTest: boolean;
  /** Require an editable control (fill). */
  editable?: boolean;
  /**
   * Wait for the box to hold still over two frames (default). Off for input that needs no point:
   * keys into a focused element, text typed into a field focused by script.
   */
  stable?: boolean;
}

/** What an action activates, for the approval check: a click on the element, or Enter in it. */
export type Activation = 'click' | 'enter';

/** What an acting op asks of `locateActionable` besides the probe. */
export interface ActRequest {
  /** The target's nth, when it gives one. */
  nth?: number;
  probe: ProbeOptions;
  /** Read the texts the approval check judges (`intentTexts`). */
  intent?: boolean;
  /** Read whether a click opens a new tab (`opensNewTab`). */
  popup?: boolean;
  /** Read the control's kind and value (`controlInfo`). */
  control?: boolean;
  /** With `control`: a control that takes typed text is focused for typing (`focusForTyping`). */
  typing?: boolean;
}

/** The matches; the probe's verdict when one was picked; the reads asked for once it passed. */
export interface ActAnswer {
  located: LocateResult;
  verdict?: Actionability;
  intent?: string[];
  popup?: boolean;
  control?: ControlInfo;
  /** Whether the control holds the focus after `typing` focused it. */
  focused?: boolean;
}

export type ControlKind =
  | 'text'
  | 'select'
  | 'checkbox'
  | 'radio'
  | 'direct'
  | 'contenteditable'
  | 'combobox'
  | 'file'
  | 'other';

export interface ControlInfo {
  kind: ControlKind;
  inputType?: string;
  checked?: boolean;
  multiple?: boolean;
  options?: { value: string; text: string }[];
  value?: string;
  password?: boolean;
}

/** A custom combobox as `fill` reads it (page/combobox.ts). */
export interface ComboboxState {
  /** The element typed into; null for a select-only combobox (no text entry). */
  entry: number | null;
  /** Its aria-autocomplete: none, list, inline or both. */
  autocomplete: string;
  /** The visible, enabled options it shows now, by accessible name. */
  options: { handle: number; name: string }[];
}

export interface ActivityMark {
  mutations: number;
  sinceLastMutationMs: number;
  /** fetch and XHR requests the page started since the mark, and those not answered yet. */
  requests: number;
  requestsOpen: number;
  /** Timers of 500 ms or less the action's handlers set and that have not run yet. */
  timersPending: number;
  /** Animation frames the action's handlers requested and that have not run yet. */
  framesPending: number;
  /**
   * Set by the look taken after the next frame: no mutation from the look's start through that
   * frame and a task after it.
   */
  quietThroughFrame?: boolean;
  /**
   * Navigations since the mark that may replace the document (not same-document ones, not ones the
   * page cancelled); absent without the Navigation API.
   */
  navigations?: number;
  /** This document's id: a new one after the action means it navigated. */
  documentId: string;
  /** Still being parsed (readyState "loading"): a slow or streamed body is still arriving. */
  parsing: boolean;
  /**
   * Its load event has not fired (readyState not "complete"): a frame, image or stylesheet of the
   * document is still on its way, whether or not the driver saw its request.
   */
  loadPending: boolean;
}

export interface FocusInfo {
  tag: string;
  desc: string;
  /** Whether the focused element is inside (or is) the given element. */
  inside: boolean;
}

/** How a secret went into a field: never the value, only whether it landed and where focus was. */
export type SecretTyping =
  | { typed: true; held?: false }
  | { typed: false; cause: 'focus' | 'stale' | 'not_editable'; focus?: string };
