/**
 * The browser's own timers, taken when the page API loads, before activity.ts counts the page's
 * timers: SwiftBrowse's waits in the page are not work an action started.
 */
export const ownSetTimeout: (run: () => void, ms: number) => number = setTimeout.bind(globalThis);
export const ownClearTimeout: (id: number) => void = clearTimeout.bind(globalThis);
export const ownRequestAnimationFrame: (run: () => void) => number =
  requestAnimationFrame.bind(globalThis);
export const ownQueueMicrotask: (run: () => void) => void = queueMicrotask.bind(globalThis);
