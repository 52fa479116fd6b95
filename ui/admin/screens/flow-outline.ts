import { enc, get, NotAvailable } from '../api.js';
import { pill } from '../components/pill.js';
import type { FlowDocument, FlowOutline } from '../contract.js';
import { h, shown, type Child } from '../dom.js';

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
export const opIcon = (op: string) =>
  h('span', { class: 'op-icon', role: 'img', 'aria-label': op, title: op }, OP_ICONS[op] ?? '•');

export type Picked = { kind: 'param'; index: number } | { kind: 'step'; index: number };

export interface Chosen {
  doc: FlowDocument;
  outline: FlowOutline;
  /** False when the server lacks the outline route: read_by and binds_secret are unknown. */
  computed: boolean;
}

/** What the document says, when the server cannot outline it: no reads, no secret marks. */
function outlineOfDocument(doc: FlowDocument): FlowOutline {
  const flow = (doc.flow ?? {}) as {
    parameters?: {
      properties?: Record<
        string,
        { type?: string | string[]; description?: string; default?: unknown }
      >;
    };
    steps?: {
      id?: string;
      op: string;
      args?: Record<string, unknown>;
      on_error?: 'abort' | 'continue';
      note?: string;
    }[];
  };
  return {
    name: doc.name,
    library: doc.library,
    revision: doc.revision,
    params: Object.entries(flow.parameters?.properties ?? {}).map(([name, p]) => ({
      name,
      // As the server's outline names a type: a union joined, none at all `any`.
      type: Array.isArray(p.type) ? p.type.join(' | ') : (p.type ?? 'any'),
      description: p.description,
      default: p.default,
      read_by: [],
      unread: false,
    })),
    steps: (flow.steps ?? []).map((s, i) => ({
      id: s.id ?? String(i + 1),
      op: s.op,
      args: s.args ?? {},
      on_error: s.on_error,
      note: s.note,
      binds_secret: false,
      reads: [],
    })),
  };
}

export function detail(chosen: Chosen, picked: Picked | undefined): HTMLElement {
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

export function outlinePane(
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

export async function choose(library: string, name: string): Promise<Chosen> {
  const path = `flows/${enc(library)}/${enc(name)}`;
  const doc = await get<FlowDocument>(path);
  try {
    return { doc, outline: await get<FlowOutline>(`${path}/outline`), computed: true };
  } catch (e) {
    if (e instanceof NotAvailable) return { doc, outline: outlineOfDocument(doc), computed: false };
    throw e;
  }
}
