import { z } from 'zod';

/** Error kinds (DESIGN §3.2): one table holds each kind's recoverability and HTTP status. */
export const ERROR_KINDS = {
  not_found: { recoverable: true, http: 404 },
  not_actionable: { recoverable: true, http: 409 },
  stale_element: { recoverable: true, http: 409 },
  timeout: { recoverable: true, http: 504 },
  ambiguous: { recoverable: false, http: 409 },
  verification_failed: { recoverable: false, http: 422 },
  approval_required: { recoverable: false, http: 403 },
  permission_denied: { recoverable: false, http: 403 },
  navigation_failed: { recoverable: false, http: 502 },
  invalid_argument: { recoverable: false, http: 400 },
  /** A write named a revision that is no longer current (If-Match). */
  conflict: { recoverable: false, http: 412 },
  unsupported: { recoverable: false, http: 501 },
  session_not_found: { recoverable: false, http: 404 },
  session_limit: { recoverable: false, http: 429 },
  /** No HTTP route at that path (a surface error, not an op's). */
  route_not_found: { recoverable: false, http: 404 },
  /** The path is a route, but not for that method; the answer carries Allow. */
  method_not_allowed: { recoverable: false, http: 405 },
  backend: { recoverable: false, http: 503 },
} as const;

export type ErrorKind = keyof typeof ERROR_KINDS;

export interface ErrorHint {
  read: string;
  prompt?: string;
  arguments?: Record<string, string>;
}

export interface ErrorInfo {
  kind: ErrorKind;
  message: string;
  recoverable: boolean;
  details?: Record<string, unknown>;
  hint?: ErrorHint;
}

/** ErrorInfo as a schema, for documents that describe it (OpenAPI); the kinds come from the table. */
export const errorInfoSchema = z
  .object({
    kind: z.enum(Object.keys(ERROR_KINDS) as [ErrorKind, ...ErrorKind[]]),
    message: z.string().describe('What failed, where, the likely cause and the next move'),
    recoverable: z.boolean().describe('Whether waiting and trying again may succeed'),
    details: z.record(z.string(), z.unknown()).optional(),
    hint: z
      .object({
        read: z.string().describe('A skill:// section to read'),
        prompt: z.string().optional(),
        arguments: z.record(z.string(), z.string()).optional(),
      })
      .optional(),
  })
  .describe('Why an op or a request failed (DESIGN §3.2)');

/** The one error type ops and drivers throw; everything else is converted into it. */
export class OpError extends Error {
  readonly kind: ErrorKind;
  readonly details?: Record<string, unknown>;
  readonly hint?: ErrorHint;
  /** Set on a recoverable error that must still not be retried (a stale ref will not heal). */
  readonly final: boolean;

  constructor(
    kind: ErrorKind,
    message: string,
    options: { details?: Record<string, unknown>; hint?: ErrorHint; final?: boolean } = {},
  ) {
    super(message);
    this.name = 'OpError';
    this.kind = kind;
    this.details = options.details;
    this.hint = options.hint;
    this.final = options.final ?? false;
  }

  /** Whether waiting and trying again may succeed: never for a final error (a dead ref). */
  get recoverable(): boolean {
    return ERROR_KINDS[this.kind].recoverable && !this.final;
  }

  toInfo(): ErrorInfo {
    const info: ErrorInfo = {
      kind: this.kind,
      message: this.message,
      recoverable: this.recoverable,
    };
    if (this.details && Object.keys(this.details).length > 0) info.details = this.details;
    if (this.hint) info.hint = this.hint;
    return info;
  }
}

export function httpStatusOf(kind: ErrorKind): number {
  return ERROR_KINDS[kind].http;
}

/** What a file-system error code says of the server's storage, in words a caller can pass on. */
const STORAGE_CAUSES: Record<string, string> = {
  EROFS: 'its disk is read-only',
  ENOSPC: 'its disk is full',
  EDQUOT: 'its disk quota is used up',
  EACCES: 'it lacks permission there',
  EPERM: 'it lacks permission there',
  ENOENT: 'a folder it keeps data in is missing',
  ENOTDIR: 'a folder it keeps data in is blocked by a file',
  EISDIR: 'a file it keeps data in is blocked by a folder',
  EMFILE: 'it has too many files open',
  EIO: 'its disk failed',
};

/** A file-system call that failed on the server's own disk (not a process spawn or a socket). */
function storageCause(error: unknown): string | undefined {
  const e = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof e.syscall !== 'string' || typeof e.code !== 'string')
    return undefined;
  if (e.syscall.startsWith('spawn') || !(e.code in STORAGE_CAUSES)) return undefined;
  const reading = READ_CALLS.has(e.syscall) ? 'read' : 'write to';
  return `could not ${reading} its storage (${STORAGE_CAUSES[e.code]}: ${e.code})`;
}

/** Calls that only read; any other (open, mkdir, write, rename…) is taken as a write. */
const READ_CALLS = new Set(['scandir', 'stat', 'lstat', 'access', 'read', 'readlink', 'realpath']);

/**
 * Anything thrown that is not an OpError is the backend failing unexpectedly: the server's storage
 * (a file-system error, said without the server's paths) or else the browser.
 */
export function toOpError(error: unknown): OpError {
  if (error instanceof OpError) return error;
  const storage = storageCause(error);
  if (storage) {
    return new OpError(
      'backend',
      `The server ${storage}. Nothing is wrong with the request, and sending it again will not help until the operator fixes it: ask the server's operator to check DATA_DIR (free space, a read-only disk, permissions).`,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new OpError('backend', `The browser failed unexpectedly: ${firstLine(message)}`);
}

export function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? text;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
