/**
 * The work's answer, or `late` when it has none within `ms`. The work is not stopped, and a
 * failure it meets after that is dropped: a page that does not answer (a navigation Chromium is
 * holding, a hung renderer) must not hold the op that asked.
 */
export function within<T, L>(work: Promise<T>, ms: number, late: L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  work.catch(() => undefined);
  return Promise.race([
    work,
    new Promise<L>((resolve) => {
      timer = setTimeout(() => resolve(late), Math.max(0, ms));
    }),
  ]).finally(() => clearTimeout(timer));
}
