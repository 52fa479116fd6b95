import { OpError } from '../core/errors.js';
import { nearest } from '../core/nearest.js';

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

/** DOM key names every backend can press (Playwright's keyboard and WebDriver's key table). */
const KEY_NAMES = new Set([
  'Alt',
  'AltLeft',
  'AltRight',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'ArrowUp',
  'Backspace',
  'Control',
  'ControlLeft',
  'ControlRight',
  'Delete',
  'End',
  'Enter',
  'Escape',
  'Home',
  'Insert',
  'Meta',
  'MetaLeft',
  'MetaRight',
  'PageDown',
  'PageUp',
  'Shift',
  'ShiftLeft',
  'ShiftRight',
  'Space',
  'Tab',
  ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
]);

/** `KeyA`, `Digit1`: key codes, pressed as the character they make. */
const CODE = /^(Key[A-Z]|Digit[0-9])$/;

function nearestKey(part: string): string | undefined {
  const name = nearest(part, [...KEY_NAMES, ...Object.keys(ALIASES)]);
  return name === undefined ? undefined : (ALIASES[name] ?? name);
}

function keyName(part: string, chord: string): string {
  if (part.length === 1) return part;
  const alias = ALIASES[part.toLowerCase()];
  if (alias) return alias;
  if (KEY_NAMES.has(part) || CODE.test(part)) return part;
  const meant = nearestKey(part);
  throw new OpError(
    'invalid_argument',
    `press: "${part}" in ${JSON.stringify(chord)} is not a key${meant ? ` (did you mean "${meant}"?)` : ''}; nothing was pressed. Give a character ("a"), a DOM key name ("Enter", "ArrowLeft", "Escape", "F5") or a chord ("Control+a").`,
  );
}

/**
 * `Control+Shift+a` → ['Control', 'Shift', 'a']; `+` and `Control++` work too. The whole chord is
 * checked here, before any key goes down, so a typo never leaves a modifier held.
 */
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
