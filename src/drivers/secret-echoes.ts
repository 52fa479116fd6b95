import type { BrowserTab } from './driver.js';
import { callInstalledPage } from './page-script.js';

/**
 * Runs a capture with the page's own text that shows a typed secret drawn blank (a page that
 * echoes the password into its DOM), then restores it. `capture` is told whether the document has
 * fields holding a secret, for the driver's field style; `onEchoes` how many elements were blanked.
 * A document our script never ran in took no secret, so it costs one short call and is not touched.
 */
export async function withSecretEchoesBlanked<T>(
  tab: BrowserTab,
  capture: (fields: boolean) => Promise<T>,
  onEchoes?: (count: number) => void,
): Promise<T> {
  const shown = await callInstalledPage(tab, [], 'blankSecretEchoes').catch(() => undefined);
  try {
    return await capture(shown?.fields ?? false);
  } finally {
    if (shown?.echoes) {
      await callInstalledPage(tab, [], 'unblankSecretEchoes').catch(() => undefined);
      onEchoes?.(shown.echoes);
    }
  }
}
