import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { Hono, type Context } from 'hono';
import { checkName } from '../../core/names.js';
import { OpError } from '../../core/errors.js';
import { contentDisposition } from '../../files/disposition.js';
import { FileStore } from '../../files/file-store.js';
import { checkFileName, contentTypeOf } from '../../files/names.js';
import { nameParam, pathParam, queryParam, routeDoc, routeDocs } from './route-docs.js';

const operatorDoc = routeDocs('admin', 'operator');
const SESSION = nameParam('session', 'The session');
const FILE = [SESSION, pathParam('name', 'The file name')];

// Shown in the browser as they are; anything else (HTML, SVG…) is a download, never a page here.
const INLINE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf']);

/** A signed file link: the signature is its credential, so the bearer token is not asked for. */
export function isSignedFileLink(path: string): boolean {
  return /^\/files\/[^/]+\/[^/]+$/.test(path);
}

function refused(c: Context, status: 400 | 403 | 404, error: OpError) {
  return c.json({ ok: false, op: 'files', error: error.toInfo() }, status);
}

// Where a fresh link comes from, for whoever holds a dead one.
const FRESH_LINK =
  'Ask for a fresh link: the files op (or GET /admin/files/<session>) lists each file with a new one.';

/** Why a signed link is refused: expired (and when), or a signature this server did not make. */
function linkRefusal(verdict: 'altered' | 'expired', session: string, exp: number): OpError {
  if (verdict === 'expired') {
    const at = new Date(exp * 1000).toISOString();
    return new OpError(
      'permission_denied',
      `This file link expired at ${at} (links last FILE_LINK_TTL seconds from when they are handed out). ${FRESH_LINK.replace('<session>', session)}`,
      { details: { reason: 'expired', expired_at: at } },
    );
  }
  return new OpError(
    'permission_denied',
    `This file link's signature does not match: the link was altered (its path, exp or sig changed, or it was cut short when copied) or was not signed by this server (another server, or SIGNING_KEY changed). Use the whole link as handed out. ${FRESH_LINK.replace('<session>', session)}`,
    { details: { reason: 'altered' } },
  );
}

/** `GET /files/<session>/<name>?exp=&sig=`: serves a kept or browser file by signed link. */
export function signedFileRoutes(files: FileStore): Hono {
  const app = new Hono();
  app.get(
    '/:session/:name',
    routeDoc({
      id: 'file_download',
      summary: 'A file by its signed link (the link is the credential: no token)',
      tag: 'files',
      access: 'open',
      parameters: [
        ...FILE,
        queryParam('exp', 'Expiry, epoch seconds', { type: 'integer' }),
        queryParam('sig', 'The link’s signature', { type: 'string' }),
      ],
      answers: {
        200: {
          description: 'The file; images and PDFs inline, anything else as a download',
          content: {
            'application/octet-stream': {
              schema: { type: 'string', contentMediaType: 'application/octet-stream' },
            },
          },
        },
      },
      fails: [400, 404],
    }),
    async (c) => {
      const session = c.req.param('session');
      const name = c.req.param('name');
      try {
        checkName('session', session);
        checkFileName(name);
      } catch (e) {
        return refused(c, 400, e as OpError);
      }
      const exp = Number(c.req.query('exp'));
      const sig = c.req.query('sig') ?? '';
      const verdict = files.signer.check(FileStore.linkPath(session, name), exp, sig);
      if (verdict !== 'valid') return refused(c, 403, linkRefusal(verdict, session, exp));
      const found = await files.open(session, name);
      if (!found)
        return refused(
          c,
          404,
          new OpError(
            'not_found',
            `Session ${session} no longer has ${JSON.stringify(name)}: unkept files go with the browser. Keep a file (keep_file) to make its link outlive it.`,
          ),
        );
      const type = contentTypeOf(name);
      const body = Readable.toWeb(createReadStream(found.path)) as ReadableStream;
      return c.body(body, 200, {
        'content-type': type,
        'content-length': String(found.size),
        'content-disposition': contentDisposition(name, INLINE.has(type) ? 'inline' : 'attachment'),
        'x-content-type-options': 'nosniff',
        'content-security-policy': 'sandbox',
        'cache-control': 'private, no-store',
      });
    },
  );
  return app;
}

/**
 * Operator-only file actions, mounted by the admin API under `/admin` behind its token:
 * `GET /files/<session>` (every file, total size), `DELETE /files/<session>/<name>` (a kept
 * file; a browser file answers deleted: false), `POST /files/<session>/<name>/keep` (keep a
 * download, as `keep_file` does) and `POST /files/<session>/clear-downloads`.
 */
export function fileAdminRoutes(files: FileStore): Hono {
  const app = new Hono();
  const sessionOf = (c: Context) => checkName('session', c.req.param('session') ?? '');
  app.onError((e, c) =>
    e instanceof OpError
      ? refused(c, e.kind === 'not_found' ? 404 : 400, e)
      : c.json({ ok: false, error: String(e) }, 500),
  );
  app.get(
    '/files/:session',
    operatorDoc({
      id: 'admin_files_list',
      summary: 'Every file of a session, kept or not, and their total size',
      parameters: [SESSION],
      answers: { 200: { description: 'The files' } },
      fails: [400, 404],
    }),
    async (c) => {
      const list = await files.list(sessionOf(c));
      return c.json({ files: list, total_bytes: list.reduce((n, f) => n + f.size, 0) });
    },
  );
  app.delete(
    '/files/:session/:name',
    operatorDoc({
      id: 'admin_file_delete',
      summary: 'Delete a kept file (a browser file answers deleted: false)',
      parameters: FILE,
      answers: { 200: { description: 'deleted says whether a kept file went' } },
      fails: [400, 404],
    }),
    async (c) => c.json(await files.deleteKept(sessionOf(c), checkFileName(c.req.param('name')))),
  );
  app.post(
    '/files/:session/clear-downloads',
    operatorDoc({
      id: 'admin_files_clear_downloads',
      summary: 'Remove a session’s unkept downloads',
      parameters: [SESSION],
      answers: { 200: { description: 'The names removed' } },
      fails: [400, 404],
    }),
    async (c) => c.json({ removed: await files.clearDownloads(sessionOf(c)) }),
  );
  app.post(
    '/files/:session/:name/keep',
    operatorDoc({
      id: 'admin_file_keep',
      summary: 'Keep a download, as keep_file does',
      parameters: FILE,
      answers: { 200: { description: 'The kept file’s entry' } },
      fails: [400, 404],
    }),
    async (c) => {
      const { entry } = await files.keep(sessionOf(c), checkFileName(c.req.param('name')));
      return c.json(entry);
    },
  );
  return app;
}
