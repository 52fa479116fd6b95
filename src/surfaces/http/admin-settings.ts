import { Hono } from 'hono';
import { routeDocs } from './route-docs.js';
import { SETTINGS, type Config, type SettingName, type SettingSource } from '../../config.js';

const operatorDoc = routeDocs('admin', 'operator');

/** What stands in for a value the operator may not read back. */
export const MASK = '••••';

export interface SettingView {
  name: SettingName;
  env: string;
  value: unknown;
  source: SettingSource;
  secret: boolean;
  doc: string;
}

/** A URL with its password (or a user name alone, often a token) masked; the rest as written. */
function maskUrlCredentials(value: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*)@/i.exec(value);
  if (!m) return value;
  const colon = m[2].indexOf(':');
  const userinfo = colon >= 0 ? `${m[2].slice(0, colon)}:${MASK}` : MASK;
  return `${m[1]}${userinfo}@${value.slice(m[0].length)}`;
}

/**
 * Every setting with its effective value and where it came from. Masking is read off the
 * setting's own declaration (`secret`, `urlCredentials`), never guessed from its name.
 */
export function settingsView(config: Config): SettingView[] {
  return (Object.keys(SETTINGS) as SettingName[]).map((name) => {
    const setting = SETTINGS[name];
    const secret = 'secret' in setting && setting.secret;
    const raw = config[name] as unknown;
    let value: unknown = raw ?? null;
    if (secret && raw !== undefined) value = MASK;
    else if ('urlCredentials' in setting && typeof raw === 'string')
      value = maskUrlCredentials(raw);
    return {
      name,
      env: setting.env,
      value,
      source: config.sources[name],
      secret,
      doc: setting.doc,
    };
  });
}

/** `GET /admin/settings`, mounted behind the operator guard. */
export function adminSettingsRoutes(config: Config): Hono {
  const app = new Hono();
  app.get(
    '/',
    operatorDoc({
      id: 'admin_settings',
      summary: 'Every setting with its effective value and source; secrets masked',
      answers: { 200: { description: 'The settings' } },
    }),
    (c) => c.json({ settings: settingsView(config) }),
  );
  return app;
}
