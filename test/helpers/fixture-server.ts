import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';

/** A loopback HTTP server for end-to-end tests; see {@link startFixtureServer}. */
export interface FixtureServer {
  /** Origin without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  PREFIX: string;
  port: number;
  /** Serve `html` at `path` (overrides a fixture file); content type defaults from the extension. */
  setContent(path: string, html: string, contentType?: string): void;
  /** Handle `path` (any method, any query) with `handler`; takes precedence over everything else. */
  setRoute(path: string, handler: (req: IncomingMessage, res: ServerResponse) => void): void;
  /** Request targets (path plus query, as sent) in arrival order. */
  requests: string[];
  /** Stop listening, destroy open sockets and cancel pending slow responses. */
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const MAX_SLOW_MS = 30_000;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

function contentTypeFor(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

function normalizePath(path: string): string {
  return path.startsWith('/') ? path : `/${path}`;
}

function send(res: ServerResponse, status: number, body: string | Buffer, type: string): void {
  // Tests must see every change to a fixture, so nothing is cached.
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(body);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sendHtml(res: ServerResponse, status: number, title: string, text: string): void {
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${escapeHtml(text)}</p></body></html>`;
  send(res, status, page, CONTENT_TYPES['.html']);
}

/**
 * Start a fixture server on 127.0.0.1, port 0. Serves `test/fixtures/pages/` (relative to
 * `process.cwd()`, so run tests from the repo root), plus `/api/slow?ms=N` (JSON after N ms,
 * at most 30000) and `/status/NNN` (that status with a small HTML body).
 */
export async function startFixtureServer(): Promise<FixtureServer> {
  const root = resolve(process.cwd(), 'test', 'fixtures', 'pages');
  const contents = new Map<string, { body: string; type: string }>();
  const routes = new Map<string, Handler>();
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  async function serveFile(pathname: string, res: ServerResponse): Promise<void> {
    const relative = pathname.endsWith('/') ? `${pathname}index.html` : pathname;
    const file = resolve(join(root, relative));
    // Refuse anything that escapes the fixture directory (e.g. `/../package.json`).
    if (file !== root && !file.startsWith(root + sep)) {
      sendHtml(res, 403, 'Forbidden', pathname);
      return;
    }
    try {
      send(res, 200, await readFile(file), contentTypeFor(file));
    } catch {
      sendHtml(res, 404, 'Not found', `No fixture at ${pathname}`);
    }
  }

  function serveSlow(url: URL, res: ServerResponse): void {
    const requested = Number(url.searchParams.get('ms') ?? '0');
    const ms = Number.isFinite(requested) ? Math.min(Math.max(requested, 0), MAX_SLOW_MS) : 0;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!res.destroyed) send(res, 200, '{"ok":true}', CONTENT_TYPES['.json']);
    }, ms);
    timers.add(timer);
    res.on('close', () => {
      clearTimeout(timer);
      timers.delete(timer);
    });
  }

  function serveStatus(code: string, url: URL, res: ServerResponse): void {
    const status = Number(code);
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      sendHtml(res, 400, 'Bad status', code);
      return;
    }
    const location = url.searchParams.get('to');
    if (location !== null) res.setHeader('Location', location);
    sendHtml(res, status, `Status ${status}`, `This page answered ${status}.`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    requests.push(target);
    const url = new URL(target, 'http://127.0.0.1');
    let pathname: string;
    try {
      pathname = decodeURIComponent(url.pathname);
    } catch {
      sendHtml(res, 400, 'Bad request', 'Malformed path');
      return;
    }

    const route = routes.get(pathname);
    if (route) return route(req, res);
    const content =
      contents.get(pathname) ??
      (pathname.endsWith('/') ? contents.get(`${pathname}index.html`) : undefined);
    if (content) return send(res, 200, content.body, content.type);
    if (pathname === '/api/slow') return serveSlow(url, res);
    // Browsers ask for a favicon on every page; a 404 would add noise to console-error checks.
    if (pathname === '/favicon.ico') return void res.writeHead(204).end();
    const status = /^\/status\/(\d{3})$/.exec(pathname);
    if (status) return serveStatus(status[1], url, res);
    return serveFile(pathname, res);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendHtml(res, 500, 'Server error', String(error));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('Fixture server did not get a TCP address');
  }
  const port = address.port;

  return {
    PREFIX: `http://127.0.0.1:${port}`,
    port,
    requests,
    setContent(path, html, contentType) {
      const key = normalizePath(path);
      contents.set(key, {
        body: html,
        type: contentType ?? (extname(key) ? contentTypeFor(key) : CONTENT_TYPES['.html']),
      });
    },
    setRoute(path, handler) {
      routes.set(normalizePath(path), handler);
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}
