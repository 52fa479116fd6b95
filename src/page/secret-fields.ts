import { deepActiveElement } from './controls.js';
import { describe } from './dom.js';
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
  if (!document.execCommand('insertText', false, value)) {
    el.textContent = value;
    el.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
  }
  return el.innerText.trim() === value.trim() ? { typed: true } : { typed: true, held: false };
}
