import { ApiError, API, enc } from '../api.js';
import { openModal } from '../components/modal.js';
import type { FlowDocument, SavedFlow } from '../contract.js';
import { fill, h } from '../dom.js';
import { announce } from './common.js';

const HEAD_LINES = 8;
const head = (text: string) => text.split('\n').slice(0, HEAD_LINES).join('\n');

async function readYaml(path: string): Promise<{ text: string; revision: string }> {
  const response = await fetch(new URL(path, API), {
    headers: { accept: 'application/yaml' },
    credentials: 'same-origin',
  });
  if (!response.ok) throw new Error(`Could not read the stored flow (${response.status}).`);
  return {
    text: await response.text(),
    revision: (response.headers.get('etag') ?? '').replace(/"/g, ''),
  };
}

/**
 * Edits a flow's stored YAML text (comments kept) in a modal. The save names the revision it was
 * read at (If-Match): when someone saved in between, the server refuses with 412 and the modal shows
 * the head of both versions, to take theirs or to save over it knowingly.
 */
export function editFlow(doc: FlowDocument, saved: () => void): void {
  const path = `flows/${enc(doc.library)}/${enc(doc.name)}`;
  let revision = doc.revision;
  const textarea = h('textarea', {
    id: 'yaml-editor',
    rows: 18,
    spellcheck: 'false',
    'aria-label': `YAML of ${doc.name}`,
    'data-autofocus': true,
  });
  textarea.value = doc.yaml;
  const conflict = h('div', { class: 'conflict', 'aria-live': 'polite' });
  const revisionNote = h('p', { class: 'muted' }, `Editing revision ${revision}.`);

  const showConflict = async () => {
    const theirs = await readYaml(path);
    fill(
      conflict,
      h('h3', {}, 'Someone saved this flow since you opened it'),
      h(
        'div',
        { class: 'heads' },
        h(
          'figure',
          {},
          h('figcaption', {}, `Stored (revision ${theirs.revision})`),
          h('pre', { 'data-testid': 'theirs' }, head(theirs.text)),
        ),
        h(
          'figure',
          {},
          h('figcaption', {}, `Yours (from revision ${revision})`),
          h('pre', { 'data-testid': 'yours' }, head(textarea.value)),
        ),
      ),
      h(
        'div',
        { class: 'modal-actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'button',
            onclick: () => {
              textarea.value = theirs.text;
              revision = theirs.revision;
              revisionNote.textContent = `Editing revision ${revision}.`;
              conflict.replaceChildren();
              textarea.focus();
            },
          },
          'Load the stored version',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'button danger',
            onclick: () => {
              revision = theirs.revision;
              revisionNote.textContent = `Saving over revision ${revision}.`;
              conflict.replaceChildren();
              textarea.focus();
            },
          },
          'Keep mine, save over it',
        ),
      ),
    );
    conflict.querySelector<HTMLButtonElement>('button')?.focus();
  };

  openModal({
    title: `Edit ${doc.library}/${doc.name}`,
    body: [revisionNote, textarea, conflict],
    confirm: {
      label: 'Save',
      run: async () => {
        const response = await fetch(new URL(path, API), {
          method: 'PUT',
          headers: { 'content-type': 'application/yaml', 'if-match': `"${revision}"` },
          body: textarea.value,
          credentials: 'same-origin',
        });
        const body = (await response.json()) as SavedFlow & { error?: ApiError['info'] };
        if (response.status === 412) {
          await showConflict();
          return 'keep-open';
        }
        if (!response.ok)
          throw new Error(body.error?.message ?? `The server answered ${response.status}.`);
        announce(`Saved ${doc.library}/${doc.name} at revision ${body.revision}.`);
        saved();
      },
    },
  });
}
