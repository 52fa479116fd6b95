import { accessibleName } from './aria.js';
import { isVisible, normaliseSpace } from './dom.js';
import { elementOf, handleOf } from './handles.js';
import type { ComboboxState } from './protocol.js';

const TEXT_ENTRY = 'input, textarea, [contenteditable]:not([contenteditable=false])';

function need(handle: number): Element {
  const el = elementOf(handle);
  if (!el) throw new Error('stale: the element was removed from the page or replaced');
  return el;
}

/**
 * The element that takes typed text: the combobox itself, or the input inside it (ARIA 1.1). A
 * read-only one takes none: that combobox is select-only (APG), whatever it is built from.
 */
function textEntryOf(box: Element): Element | null {
  const entry = box.matches(TEXT_ENTRY) ? box : box.querySelector(TEXT_ENTRY);
  if (!entry || (entry as HTMLInputElement).readOnly || entry.matches(':disabled')) return null;
  return entry.getAttribute('aria-readonly') === 'true' ? null : entry;
}

function byIds(ids: string | null, root: Document | ShadowRoot): Element[] {
  return (ids ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((id) => (root as Document).getElementById?.(id) ?? document.getElementById(id))
    .filter((e): e is HTMLElement => !!e);
}

/**
 * The popups a combobox names (aria-controls, aria-owns, on it or its input); a combobox that
 * names none is read against every visible listbox of its document, as a person sees the list.
 */
function popupsOf(box: Element, entry: Element | null): Element[] {
  const root = box.getRootNode() as Document | ShadowRoot;
  const named = [box, entry]
    .filter((e): e is Element => !!e)
    .flatMap((e) => [
      ...byIds(e.getAttribute('aria-controls'), root),
      ...byIds(e.getAttribute('aria-owns'), root),
    ]);
  if (named.length) return [...new Set(named)];
  return Array.from(root.querySelectorAll('[role=listbox]'));
}

/** The combobox's text entry and the options it shows now (aria-expanded is often left stale). */
export function comboboxState(handle: number): ComboboxState {
  const box = need(handle);
  const entry = textEntryOf(box);
  const options = popupsOf(box, entry)
    .flatMap((p) =>
      p.matches('[role=option]') ? [p] : Array.from(p.querySelectorAll('[role=option]')),
    )
    .filter((o) => isVisible(o) && o.getAttribute('aria-disabled') !== 'true')
    .map((o) => ({
      handle: handleOf(o),
      name: normaliseSpace(accessibleName(o) || (o as HTMLElement).innerText || ''),
    }));
  const autocomplete = (
    box.getAttribute('aria-autocomplete') ??
    entry?.getAttribute('aria-autocomplete') ??
    'none'
  ).toLowerCase();
  return {
    entry: entry ? handleOf(entry) : null,
    autocomplete,
    options,
  };
}
