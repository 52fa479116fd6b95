import { ApiError, call, enc, get, serverPath } from '../api.js';
import { button } from '../components/button.js';
import { card } from '../components/card.js';
import { confirmModal } from '../components/modal.js';
import { pill, statePill } from '../components/pill.js';
import type { BrowserRecord, EndedBy, SessionDetail } from '../contract.js';
import { duration, fill, h, safeLink, shown, when, type Child } from '../dom.js';
import { capabilities } from './capabilities.js';
import { announce, problem, route, screenTitle } from './common.js';
import { deleteDataAction } from './sessions.js';
import { isFinished, stateOf } from './state.js';

const ENDED_BY: Record<EndedBy, string> = {
  caller: 'the caller (close)',
  operator: 'an operator',
  idle: 'idle release (SESSION_TTL)',
  grid: 'gone from the Grid',
  crashed: 'the browser crashed',
  stuck: 'stuck, ended by SwiftBrowse',
};

const yesNo = (v: boolean | undefined) => (v === undefined ? '—' : v ? 'yes' : 'no');

function sessionCard(d: SessionDetail, record: BrowserRecord | undefined): HTMLElement {
  const asked = record?.asked;
  const s = d.settings;
  const timeouts = asked?.timeouts ?? {
    timeout_ms: s.timeout_ms,
    navigation_timeout_ms: s.navigation_timeout_ms,
    page_load_timeout_ms: s.page_load_timeout_ms,
    script_timeout_ms: s.script_timeout_ms,
  };
  const rows: [string, Child][] = [
    ['Browser', shown(asked?.browser ?? s.browser)],
    ['Version', shown(asked?.version ?? s.version ?? 'latest')],
    ['Window', shown(asked?.window ?? s.viewport)],
    ['Headless', yesNo(asked?.headless ?? (s.headless as boolean | undefined))],
    ['Record', shown(asked?.record ?? s.record ?? 'off')],
    [
      'Timeouts',
      shown(Object.fromEntries(Object.entries(timeouts).filter(([, v]) => v !== undefined))),
    ],
    ['Created', when(d.created_at)],
    ['Last active', `${when(d.last_active_at)} (idle ${duration(d.idle_ms)})`],
    ['Ops run', shown(d.ops)],
  ];
  return card('Session', rows);
}

function browserCard(d: SessionDetail, record: BrowserRecord | undefined): HTMLElement {
  const ran = record?.ran;
  const rows: [string, Child][] = [
    ['Backend', shown(ran?.backend ?? d.backend)],
    ['Browser', shown(ran?.browser ?? d.running?.browser)],
    ['Version', shown(ran?.version ?? d.running?.version)],
    ['Grid session', shown(ran?.grid_session_id)],
    ['Node', shown(ran?.node ?? d.running?.node)],
    ['Started', when(ran?.started_at)],
    ['Idle timeout', duration(ran?.idle_timeout_ms)],
    ['Live view', yesNo(ran?.live_view)],
  ];
  const ended = record?.ended;
  if (ended) rows.push(['Ended', `${when(ended.at)} by ${ENDED_BY[ended.by] ?? ended.by}`]);
  const note = record
    ? null
    : h(
        'p',
        { class: 'notice unavailable' },
        'What the browser was asked and how it ran after it ended is not available on this server (it keeps no browser record).',
      );
  return card('Browser', rows, note);
}

function actions(d: SessionDetail, refresh: () => void): HTMLElement {
  const state = stateOf(d);
  const name = d.name;
  const end =
    state === 'open' || state === 'busy'
      ? button(
          'End browser',
          () =>
            confirmModal(
              `End the browser of ${name}?`,
              [
                h(
                  'p',
                  {},
                  `Its tabs close and an op it is running fails. The session and its kept files stay; its next op opens a new browser.`,
                ),
              ],
              'End browser',
              async () => {
                await call(`sessions/${enc(name)}/browser`, { method: 'DELETE' });
                announce(`Ended the browser of ${name}.`);
                refresh();
              },
            ),
          { tone: 'danger' },
        )
      : null;
  const forget = button('Forget session', () =>
    confirmModal(
      `Forget ${name}?`,
      [
        h(
          'p',
          {},
          `The server drops its record (settings, counters, last page); its files and flows stay on disk.`,
        ),
      ],
      'Forget',
      async () => {
        await call(`sessions/${enc(name)}`, { method: 'DELETE' });
        announce(`Forgot ${name}.`);
        location.hash = '#/sessions';
      },
    ),
  );
  return h(
    'div',
    { class: 'toolbar' },
    end,
    isFinished(d) ? deleteDataAction(d, refresh) : null,
    forget,
    route(`/sessions/${enc(name)}/files`, 'Files', { class: 'button' }),
    route(`/flows?session=${enc(name)}`, 'Flows', { class: 'button' }),
    h(
      'a',
      { class: 'button', href: serverPath(`viewer#session=${enc(name)}`) },
      'Open in log viewer',
    ),
  );
}

export async function sessionScreen(main: HTMLElement, name: string): Promise<void> {
  const refresh = () => void sessionScreen(main, name);
  let d: SessionDetail;
  try {
    d = await get<SessionDetail>(`sessions/${enc(name)}`);
  } catch (e) {
    // An orphan (a directory with no record) has no detail, but still has files and flows.
    const orphan = e instanceof ApiError && e.info?.kind === 'session_not_found';
    fill(
      main,
      screenTitle(`Session ${name}`),
      problem(e, `Session ${name}`),
      orphan
        ? h(
            'div',
            { class: 'toolbar' },
            route(`/sessions/${enc(name)}/files`, 'Files', { class: 'button' }),
            route(`/flows?session=${enc(name)}`, 'Flows', { class: 'button' }),
          )
        : null,
    );
    return;
  }
  const record = d.browser_record;
  const sent = record?.sent;
  fill(
    main,
    screenTitle(`Session ${name}`, statePill(stateOf(d)), d.orphan ? pill('orphan', 'info') : ''),
    h(
      'p',
      { class: 'lede' },
      'Last page: ',
      h('span', { 'data-testid': 'last-page' }, safeLink(d.last_url)),
    ),
    actions(d, refresh),
    h('div', { class: 'cards' }, sessionCard(d, record), browserCard(d, record)),
    capabilities(
      sent?.capabilities ?? d.capabilities?.sent,
      sent?.ignored ?? d.capabilities?.ignored,
    ),
  );
}
