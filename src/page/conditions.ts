import { allElements, isVisible, normaliseSpace } from './dom.js';
import { elementOf } from './handles.js';

/** Visible text of the document, including open shadow roots (innerText skips them). */
function visibleText(): string {
  const parts = [document.body?.innerText ?? ''];
  for (const el of allElements(document)) {
    if (el.shadowRoot)
      for (const child of el.shadowRoot.children)
        if (child instanceof HTMLElement) parts.push(child.innerText);
  }
  return normaliseSpace(parts.join(' '));
}

export function textVisible(text: string): boolean {
  return visibleText().includes(normaliseSpace(text));
}

export function handleVisible(handle: number): boolean {
  const el = elementOf(handle);
  return !!el && isVisible(el);
}
