import { call, enc, get, serverPath } from '../api.js';
import { button } from '../components/button.js';
import { confirmModal, openModal } from '../components/modal.js';
import { pill } from '../components/pill.js';
import { tile, tileGrid } from '../components/tile.js';
import type { FileEntry, FileList } from '../contract.js';
import { bytes, fill, h, plural, when } from '../dom.js';
import { announce, problem, route, screenTitle } from './common.js';

function fileTile(session: string, f: FileEntry, refresh: () => void): HTMLElement {
  const path = `files/${enc(session)}/${enc(f.name)}`;
  const keep = button(
    'Keep',
    async () => {
      try {
        await call(`${path}/keep`, { method: 'POST' });
        announce(`Kept ${f.name}: it outlives the browser now.`);
        refresh();
      } catch (e) {
        announce(`Could not keep ${f.name}: ${(e as Error).message}`, 'error');
      }
    },
    { label: `Keep ${f.name}` },
  );
  const remove = button(
    'Delete',
    () =>
      confirmModal(
        `Delete ${f.name}?`,
        [h('p', {}, `The kept copy of ${f.name} (${bytes(f.size)}) is removed for good.`)],
        'Delete',
        async () => {
          const { body } = await call<{ deleted: boolean; reason?: string }>(path, {
            method: 'DELETE',
          });
          if (!body.deleted)
            throw new Error(`Not deleted: ${body.reason ?? 'the server gave no reason'}.`);
          announce(`Deleted ${f.name}.`);
          refresh();
        },
      ),
    { label: `Delete ${f.name}`, tone: 'danger' },
  );
  // The signed link is relative to the server root; resolved against ours so a mount prefix holds.
  const open = h(
    'a',
    {
      href: serverPath(f.url.replace(/^\//, '')),
      target: '_blank',
      rel: 'noopener',
      class: 'button',
      'aria-label': `Open ${f.name}`,
    },
    'Open',
  );
  return tile(
    f.name,
    [f.kept ? pill('kept', 'good') : pill('download', 'neutral')],
    [h('span', {}, bytes(f.size)), h('span', {}, f.content_type), h('span', {}, when(f.created))],
    [open, f.kept ? remove : keep],
  );
}

function clearDownloads(session: string, downloads: FileEntry[], refresh: () => void) {
  return button('Clear downloads', () =>
    openModal({
      title: `Clear the downloads of ${session}?`,
      body: [
        h('p', {}, `These ${plural(downloads.length, 'file')} go; kept files stay:`),
        h(
          'ul',
          { class: 'names' },
          downloads.map((f) => h('li', {}, f.name)),
        ),
      ],
      confirm: {
        label: `Remove ${plural(downloads.length, 'file')}`,
        danger: true,
        run: async () => {
          const { body } = await call<{ removed: string[] }>(
            `files/${enc(session)}/clear-downloads`,
            {
              method: 'POST',
            },
          );
          announce(`Removed ${plural(body.removed.length, 'download')} of ${session}.`);
          refresh();
        },
      },
    }),
  );
}

export async function filesScreen(main: HTMLElement, session: string): Promise<void> {
  const refresh = () => void filesScreen(main, session);
  const title = screenTitle(
    `Files of ${session}`,
    route(`/sessions/${enc(session)}`, 'Back to the session', { class: 'button' }),
  );
  let list: FileList;
  try {
    list = await get<FileList>(`files/${enc(session)}`);
  } catch (e) {
    fill(main, title, problem(e, `The files of ${session}`));
    return;
  }
  const downloads = list.files.filter((f) => !f.kept);
  fill(
    main,
    title,
    h(
      'div',
      { class: 'toolbar' },
      h(
        'p',
        { class: 'lede', 'data-testid': 'total' },
        `${plural(list.files.length, 'file')} · ${bytes(list.total_bytes)} in all`,
      ),
      downloads.length ? clearDownloads(session, downloads, refresh) : null,
    ),
    list.files.length
      ? tileGrid(
          `Files of ${session}`,
          list.files.map((f) => fileTile(session, f, refresh)),
        )
      : h(
          'p',
          { class: 'empty' },
          'No files: downloads, screenshots and PDFs of this session appear here.',
        ),
  );
}
