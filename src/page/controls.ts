import { accessibleName } from './aria.js';
import { composedContains, describe, normaliseSpace } from './dom.js';
import { elementOf, handleOf } from './handles.js';
import { bringIntoView } from './in-view.js';
import type { Activation, ControlInfo, FocusInfo } from './protocol.js';

/** Input types whose value is set directly: typing into them is locale-dependent or impossible. */
const DIRECT_TYPES = new Set(['date', 'datetime-local', 'month', 'week', 'time', 'color', 'range']);
const TEXT_TYPES = new Set(['', 'text', 'email', 'password', 'search', 'tel', 'url', 'number']);

function need(handle: number): Element {
  const el = elementOf(handle);
  if (!el) throw new Error('stale: the element was removed from the page or replaced');
  return el;
}

function optionsOf(select: HTMLSelectElement) {
  return Array.from(select.options).map((o) => ({ value: o.value, text: normaliseSpace(o.text) }));
}

export function controlInfo(handle: number): ControlInfo {
  const el = need(handle);
  if (el instanceof HTMLSelectElement) {
    return { kind: 'select', multiple: el.multiple, options: optionsOf(el), value: el.value };
  }
  // A custom combobox (ARIA): typed into, then its option picked (ops/fill.ts).
  if (el.getAttribute('role') === 'combobox')
    return el instanceof HTMLInputElement
      ? { kind: 'combobox', inputType: el.type.toLowerCase() }
      : { kind: 'combobox' };
  if (el instanceof HTMLInputElement) {
    const type = el.type.toLowerCase();
    if (type === 'checkbox' || type === 'radio')
      return { kind: type, inputType: type, checked: el.checked };
    if (type === 'file') return { kind: 'file', inputType: type };
    if (DIRECT_TYPES.has(type)) return { kind: 'direct', inputType: type, value: el.value };
    if (TEXT_TYPES.has(type))
      return { kind: 'text', inputType: type, password: type === 'password' };
    return { kind: 'other', inputType: type };
  }
  if (el instanceof HTMLTextAreaElement) return { kind: 'text', inputType: 'textarea' };
  if (el instanceof HTMLElement && el.isContentEditable) return { kind: 'contenteditable' };
  const role = el.getAttribute('role');
  if (role === 'checkbox' || role === 'switch')
    return { kind: 'checkbox', checked: el.getAttribute('aria-checked') === 'true' };
  if (role === 'radio')
    return { kind: 'radio', checked: el.getAttribute('aria-checked') === 'true' };
  return { kind: 'other' };
}

/** Focuses the control and selects its content, so typed text replaces it. */
export function focusForTyping(handle: number): boolean {
  const el = need(handle) as HTMLElement;
  el.focus();
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    try {
      el.select();
    } catch {
      // Some input types (number, email) do not support selection ranges; select() still works on most.
    }
  } else if (el.isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(el);
    const selection = getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
  }
  return deepActiveElement() === el;
}

function fire(el: Element) {
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

/** Chooses options by value or visible text; names what matched nothing. */
export function selectOptions(
  handle: number,
  wanted: string[],
): { missing: string[]; options: { value: string; text: string }[] } {
  const select = need(handle) as HTMLSelectElement;
  const options = Array.from(select.options);
  const chosen = new Set<HTMLOptionElement>();
  const missing: string[] = [];
  for (const w of wanted) {
    const o =
      options.find((opt) => opt.value === w) ??
      options.find((opt) => normaliseSpace(opt.text) === normaliseSpace(w));
    if (o) chosen.add(o);
    else missing.push(w);
  }
  if (missing.length === 0) {
    for (const o of options) o.selected = chosen.has(o);
    fire(select);
  }
  return { missing, options: optionsOf(select) };
}

/** Sets a value through the native setter, so frameworks that track it (React) see the change. */
export function setDirectValue(handle: number, value: string): void {
  const el = need(handle) as HTMLInputElement;
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
  el.focus();
  if (setter) setter.call(el, value);
  else el.value = value;
  fire(el);
}

export function readValue(handle: number): string {
  const el = need(handle);
  if (el instanceof HTMLSelectElement) {
    return Array.from(el.selectedOptions)
      .map((o) => normaliseSpace(o.text))
      .join(', ');
  }
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) return el.value;
  if (el instanceof HTMLElement)
    return el.isContentEditable ? el.innerText : normaliseSpace(el.innerText);
  return el.textContent ?? '';
}

