// user:pass@ in a URL is a credential; the lookbehind keeps XPaths such as //input[@name='q'] intact.
// The match runs to the last @ before the host, so a password holding an @ goes too.
const URL_CREDENTIALS = /(?<=[a-z][a-z0-9+.-]*:\/\/)[^\s/?#'"<>]+@/gi;

/** Removes credentials embedded in URLs from any text the server emits (errors, logs, results). */
export function stripUrlCredentials(text: string): string {
  return text.replace(URL_CREDENTIALS, '');
}
