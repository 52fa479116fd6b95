import { OpError } from '../../core/errors.js';

/** DOM key names as WebDriver's key code points (W3C WebDriver §17.4.2). */
const KEY_CODES: Record<string, string> = {
  Unidentified: '\uE000',
  Cancel: '\uE001',
  Help: '\uE002',
  Backspace: '\uE003',
  Tab: '\uE004',
  Clear: '\uE005',
  Return: '\uE006',
  Enter: '\uE007',
  Shift: '\uE008',
  ShiftLeft: '\uE008',
  Control: '\uE009',
  ControlLeft: '\uE009',
  Alt: '\uE00A',
  AltLeft: '\uE00A',
  Pause: '\uE00B',
  Escape: '\uE00C',
  ' ': '\uE00D',
  Space: '\uE00D',
  PageUp: '\uE00E',
  PageDown: '\uE00F',
  End: '\uE010',
  Home: '\uE011',
  ArrowLeft: '\uE012',
  ArrowUp: '\uE013',
  ArrowRight: '\uE014',
  ArrowDown: '\uE015',
  Insert: '\uE016',
  Delete: '\uE017',
  F1: '\uE031',
  F2: '\uE032',
  F3: '\uE033',
  F4: '\uE034',
  F5: '\uE035',
  F6: '\uE036',
  F7: '\uE037',
  F8: '\uE038',
  F9: '\uE039',
  F10: '\uE03A',
  F11: '\uE03B',
  F12: '\uE03C',
  Meta: '\uE03D',
  MetaLeft: '\uE03D',
  ShiftRight: '\uE050',
  ControlRight: '\uE051',
  AltRight: '\uE052',
  MetaRight: '\uE053',
};

/** A key as WebDriver's `value`: a DOM key name, a `KeyA`/`Digit1` code, or one character. */
export function webdriverKey(key: string): string {
  const named = KEY_CODES[key];
  if (named) return named;
  if ([...key].length === 1) return key;
  const code = /^(?:Key([A-Z])|Digit([0-9]))$/.exec(key);
  if (code) return (code[1] ?? code[2]).toLowerCase();
  throw new OpError(
    'invalid_argument',
    `"${key}" is not a key. Give a character ("a"), a DOM key name ("Enter", "ArrowLeft") or a chord ("Control+a").`,
  );
}

/** Text as key strokes: a newline is Enter, every other character is itself. */
export function textKeys(text: string): string[] {
  return [...text.replace(/\r\n?/g, '\n')].map((c) => (c === '\n' ? KEY_CODES.Enter : c));
}
