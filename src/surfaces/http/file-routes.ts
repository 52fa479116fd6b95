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
      if (!files.signer.verify(FileStore.linkPath(session, name), exp, sig)) {
        return refused(
          c,
          403,
          new OpError(
            'permission_denied',
            'This file link is not valid: it has expired (links last FILE_LINK_TTL seconds) or was altered. The files op hands out fresh links.',
          ),
        );
      }
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
