import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Selenium's BiDi connection (one WebSocket, commands by id, events re-emitted by method name). */
interface SeleniumBidi {
  waitForConnection(): Promise<void>;
  send(params: { method: string; params: unknown }): Promise<BidiResponse>;
  on(event: string, listener: (params: unknown) => void): void;
  off(event: string, listener: (params: unknown) => void): void;
  close(): Promise<void>;
  readonly isConnected: boolean;
  /** The last command id it used: a command sent past it takes the next one. */
  id: number;
  readonly socket: BidiSocket;
}
/** The WebSocket under Selenium's connection (the `ws` package's). */
interface BidiSocket {
  send(data: string): void;
  on(event: 'message', listener: (data: Buffer) => void): void;
  on(event: 'close', listener: () => void): void;
  off(event: 'message', listener: (data: Buffer) => void): void;
}
interface BidiResponse {
  type: 'success' | 'error';
  result?: unknown;
  error?: string;
  message?: string;
}
const BiDiConnection = require('selenium-webdriver/bidi') as new (url: string) => SeleniumBidi;

/** What `session.new` answers. */
export interface NewSession {
  sessionId: string;
  capabilities: { browserName?: string; browserVersion?: string; userAgent?: string };
}

/** An error a BiDi command answered with (`error` is the W3C error code). */
export class BidiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = 'BidiError';
  }
}

/**
 * A command the browser did not answer within `waitMs`: a browser still starting (its first
 * command) or one too loaded to answer.
 */
export class BidiUnanswered extends Error {
  constructor(
    readonly method: string,
    readonly waitMs: number,
  ) {
    super(`${method} was not answered within ${Math.round(waitMs / 1000)} s`);
    this.name = 'BidiUnanswered';
  }
}

/** A command unanswered this long makes the connection ask whether its browser still exists. */
const PROBE_EVERY_MS = 2000;

/** Events SwiftBrowse listens to, for every context of the session. */
const EVENTS = [
  'browsingContext',
  'log.entryAdded',
  'network',
  'script.realmCreated',
  'script.realmDestroyed',
];

/** A WebDriver BiDi connection: typed commands, events by name, closed state. */
export class Bidi {
  private closed = false;
  private readonly closeListeners: (() => void)[] = [];
  private alive?: () => Promise<boolean>;
  private readonly pending = new Set<(error: Error) => void>();

  private constructor(private readonly connection: SeleniumBidi) {
    connection.on('error', () => undefined);
  }

  /**
   * Connects to a session's BiDi socket (a Grid's `webSocketUrl`), or, with `newSession`, to a
   * browser's own `/session` endpoint, where the session is created over BiDi itself.
   */
  static async connect(
    url: string,
    newSession?: { capabilities: Record<string, unknown>; waitMs: number },
  ): Promise<{ bidi: Bidi; session?: NewSession }> {
    const connection = new BiDiConnection(url);
    await connection.waitForConnection();
    const bidi = new Bidi(connection);
    // Selenium's connection has no close event of its own; its socket does.
    connection.socket.on('close', () => bidi.markClosed());
    const session = newSession
      ? await bidi.firstCommand<NewSession>(
          'session.new',
          { capabilities: { alwaysMatch: newSession.capabilities } },
          newSession.waitMs,
        )
      : undefined;
    await bidi.call('session.subscribe', { events: EVENTS });
    return { bidi, session };
  }

