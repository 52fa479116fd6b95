import type { CallToolResult, ImageContent } from '@modelcontextprotocol/sdk/types.js';
import { toOpError, type ErrorInfo } from '../../core/errors.js';
import { scrub } from '../../core/redact.js';
import type { ActionResult } from '../../core/result.js';

/** A result-shaped answer for a call that never reached runOp (no session, unknown tool…). */
export interface Refusal {
  ok: false;
  op: string;
  error: ErrorInfo;
}

export function refusal(op: string, e: unknown): Refusal {
  const body = { ok: false as const, op, error: toOpError(e).toInfo() };
  return scrub(body);
}

interface EncodedImage {
  content_type: string;
  base64: string;
}

function isImage(value: unknown): value is EncodedImage {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.base64 === 'string' &&
    typeof v.content_type === 'string' &&
    v.content_type.startsWith('image/')
  );
}

/** Copies the value, moving every image (a screenshot, also inside a batch) out into `images`. */
function liftImages(value: unknown, images: ImageContent[]): unknown {
  if (Array.isArray(value)) return value.map((v) => liftImages(v, images));
  if (typeof value !== 'object' || value === null) return value;
  if (isImage(value)) {
    images.push({ type: 'image', data: value.base64, mimeType: value.content_type });
    // The bytes travel once, as image content; the JSON keeps only what they are.
    return { content_type: value.content_type, sent_as: 'image content' };
  }
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, liftImages(v, images)]),
  );
}

/** What a tool result carries besides the answer's text. */
export interface ToolResultOptions {
  /** Also send the whole ActionResult as `structuredContent` (MCP_STRUCTURED_CONTENT). */
  structured: boolean;
}

/**
 * One answer as a tool result: `answer` (compact or whole, as the call asked) as JSON text, once.
 * The whole result goes in `structuredContent` only when the operator asks: hosts forward one or
 * the other or both to the model (docs/mcp.md), so a second copy is paid for, not free. A failed
 * op is `isError` (STYLE: errors).
 */
export function toToolResult(
  result: ActionResult | Refusal,
  answer: unknown,
  options: ToolResultOptions,
): CallToolResult {
  const images: ImageContent[] = [];
  const text = liftImages(answer, images);
  return {
    content: [{ type: 'text', text: JSON.stringify(text) }, ...images],
    ...(options.structured
      ? { structuredContent: liftImages(result, []) as Record<string, unknown> }
      : {}),
    isError: !result.ok,
  };
}
