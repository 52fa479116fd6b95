import { API, get } from '../api.js';
import { pill } from '../components/pill.js';
import { row, table } from '../components/row.js';
import type { AuditEntry, AuditLog } from '../contract.js';
import { fill, h, when } from '../dom.js';
import { problem, screenTitle } from './common.js';

/** Refusals first, then newest first: the order the server answers in, kept as events arrive. */
function ordered(entries: AuditEntry[]): AuditEntry[] {
  return [...entries].sort(
    (a, b) => Number(a.allowed) - Number(b.allowed) || b.at.localeCompare(a.at),
  );
}

function origin(url: string | undefined): string {
  if (!url) return '—';
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function auditRow(e: AuditEntry): HTMLTableRowElement {
  return row(
    [
      e.allowed ? pill('bound', 'good') : pill('refused', 'bad'),
      e.session,
      [e.flow ?? '—', e.step ? ` · ${e.step}` : ''],
      h('code', {}, e.secret),
      h('code', {}, e.key),
      origin(e.url),
      e.reason ?? '',
      when(e.at),
    ],
    { 'data-allowed': String(e.allowed) },
  );
}

let stream: EventSource | undefined;

/** Ends the live feed when the operator leaves the screen. */
export function stopAudit(): void {
  stream?.close();
  stream = undefined;
}

export async function auditScreen(main: HTMLElement): Promise<void> {
  stopAudit();
  const title = screenTitle('Audit');
  let log: AuditLog;
  try {
    log = await get<AuditLog>('audit');
  } catch (e) {
    fill(main, title, problem(e, 'The secret audit'));
    return;
  }
  let entries = log.entries;
  const live = h('p', { class: 'muted', role: 'status' }, 'Connecting to live updates…');
  const slot = h('div', {});
  const render = () =>
    fill(
      slot,
      entries.length
        ? table(
            'Secret binds and refusals',
            ['Outcome', 'Session', 'Flow · step', 'Secret', 'Key', 'Origin', 'Reason', 'When'],
            ordered(entries).map(auditRow),
          )
        : h('p', { class: 'empty' }, 'No secret was bound or refused since the server started.'),
    );
  fill(
    main,
    title,
    h(
      'p',
      { class: 'lede' },
      `Secret binds and refusals, refusals first; the server keeps the last ${log.capacity}. Never a value.`,
    ),
    live,
    slot,
  );
  render();
  stream = new EventSource(new URL('audit/events', API));
  stream.onopen = () => (live.textContent = 'Live: new binds appear as they happen.');
  stream.onerror = () => (live.textContent = 'Live updates interrupted; retrying.');
  stream.addEventListener('bind', (event) => {
    entries = [JSON.parse((event as MessageEvent<string>).data) as AuditEntry, ...entries].slice(
      0,
      log.capacity,
    );
    render();
  });
}
