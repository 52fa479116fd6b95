import { h } from './dom.js';
import { auditScreen, stopAudit } from './screens/audit.js';
import { filesScreen } from './screens/files.js';
import { flowsScreen } from './screens/flows.js';
import { sessionScreen } from './screens/session.js';
import { sessionsScreen } from './screens/sessions.js';
import { settingsScreen } from './screens/settings.js';

const main = document.getElementById('main') as HTMLElement;

/** The screen a hash names: `#/sessions`, `#/sessions/NAME`, `#/sessions/NAME/files`, `#/flows?…`. */
async function show(): Promise<void> {
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const section = parts[0] ?? 'sessions';
  if (section !== 'audit') stopAudit();
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a[data-section]')) {
    if (link.dataset.section === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  main.setAttribute('aria-busy', 'true');
  if (section === 'sessions' && parts[1] && parts[2] === 'files') await filesScreen(main, parts[1]);
  else if (section === 'sessions' && parts[1]) await sessionScreen(main, parts[1]);
  else if (section === 'flows') await flowsScreen(main, new URLSearchParams(query));
  else if (section === 'settings') await settingsScreen(main);
  else if (section === 'audit') await auditScreen(main);
  else await sessionsScreen(main);
  main.removeAttribute('aria-busy');
}

// A new screen takes the keyboard to its heading, as a page load would.
window.addEventListener('hashchange', () => {
  void show().then(() => main.querySelector<HTMLElement>('h1')?.focus());
});
main.append(h('p', { class: 'muted' }, 'Loading…'));
void show();
