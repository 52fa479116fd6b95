import { OpError } from './errors.js';

/** Words that make a click or Enter destructive or transactional (DESIGN §3.6): the default of CONSEQUENTIAL_WORDS. */
export const CONSEQUENTIAL_WORDS = [
  'delete',
  'remove',
  'destroy',
  'erase',
  'pay',
  'buy',
  'purchase',
  'place order',
  'checkout',
  'check out',
  'send',
  'transfer',
  'publish',
  'unsubscribe',
  'close account',
  'cancel subscription',
  'confirm payment',
] as const;

/** The consequential word a text contains, matched as whole words, case-insensitively. */
export function consequentialWord(texts: string[], words: readonly string[]): string | undefined {
  for (const text of texts) {
    const lower = text.toLowerCase();
    const hit = words.find((w) => {
      const word = w
        .toLowerCase()
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replace(/ +/g, '\\s+');
      return new RegExp(`(^|[^a-z])${word}($|[^a-z])`).test(lower);
    });
    if (hit) return hit;
  }
  return undefined;
}

export function approvalError(op: string, what: string, word: string): OpError {
  return new OpError(
    'approval_required',
    `${op} on ${what} looks consequential ("${word}"). Ask your user to confirm this exact action, then repeat the call with approved: true.`,
  );
}
