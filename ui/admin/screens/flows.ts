import { call, enc, get, NotAvailable } from '../api.js';
import { button } from '../components/button.js';
import { confirmModal, openModal } from '../components/modal.js';
import { pill } from '../components/pill.js';
import type {
  FlowDocument,
  FlowLibraries,
  FlowOutline,
  FlowSummary,
  SessionList,
} from '../contract.js';
import { fill, h, shown, type Child } from '../dom.js';
import { announce, problem, screenTitle } from './common.js';
import { editFlow } from './flow-editor.js';

const GLOBAL = 'global';

const OP_ICONS: Record<string, string> = {
  goto: '↗',
  click: '◉',
  fill: '✎',
  type: '⌨',
  press: '⏎',
  select: '☰',
  assert: '✓',
  wait: '⏱',
  screenshot: '▣',
  read: '¶',
  snapshot: '⌗',
  evaluate: 'ƒ',
  hover: '☝',
  scroll: '↕',
};

/** An op as an icon whose accessible name is the op itself. */
const opIcon = (op: string) =>
  h('span', { class: 'op-icon', role: 'img', 'aria-label': op, title: op }, OP_ICONS[op] ?? '•');

type Picked = { kind: 'param'; index: number } | { kind: 'step'; index: number };

interface Chosen {
  doc: FlowDocument;
  outline: FlowOutline;
  /** False when the server lacks the outline route: read_by and binds_secret are unknown. */
  computed: boolean;
}

/** What the document says, when the server cannot outline it: no reads, no secret marks. */
function outlineOfDocument(doc: FlowDocument): FlowOutline {
  const flow = (doc.flow ?? {}) as {
    parameters?: {
      properties?: Record<string, { type?: unknown; description?: string; default?: unknown }>;
    };
    steps?: { id?: string; op: string; args?: unknown; on_error?: unknown; note?: string }[];
  };
  return {
    name: doc.name,
    library: doc.library,
    revision: doc.revision,
    params: Object.entries(flow.parameters?.properties ?? {}).map(([name, p]) => ({
      name,
      type: p.type,
      description: p.description,
      default: p.default,
      read_by: [],
      unread: false,
    })),
    steps: (flow.steps ?? []).map((s, i) => ({
      id: s.id ?? String(i + 1),
      op: s.op,
      args: s.args,
      on_error: s.on_error,
      note: s.note,
      binds_secret: false,
      reads: [],
    })),
  };
}

function detail(chosen: Chosen, picked: Picked | undefined): HTMLElement {
  const { outline, computed } = chosen;
  const pane = h(
    'section',
    { class: 'column detail', 'aria-label': 'Detail' },
    h('h2', {}, 'Detail'),
  );
  if (!picked) {
    pane.append(h('p', { class: 'empty' }, 'Pick a parameter or a step in the outline.'));
    return pane;
  }
  if (picked.kind === 'param') {
    const p = outline.params[picked.index];
    pane.append(
      h('h3', {}, `Parameter ${p.name}`),
      h(
        'dl',
        {},
        h('dt', {}, 'Type'),
        h('dd', {}, shown(p.type)),
        h('dt', {}, 'Description'),
        h('dd', {}, p.description ?? '—'),
        h('dt', {}, 'Default'),
        h('dd', {}, shown(p.default)),
        h('dt', {}, 'Read by'),
        h(
          'dd',
          {},
          computed
            ? p.read_by.length
              ? p.read_by.join(', ')
              : 'no step'
            : 'not available on this server',
        ),
      ),
      p.unread
        ? h(
            'p',
            { class: 'notice warn' },
            `No step reads ${p.name}: a caller passing it changes nothing.`,
          )
        : '',
    );
  } else {
    const s = outline.steps[picked.index];
    pane.append(
      h('h3', {}, opIcon(s.op), ` ${s.op} · ${s.id}`),
      h(
        'dl',
        {},
        h('dt', {}, 'Arguments'),
        h('dd', {}, h('pre', {}, JSON.stringify(s.args ?? {}, null, 2))),
        h('dt', {}, 'On error'),
        h('dd', {}, shown(s.on_error ?? 'stop')),
        h('dt', {}, 'Note'),
        h('dd', {}, s.note ?? '—'),
        h('dt', {}, 'Reads'),
        h(
          'dd',
          {},
          computed
            ? s.reads.length
              ? s.reads.join(', ')
              : 'no parameter'
            : 'not available on this server',
        ),
      ),
    );
  }
  return pane;
}

function outlinePane(
  chosen: Chosen,
  picked: Picked | undefined,
  pick: (p: Picked) => void,
): HTMLElement {
  const { outline, computed } = chosen;
  // Marks sit beside the button, not in it: a button's content is presentational, so an icon
  // inside would lose its accessible name.
  const item = (p: Picked, before: Child, text: string, after: Child, label: string) => {
    const current = picked?.kind === p.kind && picked.index === p.index;
    return h(
      'li',
      { class: 'pick-row' },
      before,
      h(
        'button',
        {
          type: 'button',
          class: `pick${current ? ' current' : ''}`,
          'aria-pressed': String(current),
          'aria-label': label,
          onclick: () => pick(p),
        },
        h('code', {}, text),
      ),
      after,
    );
  };
  return h(
    'section',
    { class: 'column outline', 'aria-label': 'Outline' },
    h('h2', {}, `Outline of ${outline.name}`),
    computed
      ? null
      : h(
          'p',
          { class: 'notice unavailable' },
          'The computed outline (which steps read which parameter, secret binds) is not available on this server; shown from the document.',
        ),
    h('h3', {}, 'Parameters'),
    outline.params.length
      ? h(
          'ul',
          { class: 'plain' },
          outline.params.map((p, index) =>
            item(
              { kind: 'param', index },
              null,
              p.name,
              p.unread ? pill('unread', 'warn') : null,
              `Parameter ${p.name}${p.unread ? ' (unread)' : ''}`,
            ),
          ),
        )
      : h('p', { class: 'empty' }, 'No parameters.'),
    h('h3', {}, 'Steps'),
    h(
      'ol',
      { class: 'plain steps' },
      outline.steps.map((s, index) =>
        item(
          { kind: 'step', index },
          opIcon(s.op),
          s.id,
          s.binds_secret
            ? h(
                'span',
                {
                  class: 'lock',
                  role: 'img',
                  'aria-label': 'binds a secret',
                  title: 'binds a secret',
                },
                '🔒',
              )
            : null,
          `Step ${s.id}: ${s.op}${s.binds_secret ? ', binds a secret' : ''}`,
        ),
      ),
    ),
  );
}

async function choose(library: string, name: string): Promise<Chosen> {
  const path = `flows/${enc(library)}/${enc(name)}`;
  const doc = await get<FlowDocument>(path);
  try {
    return { doc, outline: await get<FlowOutline>(`${path}/outline`), computed: true };
  } catch (e) {
    if (e instanceof NotAvailable) return { doc, outline: outlineOfDocument(doc), computed: false };
    throw e;
  }
}

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
    { label: session ? `Move to session ${session}` : 'Move to a session' },
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
