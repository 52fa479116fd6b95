import { z } from 'zod';
import { OpError } from '../core/errors.js';
import type { DownloadRecord } from '../drivers/driver.js';
import type { FileEntry, FileStore } from '../files/file-store.js';
import type { Session } from '../sessions/session.js';
import { defineOp } from './define.js';

/** A download as results say it: saved (and how to keep it), failed (and why), or still landing. */
export function downloadNote(download: DownloadRecord): string {
  const name = download.name;
  if (download.unsupported) return `download_unsupported ${name}: ${download.error}`;
  if (download.state === 'failed')
    return `download_failed ${name}: ${download.error ?? 'no cause given'}. It is not in the session's files; download it again once the cause is gone`;
  if (download.state === 'saving')
    return `download ${name} still landing — files lists it once saved`;
  return `download ${name} — keep_file(${JSON.stringify(name)}) keeps it`;
}

export const files = defineOp({
  name: 'files',
  summary: "List the session's files (downloads, screenshots, PDFs, kept copies) with signed links",
  browser: false,
  readOnly: true,
  args: z.strictObject({}),
  async run(ctx) {
    const { data, notes } = await filesListing(ctx.session, ctx.files);
    ctx.notes.push(...notes);
    return { data };
  },
});

/**
 * What `files` answers: the session's files and the downloads that never landed. It changes
 * nothing, so GET /files answers it without an op.
 */
export async function filesListing(
  session: Session,
  store: Pick<FileStore, 'list'>,
): Promise<{ data: { files: FileEntry[] }; notes: string[] }> {
  // A download still landing is waited for, so a click then files sees it.
  await session.browser?.downloadsSettled();
  const list = await store.list(session.name);
  const notes: string[] = [];
  // A download that never landed is said here too, the latest attempt of each name.
  const latest = new Map((session.browser?.downloads() ?? []).map((d) => [d.name, d]));
  for (const d of latest.values())
    if (d.state === 'failed' && !list.some((f) => f.name === d.name)) notes.push(downloadNote(d));
  if (list.some((f) => !f.kept))
    notes.push('unkept files go with the browser: keep_file("<name>") keeps one');
  return { data: { files: list }, notes };
}

export const keepFile = defineOp({
  name: 'keep_file',
  summary: 'Keep a copy of a file past the browser and server restarts; keeping again overwrites',
  browser: false,
  args: z.strictObject({
    name: z.string().min(1).describe('The file name exactly as files lists it, e.g. "report.csv"'),
  }),
  async run(ctx, args) {
    const browser = ctx.session.browser;
    await browser?.downloadsSettled();
    const { entry, copied } = await ctx.files.keep(ctx.session.name, args.name).catch((e) => {
      // A file the browser downloaded where it cannot be fetched from: not missing, out of reach.
      const held = browser?.downloads().find((d) => d.name === args.name && d.unsupported);
      throw held ? new OpError('unsupported', `keep_file: ${held.name}: ${held.error}.`) : e;
    });
    if (!copied) ctx.notes.push('already kept: the browser no longer has the original');
    return { data: { file: entry } };
  },
});
