import type { Context } from 'hono';
import { OpError } from '../../core/errors.js';
import { BROWSER_NAMES, type BrowserName } from '../../drivers/driver.js';
import type { Session } from '../../sessions/session.js';
import type { SessionManager } from '../../sessions/session-manager.js';
import { applyClientBrowser } from '../../sessions/settings.js';

/**
 * The HTTP caller's layer of the browser cascade (seed 004 ruling 10): X-Browser or `?browser=`,
 * X-Version or `?version=`, over the server's BROWSER and SESSION_VERSION, under what `open`
 * names. A workflow tool's connector sets them once for every call it makes.
 */
export async function applyClientLayer(
  c: Context,
  session: Session,
  sessions: SessionManager,
): Promise<void> {
  const browser = (c.req.header('x-browser') ?? c.req.query('browser'))?.trim().toLowerCase();
  if (browser) {
    if (!(BROWSER_NAMES as readonly string[]).includes(browser))
      throw new OpError(
        'invalid_argument',
        `X-Browser (or ?browser=) "${browser}" is not a browser SwiftBrowse opens: send one of ${BROWSER_NAMES.join(', ')}, or leave it out for the server's BROWSER.`,
      );
    applyClientBrowser(session.settings, browser as BrowserName, session.hasBrowser());
  }
  const version = (c.req.header('x-version') ?? c.req.query('version'))?.trim();
  if (!version) return;
  // Checked as open's version is, on every call: a backend that cannot run it refuses it.
  const settings = { ...session.settings, clientVersion: version };
  await sessions.checkSettings(session, settings);
  // Sent with the next browser this session opens.
  session.settings.clientVersion = version;
}
