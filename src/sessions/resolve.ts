import { OpError } from '../core/errors.js';
import { checkName } from '../core/names.js';

/** The one place a caller's session name is read and checked, for every surface (DESIGN §6). */
export function resolveSessionName(sources: {
  header?: string | null;
  query?: string | null;
  flag?: string | null;
}): string {
  const given = [sources.header, sources.query, sources.flag].filter(
    (v): v is string => typeof v === 'string' && v !== '',
  );
  if (sources.header && sources.query) {
    throw new OpError(
      'invalid_argument',
      'The session is named twice (X-Session-Key header and ?session=); use one.',
    );
  }
  if (given.length === 0) {
    throw new OpError(
      'invalid_argument',
      'No session named. Name one with the X-Session-Key header or ?session=NAME (HTTP and MCP over HTTP), or --session NAME (CLI and stdio MCP); a session name is a credential, so pick one that is hard to guess.',
    );
  }
  return checkName('session', given[0]);
}
