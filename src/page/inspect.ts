import { isSecretField } from './secret-fields.js';
import { readValue } from './controls.js';
import { allElements, isVisible, normaliseSpace } from './dom.js';
import { elementOf, handleOf } from './handles.js';
import { matchAll } from './locate.js';
import type { PageTarget } from './protocol.js';
import { addressOf, printOf, ownText } from './address.js';
import { Budget } from './budget.js';

const SHELL_ATTR_TEXT = 80;
const HTML_MAX = 4000;

/** `<button type="submit" class="primary">`: the element without its children. */
export function shellOf(el: Element): string {
  const attrs = Array.from(el.attributes)
    .filter((a) => !a.name.startsWith('on') && a.name !== 'style')
    .map((a) => (a.value === '' ? a.name : `${a.name}="${a.value.slice(0, SHELL_ATTR_TEXT)}"`));
  return `<${el.localName}${attrs.length ? ` ${attrs.join(' ')}` : ''}>`;
}

export interface Described {
  ref?: string;
  print?: string;
  shell: string;
  text?: string;
  value?: string;
  html?: string;
}

function isControl(el: Element): boolean {
  return (
    el instanceof HTMLInputElement ||
    el instanceof HTMLSelectElement ||
    el instanceof HTMLTextAreaElement
  );
}

/** What `find` shows of an element: its shell, own text, live value and ref. */
export function describeElement(handle: number, full: boolean): Described | null {
  const el = elementOf(handle);
  if (!el) return null;
  const out: Described = { shell: shellOf(el) };
  try {
    out.ref = addressOf(el);
    out.print = printOf(el);
  } catch {
    // outside <body> or in a closed root: no address
  }
  const text = full ? normaliseSpace(el.textContent ?? '') : ownText(el);
  if (text) out.text = text.slice(0, 300);
  const isPassword =
    (el instanceof HTMLInputElement && el.type === 'password') || isSecretField(el);
  if (isControl(el) && !isPassword) out.value = readValue(handle);
  if (full) out.html = el.outerHTML.slice(0, HTML_MAX);
  return out;
}

/** A table as rows of cell text; the header row first when there is one. */
export function tableRows(handle: number): string[][] | null {
  const el = elementOf(handle);
  if (!el) return null;
  const table = el instanceof HTMLTableElement ? el : el.querySelector('table');
  if (!table) return null;
  return Array.from(table.rows).map((row) =>
    Array.from(row.cells).map((c) => normaliseSpace((c as HTMLElement).innerText ?? '')),
  );
}

export function extractOf(
  handle: number,
  what: 'text' | 'value' | 'html' | 'attribute',
  attribute?: string,
): string | null {
  const el = elementOf(handle);
  if (!el) return null;
  switch (what) {
    case 'text':
      // textContent, as the text track reads it: innerText would apply text-transform.
      return normaliseSpace(el.textContent ?? '');
    case 'value':
      return readValue(handle);
    case 'html':
      return el.outerHTML;
    case 'attribute':
      return el.getAttribute(attribute ?? '');
  }
}

/**
 * Every element a target names, described, visible ones first. Only the `limit` shown are
 * described; visibility is checked in page order until `limit` visible ones are found. The
 * search and the checks share `budgetMs`; when it runs out the answer says `cut`.
 */
export function find(
  target: PageTarget,
  scopeHandle: number | undefined,
  full: boolean,
  limit: number,
  budgetMs?: number,
): {
  elements: (Described & { visible: boolean })[];
  total: number;
  error?: string;
  cut?: { elements: number };
} {
  const budget = new Budget(budgetMs);
  const matched = matchAll(target, scopeHandle, budget);
  if ('error' in matched) return { elements: [], total: 0, error: matched.error };
  if ('stale' in matched) return { elements: [], total: 0, error: `stale ref: ${matched.stale}` };
  const { found } = matched;
  const visible: Element[] = [];
  const hidden: Element[] = [];
  for (const el of found) {
    if (visible.length >= limit || budget.spent()) break;
    (isVisible(el) ? visible : hidden).push(el);
  }
  const shown = [...visible, ...hidden].slice(0, limit);
  const elements = shown.map((el) => ({
    ...(describeElement(handleOf(el), full) as Described),
    visible: visible.includes(el),
  }));
  const result: ReturnType<typeof find> = { elements, total: found.length };
  if (budget.cut) result.cut = budget.report();
  return result;
}

const SHELL_LIMIT = 3000;

/** Tag-and-attribute lines of the visible elements, for an element-level diff. */
export function elementShells(): { address: string; shell: string }[] {
  const out: { address: string; shell: string }[] = [];
  for (const el of allElements(document.body ?? document)) {
    if (out.length >= SHELL_LIMIT) break;
    if (!isVisible(el)) continue;
    try {
      out.push({ address: addressOf(el), shell: shellOf(el) });
    } catch {
      // outside body: no address
    }
  }
  return out;
}
