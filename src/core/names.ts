import { OpError } from './errors.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The one rule for session, flow and library names (DESIGN §8): rejected, never rewritten. */
export function checkName(
  kind: 'session' | 'flow' | 'library' | 'file' | 'profile',
  name: string,
): string {
  if (!NAME.test(name)) {
    throw new OpError(
      'invalid_argument',
      `Invalid ${kind} name ${JSON.stringify(name.slice(0, 80))}: use 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit.`,
    );
  }
  return name;
}
