import { OPS_URI, SECRETS_URI, SESSION_URI } from './resources.js';
import type { ToolSet } from './tools.js';

/**
 * Sent once on initialize; most clients put it in the system prompt, so orientation is paid for
 * once instead of riding on every tool schema each turn (seed 003, MCP). It says only what the
 * tools list does not: target forms, conditions and each op's arguments are there already.
 */
export function instructionsFor(set: ToolSet): string {
  const calling =
    set === 'compact'
      ? 'Call ops with browser_run: {"op": "click", "args": {...}}, or {"steps": [...]} for a known sequence in one round trip.'
      : 'Each op is a tool named browser_<op>; browser_batch runs a list of ops in one round trip.';
  return `SwiftBrowse drives a real browser for you. ${calling}

- The browser is this connection's session: it opens on the first op and keeps its tabs and logins between calls.
- Name elements as a person would (role and name, label, text). A ref comes from the latest snapshot, find or outline and dies with the page.
- An answer is compact JSON: ok; data (after an action data.changes holds the text that appeared, not the page again: read it and the notes before acting further); error (a message naming the next move); notes (navigated, new_tab, dialog_open...); page only when the URL, title or tab changed; target only what your call did not name; verification only when checked. "detail": "full" on any call answers with the whole ActionResult.
- Without expect an action is not_checked: the input was delivered, the outcome unconfirmed. Take a snapshot when the changes do not tell you enough.
- Sign in without seeing a password: read ${SECRETS_URI}, then fill {"target": {"label": "Password"}, "secret": {"name": "...", "key": "password"}}.
- A consequential click or Enter (delete, pay, send, publish...) fails with approval_required: ask your user, then repeat it with "approved": true.
- status names the saved flows_here for this page; flow_run {name, params} flies one in one call.
- Every op takes timeout (ms, default 10000); acting ops take diff (false: no data.changes), element_diff (changed tags and attributes), include_removed (the strings that left). ${OPS_URI} has every op's arguments, ${SESSION_URI} this session's status, skill://swiftbrowse/SKILL.md the guide.`;
}
