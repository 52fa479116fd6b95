import type { ActionResult } from '../../core/result.js';

export interface ClientOptions {
  server: string;
  session?: string;
  token?: string;
}

/** A thin HTTP client of a running SwiftBrowse server, for the CLI. */
export async function postOp(
  options: ClientOptions,
  op: string,
  args: unknown,
  /** `compact`: the answer a model reads (`?detail=compact`) instead of the whole ActionResult. */
  detail?: 'compact',
): Promise<{ status: number; body: ActionResult }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.session) headers['x-session-key'] = options.session;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const query = detail ? `?detail=${detail}` : '';
  const response = await fetch(`${options.server}/browser/${encodeURIComponent(op)}${query}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(args),
  });
  return { status: response.status, body: (await response.json()) as ActionResult };
}

export async function getJson(
  options: ClientOptions,
  path: string,
  timeoutMs = 5000,
): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.session) headers['x-session-key'] = options.session;
  const response = await fetch(`${options.server}${path}`, {
    headers,
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

export async function isHealthy(server: string, timeoutMs = 1000): Promise<boolean> {
  try {
    const r = await fetch(`${server}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    return r.ok;
  } catch {
    return false;
  }
}
