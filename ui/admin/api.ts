import type { ErrorInfo } from './contract.js';

/** An admin route this server does not have yet (its branch has not landed): the screen says so. */
export class NotAvailable extends Error {
  constructor(readonly path: string) {
    super(`${path} is not available on this server (it is older than this console).`);
  }
}

/** A refusal from the API, with the server's own error (kind, message) when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly info: ErrorInfo | undefined,
    readonly body: unknown,
  ) {
    super(info?.message ?? `The server answered ${status}.`);
  }
}

/**
 * The admin API's base, relative to this page: the console is served at `<root>/admin/`, so the
 * API is the page's own directory whatever prefix the server is mounted under.
 */
export const API = new URL('./', location.href);

/** A server page outside the console (the log viewer) by its path relative to the server root. */
export function serverPath(path: string): string {
  return new URL(`../${path}`, API).href;
}

function errorOf(body: unknown): ErrorInfo | undefined {
  const error = (body as { error?: unknown } | null)?.error;
  return error && typeof error === 'object' ? (error as ErrorInfo) : undefined;
}

export interface Reply<T> {
  body: T;
  headers: Headers;
}

/** Calls the admin API; a route the server lacks is NotAvailable, any other refusal ApiError. */
export async function call<T>(
  path: string,
  init: RequestInit & { json?: unknown } = {},
): Promise<Reply<T>> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined || (init.method && init.method !== 'GET' && body === undefined)) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json ?? {});
  }
  const response = await fetch(new URL(path, API), {
    ...init,
    headers,
    body,
    credentials: 'same-origin',
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = text;
  }
  if (response.ok) return { body: parsed as T, headers: response.headers };
  const info = errorOf(parsed);
  // The server's catch-all answers an unknown route this way; a missing session or file does not.
  if (response.status === 404 && info?.message.startsWith('No route '))
    throw new NotAvailable(path);
  throw new ApiError(response.status, info, parsed);
}

export const get = async <T>(path: string): Promise<T> => (await call<T>(path)).body;

export const enc = encodeURIComponent;
