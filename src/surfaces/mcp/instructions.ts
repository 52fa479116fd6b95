import { OPS_URI, SECRETS_URI, SESSION_URI } from './resources.js';
import type { ToolSet } from './tools.js';

/**
 * Sent once on initialize; most clients put it in the system prompt, so orientation is paid for
 * once instead of riding on every tool schema each turn (seed 003, MCP).
 */
export function instructionsFor(set: ToolSet): string {
  const calling =
    set === 'compact'
      ? 'Call ops with browser_run: {"op": "click", "args": {...}} for one, {"steps": [{"op", "args"}, ...]} for a known sequence in one round trip. browser_open, browser_close and browser_status manage the browser.'
      : 'Each op is a tool named browser_<op>; browser_batch runs a list of ops in one round trip.';
  return `SwiftBrowse drives a real browser for you. ${calling}

- The browser belongs to this connection's session, named in the client configuration (?session=NAME on the URL, X-Session-Key, or --session); it opens on the first op and keeps its tabs and logins between calls.
- Address elements as a person would: {"role": "button", "name": "Sign in"}, {"label": "Email"}, {"text": "Forgot password?"}, {"placeholder": "Search"}; css/xpath when nothing else fits. A ref (e.g. "AEDBa") comes from the latest snapshot, find or outline and dies with the page.
- Every call answers with one ActionResult: ok, page (url, title), data, error (kind, message that names the next move), notes (navigated, new_tab, dialog_open...). After an action, data.changes holds the text that appeared on the page, not the page again: read it and the notes before acting further.
- Add expect to an action to have its outcome checked: {"url_contains": "dashboard"}, {"text_visible": "Saved"}, {"visible": {"role": "dialog"}}. Without it, verification is not_checked: the input was delivered, the outcome unconfirmed.
- snapshot reads the page (or one ref's subtree) as text with refs; outline lists the usable elements with a checked selector each; find locates elements. Take a snapshot when changes do not tell you enough.
- To sign in without ever seeing a password: read ${SECRETS_URI} (names and keys, never values), then fill {"target": {"label": "Password"}, "secret": {"name": "...", "key": "password"}}. The server types it, only on the origins the secret allows.
- Screenshots, PDFs and downloads land in this session's files with signed links; keep_file keeps one past the browser.
- A consequential click or Enter (delete, pay, send, publish...) fails with approval_required: ask your user, then repeat it with "approved": true.
- Saved flows fly a known route in one call: status names the flows_here that apply to this page; flow_run {name, params} runs one, flow_save saves a route you worked out (schema: swiftbrowse://schemas/flow).
- Tool schemas list the arguments calls commonly need; the rest are accepted all the same and named after "Also:" in the description. Every op takes timeout (ms, default 10000); acting ops also take diff (false skips data.changes), element_diff (changed tags and attributes) and include_removed (the strings that left).
- Argument errors name the expected shape. ${SESSION_URI} is this session's status, ${OPS_URI} every op's arguments, skill://swiftbrowse/SKILL.md the guide.`;
}
