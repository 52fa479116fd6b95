import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
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

/** How a connection names its tools: the set it has, and the two names that set is built from. */
export interface ToolNaming {
  fullSet: boolean;
  prefix: string;
  runTool: string;
}

/** Whether `op` has a tool of its own in this set: every op in the full set, the lifecycle in compact. */
export const hasOwnTool = (op: OpDefinition, naming: ToolNaming): boolean =>
  naming.fullSet || op.lifecycle;

/** How a call reaches `op` in the tool set the client has: its own tool, or browser_run. */
function callFor(op: OpDefinition, naming: ToolNaming): string {
  return hasOwnTool(op, naming)
    ? `${naming.prefix}${op.name}`
    : `${naming.runTool} {"op": "${op.name}", "args": {…}}`;
}

/** The "did you mean" for a tool name this set does not have, or undefined. */
export function toolSuggestion(
  tool: string,
  ops: ReadonlyMap<string, OpDefinition>,
  naming: ToolNaming,
): string | undefined {
  const { fullSet, prefix, runTool } = naming;
  const bare = tool.startsWith(prefix) ? tool.slice(prefix.length) : tool;
  const other = ops.get(bare);
  if (other && !hasOwnTool(other, naming))
    return `${tool} is in the full tool set and this connection has the compact one: call ${callFor(other, naming)} (or connect with tools=full for one tool per op)`;
  const foreign = PLAYWRIGHT_MCP_TOOLS[tool];
  const named = foreign ?? nearest(bare, ops.keys());
  const op = named === undefined ? undefined : ops.get(named);
  if (!op) return undefined;
  const call = callFor(op, { fullSet, prefix, runTool });
  if (foreign)
    return `${tool} is Playwright MCP's name; here it is the op ${op.name}: call ${call}`;
  return `did you mean ${call}?`;
}

/**
 * browser_run called on a connection with the full set: the op it named has a tool of its own.
 * `asked` is the op the call named, if any.
 */
export function runToolSuggestion(
  asked: unknown,
  ops: ReadonlyMap<string, OpDefinition>,
  naming: ToolNaming,
): string {
  const op = typeof asked === 'string' ? ops.get(asked) : undefined;
  const call = op
    ? `call ${naming.prefix}${op.name} with its arguments`
    : `call ${naming.prefix}<op> with its arguments (tools/list names them)`;
  return `${naming.runTool} is in the compact tool set and this connection has the full one, a tool per op: ${call} (or connect with tools=compact)`;
}

/**
 * A call to a tool this connection does not list: a JSON-RPC error (InvalidParams, as the spec's
 * "Unknown tool" example), not a tool result, so a host sees its own mistake rather than a failed op.
 */
export function unknownTool(tool: string, hint: string | undefined, tools: string): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    `Unknown tool "${tool}"${hint ? `: ${hint}` : ''}. ${tools}`,
  );
}
