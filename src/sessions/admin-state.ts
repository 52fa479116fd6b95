import type { EndedBy } from './browser-record.js';
import type { BrowserState } from './store.js';

export const ADMIN_STATES = ['open', 'busy', 'closed', 'ended'] as const;
export type AdminState = (typeof ADMIN_STATES)[number];

export interface StateFacts {
  /** An op is running in the session now. */
  busy: boolean;
  /** The session holds a browser that answers, in this process. */
  hasBrowser: boolean;
  browserState: BrowserState;
  endedBy?: EndedBy;
}

/**
 * A session's browser as the operator's list shows it: `busy` while an op runs, `open` with a
 * browser, `ended` when something other than the caller's own close ended it (an operator, idle
 * release, the Grid, a crash, a stuck page), else `closed`.
 */
export function adminState(facts: StateFacts): AdminState {
  if (facts.busy) return 'busy';
  if (facts.hasBrowser) return 'open';
  if (facts.browserState === 'lost' || facts.browserState === 'released') return 'ended';
  if (facts.endedBy && facts.endedBy !== 'caller') return 'ended';
  return 'closed';
}
