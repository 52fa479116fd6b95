import type { BrowserLoss, FramePath } from '../driver.js';

/** What a crash check says: classic WebDriver's "tab crashed", or no word in time. */
export type CrashVerdict = 'crashed' | 'alive' | 'unanswered';

/** Files a download sync brought into the session's folder, and those it could not write, with why. */
export interface CollectedDownloads {
  got: string[];
  unwritten: [name: string, why: string][];
}

/**
 * What a BiDi-driven browser needs besides its BiDi socket: on a Grid, classic WebDriver (liveness,
 * crash checks, uploads through the node, the node's downloads); for a local Firefox, its process.
 * One BiDi session implementation runs over either; this is the only difference.
 */
export interface SessionControl {
  /** Whether the browser session still exists (asked while a BiDi command goes unanswered). */
  alive(): Promise<boolean>;
  pageCrashed(context: string): Promise<CrashVerdict>;
  /** Absent when the browser reads this machine's disk: the tab sets files over BiDi. */
  setInputFiles?(
    context: string,
    frames: FramePath,
    handle: number,
    paths: string[],
  ): Promise<void>;
  /** Brings finished downloads into `dir`; `have` names the files already brought. */
  collectDownloads(dir: string, have: ReadonlySet<string>): Promise<CollectedDownloads>;
  /** Why the browser went away, asked once it did (a Grid: whether its node still answers). */
  lossCause?(): Promise<BrowserLoss | undefined>;
  /** Ends the browser session (and a local browser's process). */
  end(): Promise<void>;
}
