import { z } from 'zod';
import { defineOp } from './define.js';

export const files = defineOp({
  name: 'files',
  summary: "List the session's files (downloads, screenshots, PDFs, kept copies) with signed links",
  browser: false,
  readOnly: true,
  args: z.strictObject({}),
  async run(ctx) {
    // A download still landing is waited for, so a click then files sees it.
    await ctx.session.browser?.downloadsSettled();
    const list = await ctx.files.list(ctx.session.name);
    if (list.some((f) => !f.kept))
      ctx.notes.push('unkept files go with the browser: keep_file("<name>") keeps one');
    return { data: { files: list } };
  },
});

export const keepFile = defineOp({
  name: 'keep_file',
  summary: 'Keep a copy of a file past the browser and server restarts; keeping again overwrites',
  browser: false,
  args: z.strictObject({
    name: z.string().min(1).describe('The file name exactly as files lists it, e.g. "report.csv"'),
  }),
  async run(ctx, args) {
    await ctx.session.browser?.downloadsSettled();
    const { entry, copied } = await ctx.files.keep(ctx.session.name, args.name);
    if (!copied) ctx.notes.push('already kept: the browser no longer has the original');
    return { data: { file: entry } };
  },
});