  /**
   * A command sent on the socket with a wait of its own: Selenium fails every command it sends at
   * a fixed 30 s ("Request with id 1 timed out"), and a browser's first may take longer.
   */
  private firstCommand<T>(method: string, params: unknown, waitMs: number): Promise<T> {
    const { connection } = this;
    const id = ++connection.id;
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        connection.socket.off('message', heard);
        this.pending.delete(fail);
      };
      const fail = (error: Error) => {
        done();
        reject(error);
      };
      const heard = (data: Buffer) => {
        let message: { id?: unknown } & BidiResponse;
        try {
          message = JSON.parse(data.toString()) as { id?: unknown } & BidiResponse;
        } catch {
          return;
        }
        if (message.id !== id) return;
        done();
        if (message.type === 'error')
          reject(new BidiError(message.error ?? 'unknown error', message.message ?? ''));
        else resolve(message.result as T);
      };
      const timer = setTimeout(() => fail(new BidiUnanswered(method, waitMs)), waitMs);
      this.pending.add(fail);
      connection.socket.on('message', heard);
      connection.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    const gone = new BidiError('invalid session id', 'the browser is gone (its session ended)');
    for (const reject of this.pending) reject(gone);
    for (const l of [...this.closeListeners]) l();
  }

  /**
   * How to tell a slow browser from a gone one. A Grid that ends a session (reaped, node lost)
   * leaves this socket open and its commands unanswered; a command waiting past PROBE_EVERY_MS
   * asks `alive` and, when the session is gone, fails as a closed connection instead of hanging.
   */
  setLiveness(alive: () => Promise<boolean>): void {
    this.alive = alive;
  }

  /** Returns what stops the listening: a session sharing the connection goes before it does. */
  onClose(listener: () => void): () => void {
    this.closeListeners.push(listener);
    return () => {
      const at = this.closeListeners.indexOf(listener);
      if (at >= 0) this.closeListeners.splice(at, 1);
    };
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** `abandon` rejecting ends the wait (the tab the command went to crashed) and fails the call. */
  async call<T = Record<string, unknown>>(
    method: string,
    params: unknown,
    abandon?: Promise<never>,
  ): Promise<T> {
    if (this.closed)
      throw new BidiError('invalid session id', 'the browser is gone (its session ended)');
    const sent = this.connection.send({ method, params });
    let reject = (_: Error) => {};
    const gone = new Promise<never>((_, r) => (reject = r));
    this.pending.add(reject);
    const probe = setInterval(() => {
      void this.alive?.().then(
        (yes) => yes || this.markClosed(),
        () => undefined,
      );
    }, PROBE_EVERY_MS);
    sent.catch(() => undefined);
    let response: BidiResponse;
    try {
      response = await Promise.race(abandon ? [sent, gone, abandon] : [sent, gone]);
    } finally {
      clearInterval(probe);
      this.pending.delete(reject);
    }
    if (response.type === 'error')
      throw new BidiError(response.error ?? 'unknown error', response.message ?? '');
    return response.result as T;
  }

  /** Returns what stops the listening (see onClose). */
  on<T>(event: string, listener: (params: T) => void): () => void {
    const heard = listener as (params: unknown) => void;
    this.connection.on(event, heard);
    return () => this.connection.off(event, heard);
  }

  async close(): Promise<void> {
    this.markClosed();
    await this.connection.close().catch(() => undefined);
  }
}

/** A BiDi remote value (script.evaluate's result) as a plain JSON-like value. */
export interface RemoteValue {
  type: string;
  value?: unknown;
}

export function fromRemote(v: RemoteValue | undefined): unknown {
  if (!v) return undefined;
  switch (v.type) {
    case 'undefined':
      return undefined;
    case 'null':
      return null;
    case 'string':
    case 'boolean':
      return v.value;
    case 'number':
      if (v.value === 'NaN') return NaN;
      if (v.value === '-0') return -0;
      if (v.value === 'Infinity') return Infinity;
      if (v.value === '-Infinity') return -Infinity;
      return v.value;
    case 'bigint':
      return BigInt(String(v.value));
    case 'array':
    case 'set':
      return ((v.value as RemoteValue[] | undefined) ?? []).map(fromRemote);
    case 'object':
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const [k, val] of (v.value as [string | RemoteValue, RemoteValue][] | undefined) ?? [])
        out[typeof k === 'string' ? k : String(fromRemote(k))] = fromRemote(val);
      return out;
    }
    case 'date':
      return v.value;
    case 'regexp':
      return {};
    default:
      // Nodes, windows, functions and the like have no JSON form: the same `{}` a JSON copy gives.
      return {};
  }
}
