import { call, enc, get } from '../api.js';
import { button } from '../components/button.js';
import { confirmModal, openModal } from '../components/modal.js';
import { pill } from '../components/pill.js';
import type { FlowDocument, FlowLibraries, FlowSummary, SessionList } from '../contract.js';
import { fill, h } from '../dom.js';
import { announce, problem, screenTitle } from './common.js';
import { editFlow } from './flow-editor.js';
import { choose, detail, outlinePane, type Chosen, type Picked } from './flow-outline.js';

const GLOBAL = 'global';

async function sessionNames(): Promise<string[]> {
  try {
    return (await get<SessionList>('sessions')).sessions.map((s) => s.name);
  } catch {
    return [];
  }
}

function moveAction(doc: FlowDocument, session: string | undefined, moved: (to: string) => void) {
  const move = async (to: string) => {
    const { body } = await call<{ library: string }>(
      `flows/${enc(doc.library)}/${enc(doc.name)}/move`,
      { method: 'POST', json: { to } },
    );
    announce(`Moved ${doc.name} to ${body.library}.`);
    moved(body.library);
  };
  if (doc.library !== GLOBAL)
    return button(
      '⇪ To global',
      () =>
        confirmModal(
          `Move ${doc.name} to global?`,
          [h('p', {}, 'Every session then lists and runs it; only an operator can change it.')],
          'Move to global',
          () => move(GLOBAL),
        ),
      { label: 'Move to global' },
    );
  return button(
    '⇩ To session',
    async () => {
      const select = h(
        'select',
        { id: 'move-to', 'aria-label': 'Session to move it to', 'data-autofocus': true },
        (await sessionNames()).map((n) => h('option', { value: n, selected: n === session }, n)),
      );
      openModal({
        title: `Move ${doc.name} to a session`,
        body: [h('label', { for: 'move-to' }, 'Session'), select],
        confirm: { label: 'Move', run: () => move(select.value) },
      });
    },
    { label: session ? `Move to session ${session}` : 'Move to session (pick one)' },
  );
}

export async function flowsScreen(main: HTMLElement, params: URLSearchParams): Promise<void> {
  const session = params.get('session') ?? undefined;
  const title = screenTitle('Flows');
  let libraries: FlowLibraries;
  try {
    libraries = await get<FlowLibraries>('flows');
  } catch (e) {
    fill(main, title, problem(e, 'The flow libraries'));
    return;
  }
  const wanted = { library: params.get('library'), name: params.get('name') };
  const reopen = (library?: string, name?: string) => {
    const q = new URLSearchParams();
    if (session) q.set('session', session);
    if (library && name) {
      q.set('library', library);
      q.set('name', name);
    }
    const next = `#/flows?${q}`;
    if (location.hash === next) void flowsScreen(main, q);
    else location.hash = next;
  };
  const ordered = [...libraries.libraries].sort((a, b) =>
    a.library === GLOBAL ? -1 : b.library === GLOBAL ? 1 : a.library.localeCompare(b.library),
  );
  const flowButton = (f: FlowSummary) => {
    const current = f.library === wanted.library && f.name === wanted.name;
    return h(
      'li',
      {},
      h(
        'button',
        {
          type: 'button',
          class: `pick${current ? ' current' : ''}`,
          'aria-pressed': String(current),
          onclick: () => reopen(f.library, f.name),
        },
        h('span', {}, f.name),
        f.library === GLOBAL
          ? pill('shared', 'info', 'In global: every session lists and runs it')
          : null,
        f.shadows_global ? pill('shadows global', 'warn') : null,
        f.problem ? pill('does not parse', 'bad') : null,
      ),
    );
  };
  const list = h(
    'section',
    { class: 'column list', 'aria-label': 'Flow list' },
    h('h2', {}, 'Libraries'),
    h(
      'p',
      { class: 'muted' },
      "global is shared: every session lists and runs its flows, and only an operator writes it. Every other library is one session's own.",
    ),
    ordered.length
      ? ordered.map((l) => [
          h('h3', {}, l.library),
          h('ul', { class: 'plain' }, l.flows.map(flowButton)),
        ])
      : h('p', { class: 'empty' }, 'No flows saved yet.'),
  );
  const columns = h('div', { class: 'columns' }, list);
  fill(main, title, columns);
  if (!wanted.library || !wanted.name) {
    columns.append(
      h(
        'section',
        { class: 'column outline', 'aria-label': 'Outline' },
        h('h2', {}, 'Outline'),
        h('p', { class: 'empty' }, 'Pick a flow.'),
      ),
    );
    return;
  }
  let chosen: Chosen;
  try {
    chosen = await choose(wanted.library, wanted.name);
  } catch (e) {
    columns.append(problem(e, `The flow ${wanted.library}/${wanted.name}`));
    return;
  }
  const { doc } = chosen;
  const toolbar = h(
    'div',
    { class: 'toolbar' },
    button('Edit YAML', () => editFlow(doc, () => reopen(doc.library, doc.name))),
    moveAction(doc, session, (to) => reopen(to, doc.name)),
    button(
      'Delete',
      () =>
        confirmModal(
          `Delete ${doc.library}/${doc.name}?`,
          [h('p', {}, `The flow is removed from ${doc.library}; callers can no longer run it.`)],
          'Delete',
          async () => {
            await call(`flows/${enc(doc.library)}/${enc(doc.name)}`, {
              method: 'DELETE',
              headers: { 'if-match': `"${doc.revision}"` },
            });
            announce(`Deleted ${doc.library}/${doc.name}.`);
            reopen();
          },
        ),
      { tone: 'danger', label: `Delete ${doc.name}` },
    ),
  );
  let picked: Picked | undefined;
  const outlineSlot = h('div', { class: 'slot' });
  const detailSlot = h('div', { class: 'slot' });
  const render = () => {
    const focused = document.activeElement?.getAttribute('aria-label');
    fill(
      outlineSlot,
      h('p', { class: 'muted' }, `${doc.library} · revision ${doc.revision}`),
      toolbar,
      outlinePane(chosen, picked, (p) => {
        picked = p;
        render();
      }),
    );
    fill(detailSlot, detail(chosen, picked));
    // Re-rendering replaced the picked button: keep the keyboard where it was.
    if (focused)
      outlineSlot.querySelector<HTMLElement>(`[aria-label="${CSS.escape(focused)}"]`)?.focus();
  };
  columns.append(outlineSlot, detailSlot);
  render();
}
