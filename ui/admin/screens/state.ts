import type { SessionState, SessionSummary } from '../contract.js';

/**
 * A session's browser state. Servers with the `api` branch say it (`state`); older ones say
 * `browser` (open, closed, lost, released) and `busy`, read here the same way.
 */
export function stateOf(s: SessionSummary): SessionState {
  if (s.state) return s.state;
  if (s.busy) return 'busy';
  if (s.browser === 'open') return 'open';
  if (s.browser === 'lost' || s.browser === 'released') return 'ended';
  return 'closed';
}

/** A finished session (no browser, none starting) is one whose directory may be deleted. */
export const isFinished = (s: SessionSummary) => {
  const state = stateOf(s);
  return state === 'closed' || state === 'ended';
};
