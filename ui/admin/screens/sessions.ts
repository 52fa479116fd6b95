import { call, enc, get } from '../api.js';
import { button } from '../components/button.js';
import { confirmModal } from '../components/modal.js';
import { pill, statePill } from '../components/pill.js';
import { row, table } from '../components/row.js';
import type { SessionList, SessionSummary } from '../contract.js';
import { bytes, duration, fill, h, safeLink, shown } from '../dom.js';
import { announce, problem, route, screenTitle } from './common.js';
import { isFinished, stateOf } from './state.js';

/** Deletes a finished session's files and state after the operator confirms; its flows and log stay. */
export function deleteDataAction(s: SessionSummary, after: () => void): HTMLButtonElement {
  return button(
    'Delete data',
    () =>
      confirmModal(
        `Delete the data of ${s.name}?`,
        [
          h(
            'p',
            {},
            `This removes the files of ${s.name} (${s.files ?? 'all'} files, ${bytes(s.kept_bytes)} kept), browser files and kept files alike. Its flows, its log and its record stay. It cannot be undone.`,
          ),
        ],
        'Delete data',
        async () => {
          const { body } = await call<{ removed: { files: number; bytes: number } }>(
            `sessions/${enc(s.name)}/data`,
            { method: 'DELETE' },
          );
          announce(
            `Deleted the data of ${s.name}: ${body.removed.files} files, ${bytes(body.removed.bytes)}.`,
          );
          after();
        },
      ),
    { label: `Delete data of ${s.name}`, tone: 'danger' },
  );
}

function sessionRow(s: SessionSummary, refresh: () => void): HTMLTableRowElement {
  const state = stateOf(s);
  return row(
    [
      route(`/sessions/${enc(s.name)}`, s.name),
      [
        statePill(state),
        s.orphan ? pill('orphan', 'info', 'A directory on disk with no session record') : null,
      ],
      shown(s.backend),
      safeLink(s.last_url),
      duration(s.idle_ms),
      shown(s.ops),
      shown(s.flows),
      shown(s.files),
      bytes(s.kept_bytes),
      [
        route(`/sessions/${enc(s.name)}/files`, 'Files', {
          class: 'button',
          'aria-label': `Files of ${s.name}`,
        }),
        isFinished(s) ? deleteDataAction(s, refresh) : null,
      ],
    ],
    { 'data-session': s.name, 'data-state': state },
  );
}

export async function sessionsScreen(main: HTMLElement): Promise<void> {
  const refresh = () => void sessionsScreen(main);
  let list: SessionList;
  try {
    list = await get<SessionList>('sessions');
  } catch (e) {
    fill(main, screenTitle('Sessions'), problem(e, 'The session list'));
    return;
  }
  const counts = h(
    'p',
    { class: 'lede' },
    `${list.sessions.length} sessions · ${list.live_browsers} of ${list.max_sessions} browsers open · store: ${list.store}`,
  );
  const body = list.sessions.length
    ? table(
        'Sessions',
        [
          'Session',
          'State',
          'Backend',
          'Last page',
          'Idle',
          'Ops',
          'Flows',
          'Files',
          'Kept',
          'Actions',
        ],
        list.sessions.map((s) => sessionRow(s, refresh)),
      )
    : h('p', { class: 'empty' }, 'No sessions yet: a session appears once a caller runs an op.');
  fill(main, screenTitle('Sessions', button('Refresh', refresh)), counts, body);
}
