import { deepActiveElement } from './controls.js';
import { allElements, deepQueryAll, describe } from './dom.js';
import { elementOf } from './handles.js';
import type { SecretTyping } from './protocol.js';

/**
 * Fields a secret was typed into. Their value is shown as `••••` in the text track (like a
 * password) and blanked in screenshots: the marker attribute lets a driver's screenshot style
 * ({@link SECRET_FIELD_ATTRIBUTE}) hide them, in this document and through shadow roots.
 */
const secretFields = new WeakSet<Element>();

/** Set on a field holding a secret; drivers blank `[data-swiftbrowse-secret]` in every capture. */
export const SECRET_FIELD_ATTRIBUTE = 'data-swiftbrowse-secret';

export function markSecretField(handle: number): boolean {
  const el = elementOf(handle);
  if (!el) return false;
  secretFields.add(el);
  el.setAttribute(SECRET_FIELD_ATTRIBUTE, '');
  return true;
}

/** Values typed from secrets into this document: text of its own that repeats one is blanked too. */
const typedValues = new Set<string>();

/** Elements drawn without their text for a capture, with the inline style they had before. */
const blankedEchoes = new Map<HTMLElement | SVGElement, string | null>();

const BLANK_TEXT: [string, string][] = [
  ['color', 'transparent'],
  ['-webkit-text-fill-color', 'transparent'],
  ['text-shadow', 'none'],
  ['caret-color', 'transparent'],
];

/**
 * Before a capture: whether this document has fields holding a secret (the driver's style blanks
 * them), and how many other elements show a typed secret's value as their own text or value (a
 * page that echoes the password), which are drawn without their text until
 * {@link unblankSecretEchoes}. Inline styles reach into shadow roots, where a document's style does
 * not. Text split across elements is not matched.
 */
export function blankSecretEchoes(): { fields: boolean; echoes: number } {
  const fields = deepQueryAll(document, `[${SECRET_FIELD_ATTRIBUTE}]`).length > 0;
  if (typedValues.size === 0) return { fields, echoes: 0 };
  const shows = (text: string) => [...typedValues].some((v) => text.includes(v));
  for (const el of allElements(document)) {
    if (!(el instanceof HTMLElement || el instanceof SVGElement) || isSecretField(el)) continue;
    if (el instanceof HTMLScriptElement || el instanceof HTMLStyleElement) continue;
    const own =
      el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement
        ? el.value
        : Array.from(el.childNodes, (n) => (n.nodeType === Node.TEXT_NODE ? n.nodeValue : '')).join(
            '',
          );
    if (!shows(own)) continue;
    blankedEchoes.set(el, el.getAttribute('style'));
    for (const [property, value] of BLANK_TEXT) el.style.setProperty(property, value, 'important');
  }
  return { fields, echoes: blankedEchoes.size };
}

/** After the capture: every element blankSecretEchoes blanked gets its own inline style back. */
export function unblankSecretEchoes(): void {
  for (const [el, style] of blankedEchoes) {
    if (style === null) el.removeAttribute('style');
    else el.setAttribute('style', style);
  }
  blankedEchoes.clear();
}

/** Whether the field holds a secret (its value must not be read into any text). */
export function isSecretField(el: Element): boolean {
  return secretFields.has(el) || el.hasAttribute(SECRET_FIELD_ATTRIBUTE);
}

/** Names what holds focus; a frame by its origin too, since that is where keys would go. */
function focusHolder(active: Element | null): string {
  if (!active || active === document.body) return 'the page body';
  const desc = describe(active);
  if (!(active instanceof HTMLIFrameElement || active instanceof HTMLFrameElement)) return desc;
  let origin = 'an unknown origin';
  try {
    origin = new URL(active.src, location.href).origin;
  } catch {
    // An unparsable src still names the frame element.
  }
  return `${desc} (a frame from ${origin})`;
}

const nativeValueSetter = (el: HTMLInputElement | HTMLTextAreaElement) =>
  Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el) as object, 'value')?.set;

/**
 * Puts a secret into the element itself, in one synchronous script: focus, then the value set on
 * the element (never sent as keys, which go wherever focus is by then). Nothing of the page runs
 * between the focus check and the write but the handlers of the focus itself, and a handler that
 * moves focus away makes it refuse. Inputs and textareas get the native setter (frameworks see the
 * change) and `input`/`change`; contenteditable gets `insertText` on its own selection. Answers
 * whether the element holds the value, never the value.
 */
export function typeSecret(handle: number, value: string): SecretTyping {
  const el = elementOf(handle);
  if (!(el instanceof HTMLElement)) return { typed: false, cause: 'stale' };
  el.focus();
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    if (deepActiveElement() !== el)
      return { typed: false, cause: 'focus', focus: focusHolder(deepActiveElement()) };
    markSecretField(handle);
    typedValues.add(value);
    const setter = nativeValueSetter(el);
    if (setter) setter.call(el, value);
    else el.value = value;
    el.dispatchEvent(
      new InputEvent('input', {
        bubbles: true,
        composed: true,
        inputType: 'insertText',
        data: value,
      }),
    );
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return el.value === value ? { typed: true } : { typed: true, held: false };
  }
  if (!el.isContentEditable) return { typed: false, cause: 'not_editable' };
  const range = document.createRange();
  range.selectNodeContents(el);
  const selection = getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
  if (deepActiveElement() !== el)
    return { typed: false, cause: 'focus', focus: focusHolder(deepActiveElement()) };
  markSecretField(handle);
  typedValues.add(value);
  if (!document.execCommand('insertText', false, value)) {
    el.textContent = value;
    el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
  }
  return el.innerText.trim() === value.trim() ? { typed: true } : { typed: true, held: false };
}
