import { browserEntry, type CapabilitiesReport, type OpenOptions } from '../driver.js';

type Source = 'flow' | 'server' | 'client' | 'option' | 'config';

export interface LaunchInputs {
  executablePath: string;
  /** BROWSER_PATH was set (else the path was found on this machine). */
  executableFromConfig: boolean;
  /** SwiftBrowse's own Chromium flags, always sent. */
  flowArgs: readonly string[];
  /** Flags the config adds (blocked hosts' resolver rules). */
  configArgs: readonly string[];
  options: OpenOptions;
}

/**
 * What the local backend launched a browser with, in the shape of a WebDriver capabilities report,
 * so the operator reads both backends alike. Sources: flow (SwiftBrowse always sends it), config
 * (BROWSER_PATH, blocked hosts), option (the session's settings: HEADLESS, open's arguments).
 */
export function launchReport(inputs: LaunchInputs): CapabilitiesReport {
  const { options } = inputs;
  const sent: { key: string; value: unknown; sources: Source[] }[] = [
    browserEntry(options),
    {
      key: 'executablePath',
      value: inputs.executablePath,
      sources: [inputs.executableFromConfig ? 'config' : 'flow'],
    },
    { key: 'headless', value: options.headless, sources: ['option'] },
    {
      key: 'args',
      value: [...inputs.flowArgs, ...inputs.configArgs],
      sources: inputs.configArgs.length ? ['flow', 'config'] : ['flow'],
    },
    { key: 'viewport', value: options.viewport, sources: ['option'] },
    { key: 'acceptDownloads', value: true, sources: ['flow'] },
    { key: 'ignoreHTTPSErrors', value: options.insecure ?? false, sources: ['option'] },
  ];
  if (options.locale) sent.push({ key: 'locale', value: options.locale, sources: ['option'] });
  if (options.userAgent)
    sent.push({ key: 'userAgent', value: options.userAgent, sources: ['option'] });
  if (options.profileDir)
    sent.push({ key: 'userDataDir', value: options.profileDir, sources: ['option'] });
  if (options.storageStatePath)
    sent.push({ key: 'storageState', value: options.storageStatePath, sources: ['option'] });
  return {
    asked: { browser: options.browser, version: options.version ?? 'latest' },
    sent,
    ignored: [],
  };
}
