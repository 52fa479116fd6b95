import { OpError } from '../core/errors.js';

const ALIASES: Record<string, string> = {
  ctrl: 'Control',
  control: 'Control',
  controlormeta: process.platform === 'darwin' ? 'Meta' : 'Control',
  cmd: 'Meta',
  command: 'Meta',
  meta: 'Meta',
  win: 'Meta',
  option: 'Alt',
  alt: 'Alt',
  shift: 'Shift',
  esc: 'Escape',
  escape: 'Escape',
  return: 'Enter',
  enter: 'Enter',
  del: 'Delete',
  delete: 'Delete',
  backspace: 'Backspace',
  tab: 'Tab',
  space: ' ',
  up: 'ArrowUp',
  down: 'ArrowDown',
  left: 'ArrowLeft',
  right: 'ArrowRight',
  arrowup: 'ArrowUp',
  arrowdown: 'ArrowDown',
  arrowleft: 'ArrowLeft',
  arrowright: 'ArrowRight',
  pageup: 'PageUp',
  pagedown: 'PageDown',
  home: 'Home',
  end: 'End',
  insert: 'Insert',
};

const NAMED = /^(F([1-9]|1[0-9]|2[0-4])|[A-Z][A-Za-z]+)$/;

function keyName(part: string, chord: string): string {
  if (part.length === 1) return part;
  const alias = ALIASES[part.toLowerCase()];
  if (alias) return alias;
  if (NAMED.test(part)) return part;
  throw new OpError(
    'invalid_argument',
    `press: "${part}" in ${JSON.stringify(chord)} is not a key. Give a character ("a"), a DOM key name ("Enter", "ArrowLeft", "Escape") or a chord ("Control+a").`,
  );
}

/** `Control+Shift+a` → ['Control', 'Shift', 'a']; `+` and `Control++` work too. */
export function parseChord(chord: string): string[] {
  if (chord === '+') return ['+'];
  const parts = chord.endsWith('++') ? [...chord.slice(0, -2).split('+'), '+'] : chord.split('+');
  if (parts.some((p) => p === ''))
    throw new OpError(
      'invalid_argument',
      `press: ${JSON.stringify(chord)} is not a key chord; write it like "Control+a".`,
    );
  return parts.map((p) => keyName(p, chord));
}