/** The focused element, through open shadow roots. */
export function deepActiveElement(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

export function focusInfo(handle: number): FocusInfo {
  const el = elementOf(handle);
  const active = deepActiveElement() ?? document.body;
  return {
    tag: active.tagName.toLowerCase(),
    desc: describe(active),
    inside: !!el && composedContains(el, active),
  };
}

/** Dispatches a DOM click to the element itself (force past an overlay). */
export function domClick(handle: number): void {
  (need(handle) as HTMLElement).click();
}

/** The absolute href of the link the element is or sits in. */
export function hrefOf(handle: number): string | null {
  const link = need(handle).closest('a[href], area[href]');
  return link ? (link as HTMLAnchorElement).href : null;
}

/** Buttons and links: what a click or Enter on them activates is themselves. */
const ACTIVATABLE =
  'button, a[href], area[href], input[type=submit], input[type=button], input[type=reset], input[type=image], summary, [role=button], [role=link], [role=menuitem], [role=tab], [role=option]';

/** A control's accessible name (accname: a field's own value never names it), as the check reads it. */
function nameOf(el: Element): string[] {
  return [accessibleName(el)].filter(Boolean);
}

/**
 * Texts naming the control an action activates, for the approval check (DESIGN §3.6): a click
 * activates the button or link it lands in; Enter in a field submits its form, so it reads the
 * form's default button, or the field's own name outside a form. Text typed into a field is
 * never read: "Buy milk" in a todo field is not a purchase.
 */
export function intentTexts(handle: number, activation: Activation = 'click'): string[] {
  const el = need(handle);
  const control = el.closest(ACTIVATABLE);
  if (control) return nameOf(control);
  const field =
    el instanceof HTMLInputElement ||
    el instanceof HTMLTextAreaElement ||
    el instanceof HTMLSelectElement ||
    (el as HTMLElement).isContentEditable;
  // A click in a field focuses or toggles it; what it sets is judged when the form is submitted.
  if (activation === 'click')
    return field ? [] : [normaliseSpace((el as HTMLElement).innerText ?? ''), ...nameOf(el)];
  const form = (el as HTMLInputElement).form ?? el.closest('form');
  const submit = form
    ? Array.from(form.elements).find((c) =>
        c.matches(
          'button:not([type=button]):not([type=reset]), input[type=submit], input[type=image]',
        ),
      )
    : undefined;
  return submit ? nameOf(submit) : nameOf(el);
}

export function scrollPage(dx: number, dy: number): { x: number; y: number } {
  window.scrollBy({ left: dx, top: dy, behavior: 'instant' });
  return { x: scrollX, y: scrollY };
}

export function scrollIntoView(handle: number): void {
  bringIntoView(need(handle));
}

export function scrollTo(where: 'top' | 'bottom'): { x: number; y: number } {
  window.scrollTo({
    top: where === 'top' ? 0 : document.documentElement.scrollHeight,
    behavior: 'instant',
  });
  return { x: scrollX, y: scrollY };
}

/** Focuses without selecting or clicking: keys go where the caller pointed. */
export function focusElement(handle: number): boolean {
  const el = need(handle) as HTMLElement;
  el.focus();
  return deepActiveElement() === el;
}

/** The handle of the focused element, so a key press can be checked for consequence. */
export function activeHandle(): number | null {
  const active = deepActiveElement();
  return active && active !== document.body ? handleOf(active) : null;
}

/** Whether a click on the element opens a new tab (a link or form targeting _blank). */
export function opensNewTab(handle: number): boolean {
  const el = need(handle);
  const link = el.closest('a[href], area[href]');
  if (link) return (link as HTMLAnchorElement).target === '_blank';
  const form = (el as HTMLButtonElement).form;
  return !!form && form.target === '_blank';
}
