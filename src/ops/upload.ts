import { realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { OpError } from '../core/errors.js';
import { describeTarget, targetSchema } from '../core/target.js';
import { callPage } from '../drivers/page-script.js';
import { defineOp, type OpContext } from './define.js';
import { findElement, summarise } from './element.js';

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && !rel.split(sep).includes('..');
}

/** A path the policy allows: inside an upload directory after symlinks are resolved. */
async function allowedPath(path: string, dirs: string[]): Promise<string> {
  const refuse = () =>
    new OpError(
      'permission_denied',
      `upload: ${JSON.stringify(path)} is outside the upload directories (${dirs.join(', ')}) and is not the name of a kept file. Put the file there and give a path relative to one, or give the name of a file you kept (keep_file; files lists them).`,
      {
        details: { upload_dirs: dirs },
      },
    );
  const candidates = isAbsolute(path)
    ? [path]
    : dirs.map((d) => resolve(d, path)).filter((c, i) => inside(dirs[i], c));
  if (candidates.length === 0) throw refuse();
  for (const candidate of candidates) {
    let real: string;
    try {
      real = await realpath(candidate);
    } catch {
      continue;
    }
    const dirsReal = await Promise.all(dirs.map((d) => realpath(d).catch(() => d)));
    if (!dirsReal.some((d) => inside(d, real))) throw refuse();
    if (!(await stat(real)).isFile())
      throw new OpError('invalid_argument', `upload: ${JSON.stringify(path)} is not a file.`);
    return real;
  }
  if (isAbsolute(path) && !dirs.some((d) => inside(d, resolve(path)))) throw refuse();
  throw new OpError(
    'invalid_argument',
    `upload: no file ${JSON.stringify(path)} in ${dirs.join(', ')}, and no kept file of that name. files lists the kept ones.`,
  );
}

/** A kept file by its bare name, else a path the upload directories allow. */
async function uploadable(ctx: OpContext, path: string): Promise<string> {
  const bare = !/[/\\]/.test(path) && path !== '.' && path !== '..';
  try {
    return await allowedPath(path, ctx.config.uploadDirs);
  } catch (e) {
    const kept = bare ? await ctx.files.keptFile(ctx.session.name, path) : undefined;
    if (kept) return kept;
    throw e;
  }
}

export const upload = defineOp({
  name: 'upload',
  summary: 'Set the files of a file input, from the upload directories or your kept files',
  acts: true,
  args: z.strictObject({
    target: targetSchema.describe('The file input (or an element wrapping one)'),
    paths: z
      .array(z.string().min(1))
      .min(1)
      .describe(
        'Files in the upload directories (absolute, or relative to one), or kept file names',
      ),
  }),
  async run(ctx, args) {
    const files = await Promise.all(args.paths.map((p) => uploadable(ctx, p)));
    const tab = await ctx.tab();
    let el = await findElement(tab, ctx.elements, args.target);
    const info = await callPage(tab, el.frame, 'controlInfo', el.handle);
    if (info.kind !== 'file') {
      el = await findElement(tab, ctx.elements, {
        css: 'input[type=file]',
        within: args.target,
      }).catch(() => {
        throw new OpError(
          'invalid_argument',
          `upload: ${describeTarget(args.target)} is a <${el.info.tag}>, not a file input, and holds none.`,
        );
      });
    }
    ctx.delivered();
    await tab.setInputFiles(el.frame, el.handle, files);
    return { target: summarise(el), data: { files: files.map((f) => basename(f)) } };
  },
});
