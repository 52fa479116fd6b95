import type { TrackLine } from '../page/track-format.js';
import type { Stillness } from '../page/stillness.js';

/** A text track as read from one tab's document. */
export interface TrackSnapshot {
  tabId: string;
  documentId: string;
  url: string;
  lines: TrackLine[];
  prints: string[];
  /** The page's counters as it was read: a later read of a still page is skipped (track.ts). */
  still?: Stillness;
  /** Set when the walk ran out of time: the lines stop after this many elements. */
  cutAt?: number;
}

/**
 * What this caller has read (DESIGN §5): the fingerprints behind each address per tab (so a ref
 * can be checked), the last track per tab (the baseline of the next diff), and every string
 * already shown with the page it was first shown on (so a navigation need not repeat it).
 */
export class ReadingMemory {
  private readonly refs = new Map<string, { documentId: string; prints: Map<string, string> }>();
  private readonly last = new Map<string, TrackSnapshot>();
  private readonly shown = new Map<string, string>();

  /**
   * Remembers what the caller was shown. A snapshot (`explicit`) makes every address it read a
   * ref. A change shows only some lines: their addresses become refs, but an address that now
   * holds a different element than the caller read there is dropped — acting on it could hit
   * the wrong element, so it is stale until the next snapshot.
   */
  remember(track: TrackSnapshot, shownLines: readonly TrackLine[], explicit: boolean): void {
    let book = this.refs.get(track.tabId);
    if (!book || book.documentId !== track.documentId) {
      book = { documentId: track.documentId, prints: new Map() };
      this.refs.set(track.tabId, book);
    }
    const shownAt = new Set(shownLines.map((l) => l.address));
    track.lines.forEach((l, i) => {
      const print = track.prints[i];
      const known = book.prints.get(l.address);
      if (explicit) book.prints.set(l.address, print);
      else if (known !== undefined && known !== print) book.prints.delete(l.address);
      else if (shownAt.has(l.address)) book.prints.set(l.address, print);
    });
    for (const l of shownLines) if (!this.shown.has(l.text)) this.shown.set(l.text, track.url);
  }

  /** Refs handed out one by one (find, outline): each checked later against its print. */
  rememberRefs(
    tabId: string,
    documentId: string,
    refs: readonly { ref: string; print: string }[],
  ): void {
    let book = this.refs.get(tabId);
    if (!book || book.documentId !== documentId) {
      book = { documentId, prints: new Map() };
      this.refs.set(tabId, book);
    }
    for (const r of refs) book.prints.set(r.ref, r.print);
  }

  setBaseline(track: TrackSnapshot): void {
    this.last.set(track.tabId, track);
  }

  baseline(tabId: string): TrackSnapshot | undefined {
    return this.last.get(tabId);
  }

  /**
   * The fingerprint an address was last read with on this tab, and the document it was read on:
   * the page checks that document is still the one shown (one call instead of two).
   */
  shownRef(tabId: string, address: string): { documentId: string; print: string } | undefined {
    const book = this.refs.get(tabId);
    const print = book?.prints.get(address);
    return book && print !== undefined ? { documentId: book.documentId, print } : undefined;
  }

  /** The fingerprint an address was read with on this tab's current document. */
  printOf(tabId: string, documentId: string, address: string): string | undefined {
    const shown = this.shownRef(tabId, address);
    return shown?.documentId === documentId ? shown.print : undefined;
  }

  /** The page a string was first shown on, if it was. */
  firstShownOn(text: string): string | undefined {
    return this.shown.get(text);
  }

  /** The browser is gone: its addresses mean nothing now; what was shown stays shown. */
  forgetPages(): void {
    this.refs.clear();
    this.last.clear();
  }
}
