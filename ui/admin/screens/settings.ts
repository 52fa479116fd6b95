import { get } from '../api.js';
import { pill } from '../components/pill.js';
import { row, table } from '../components/row.js';
import type { Setting } from '../contract.js';
import { fill, h, shown } from '../dom.js';
import { problem, screenTitle } from './common.js';

const SOURCE_TONES = { default: 'neutral', env: 'info', flag: 'warn' } as const;

export async function settingsScreen(main: HTMLElement): Promise<void> {
  const title = screenTitle('Settings');
  let settings: Setting[];
  try {
    settings = (await get<{ settings: Setting[] }>('settings')).settings;
  } catch (e) {
    fill(main, title, problem(e, 'The settings view'));
    return;
  }
  fill(
    main,
    title,
    h(
      'p',
      { class: 'lede' },
      'Every setting with the value in effect and where it came from. Secrets and tokens are masked by the server.',
    ),
    table(
      'Settings',
      ['Setting', 'Value', 'Source', 'Environment', 'Meaning'],
      settings.map((s) =>
        row(
          [
            h('code', {}, s.name),
            [
              h('code', {}, shown(s.value)),
              s.secret ? pill('secret', 'warn', 'Masked by the server') : null,
            ],
            pill(s.source, SOURCE_TONES[s.source] ?? 'neutral'),
            h('code', {}, s.env),
            s.doc,
          ],
          { 'data-setting': s.name },
        ),
      ),
    ),
  );
}
