import { OpError } from './errors.js';

/** Session, flow and library names; published as the pattern of those parameters (OpenAPI). */
export const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

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

/**
 * What makes `name` unusable as a file name, or undefined: file names (downloads, screenshots)
 * are used exactly as given, never trimmed or rewritten, only refused when they could leave
 * their directory.
 */
export function fileNameProblem(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..') return 'is not a file name';
  if (/[/\\\0]/.test(name))
    return 'contains a path separator or NUL; a file is named by its name alone, no directories';
  if (Buffer.byteLength(name) > 255) return 'is longer than 255 bytes';
  return undefined;
}
