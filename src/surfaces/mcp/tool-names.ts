import type { OpDefinition } from '../../ops/define.js';
import { nearest } from '../../core/nearest.js';

/**
 * Playwright MCP's tool names and the op that does the same here: a model used to those names
 * calls them first, and "Unknown tool" alone costs it a round trip to find ours.
 */
const PLAYWRIGHT_MCP_TOOLS: Record<string, string> = {
  browser_navigate: 'goto',
  browser_navigate_back: 'back',
  browser_navigate_forward: 'forward',
  browser_type: 'fill',
  browser_fill_form: 'fill',
  browser_select_option: 'fill',
  browser_press_key: 'press',
  browser_take_screenshot: 'screenshot',
  browser_console_messages: 'console',
  browser_network_requests: 'network',
  browser_handle_dialog: 'dialog',
  browser_file_upload: 'upload',
  browser_tabs: 'tab_list',
  browser_pdf_save: 'pdf',
  browser_run_code: 'evaluate',
  browser_mouse_click_xy: 'click',
  browser_verify_text_visible: 'assert',
  browser_verify_element_visible: 'assert',
};

/** How a call reaches `op` in the tool set the client has: its own tool, or browser_run. */
function callFor(op: OpDefinition, fullSet: boolean, prefix: string, runTool: string): string {
  return fullSet || op.lifecycle
    ? `${prefix}${op.name}`
    : `${runTool} {"op": "${op.name}", "args": {…}}`;
}

/** The "did you mean" for a tool name this server does not have, or undefined. */
export function toolSuggestion(
  tool: string,
  ops: ReadonlyMap<string, OpDefinition>,
  options: { fullSet: boolean; prefix: string; runTool: string },
): string | undefined {
  const { fullSet, prefix, runTool } = options;
  const bare = tool.startsWith(prefix) ? tool.slice(prefix.length) : tool;
  const foreign = PLAYWRIGHT_MCP_TOOLS[tool];
  const named = foreign ?? (ops.has(bare) ? bare : nearest(bare, ops.keys()));
  const op = named === undefined ? undefined : ops.get(named);
  if (!op) return undefined;
  const call = callFor(op, fullSet, prefix, runTool);
  if (foreign)
    return `${tool} is Playwright MCP's name; here it is the op ${op.name}: call ${call}`;
  return `did you mean ${call}?`;
}
