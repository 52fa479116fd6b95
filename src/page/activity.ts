import type { ActivityMark } from './protocol.js';

/** Identifies this document: a new one after a navigation has a new id. */
const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

export function documentId(): string {
  return id;
}

let observer: MutationObserver | null = null;
let mutations = 0;
let lastMutation = performance.now();

/** Starts (or restarts) counting DOM mutations, to tell when a page has gone quiet. */
export function mark(): void {
  mutations = 0;
  lastMutation = performance.now();
  if (observer) return;
  observer = new MutationObserver((records) => {
    mutations += records.length;
    lastMutation = performance.now();
  });
  observer.observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  });
}

export function activity(): ActivityMark {
  if (!observer) mark();
  return { mutations, sinceLastMutationMs: performance.now() - lastMutation, documentId: id };
}

/** Mutations since the last mark and this document's id, then a new mark: one call per action. */
export function checkpoint(): { documentId: string; mutations: number } {
  const { mutations } = activity();
  mark();
  return { documentId: id, mutations };
}
