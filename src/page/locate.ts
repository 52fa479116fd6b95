import { accessibleName, labelTexts, roleOf } from './aria.js';
import {
  allElements,
  composedParent,
  deepQueryAll,
  describe,
  isVisible,
  normaliseSpace,
  shortText,
  textTest,
} from './dom.js';
import { Budget } from './budget.js';
import { elementOf, handleOf } from './handles.js';
import { refAt } from './reading.js';
import { documentId } from './activity.js';
import {
  OTHER_DOCUMENT,
  type ElementInfo,
  type LocateResult,
  type PageTarget,
  type TextMatcher,
} from './protocol.js';

const CONTROLS =
  'input, select, textarea, [contenteditable=""], [contenteditable="true"], [role=textbox], [role=combobox], [role=checkbox], [role=radio], [role=switch], [role=slider], [role=spinbutton], [role=listbox]';

export function info(el: Element): ElementInfo {
  const role = roleOf(el) ?? undefined;
  const name = accessibleName(el) || undefined;
  const text = shortText(el) || undefined;
  const out: ElementInfo = {
    handle: handleOf(el),
    tag: el.tagName.toLowerCase(),
    visible: isVisible(el),
    desc: describe(el),
  };
  if (role) out.role = role;
  if (name) out.name = name.length > 80 ? `${name.slice(0, 79)}…` : name;
  if (text && text !== out.name) out.text = text;
  return out;
}

function fullText(el: Element): string {
  if (el instanceof HTMLInputElement && ['button', 'submit', 'reset'].includes(el.type))
    return el.value;
  return el.textContent ?? '';
}

const NO_TEXT_TAGS = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'HEAD',
  'TITLE',
  'HTML',
  'BODY',
]);

/** The deepest elements whose whole text matches: a span inside a button wins over the button. */
function byText(scope: Element | Document, matcher: TextMatcher, budget: Budget): Element[] {
  const test = textTest(matcher);
  const hits: Element[] = [];
  for (const el of allElements(scope, budget))
    if (!NO_TEXT_TAGS.has(el.tagName) && test(fullText(el))) hits.push(el);
  const set = new Set(hits);
  // A hit's parent holds the same text, so it is dropped: one look up per hit, not per child.
  const parents = new Set<Element>();
  for (const el of hits)
    if (el.parentElement && set.has(el.parentElement)) parents.add(el.parentElement);
  return hits.filter((el) => !parents.has(el));
}

function xpathAll(scope: Element | Document, expression: string): Element[] {
  const result = document.evaluate(
    expression,
    scope,
    null,
    XPathResult.ORDERED_NODE_SNAPSHOT_TYPE,
    null,
  );
  const out: Element[] = [];
  for (let i = 0; i < result.snapshotLength; i++) {
    const n = result.snapshotItem(i);
    if (n instanceof Element) out.push(n);
  }
  return out;
}

/** Every element a target names (hidden ones too), in document order; throws on a bad selector. */
export function candidates(
  scope: Element | Document,
  target: PageTarget,
  budget: Budget = new Budget(),
): Element[] {
  switch (target.strategy) {
    case 'css':
      return deepQueryAll(scope, target.value, budget);
    case 'xpath':
      return xpathAll(scope, target.value);
    case 'testid':
      return deepQueryAll(scope, `[data-testid="${CSS.escape(target.value)}"]`, budget);
    case 'placeholder': {
      const test = textTest(target.match!);
      return deepQueryAll(scope, '[placeholder]', budget).filter((el) =>
        test(el.getAttribute('placeholder') ?? ''),
      );
    }
    case 'label': {
      const test = textTest(target.match!);
      return deepQueryAll(scope, CONTROLS, budget).filter((el) => labelTexts(el).some(test));
    }
    case 'text':
      return byText(scope, target.match!, budget);
    case 'role': {
      const role = target.value.toLowerCase();
      const test = target.name ? textTest(target.name) : null;
      // The name is computed only for elements of the role: it is the costly part.
      return allElements(scope, budget).filter(
        (el) => roleOf(el) === role && (!test || test(accessibleName(el))),
      );
    }
    default:
      return [];
  }
}

/** Depth of every ancestor of the anchors (themselves included), in the composed tree. */
function anchorDepths(anchors: Element[]): Map<Element, number> {
  const depths = new Map<Element, number>();
  for (const anchor of anchors) {
    const chain: Element[] = [];
    for (let n: Element | null = anchor; n && !depths.has(n); n = composedParent(n)) chain.push(n);
    const top = chain.length ? composedParent(chain[chain.length - 1]) : null;
    let d = top ? depths.get(top)! : 0;
    for (let i = chain.length - 1; i >= 0; i--) depths.set(chain[i], ++d);
  }
  return depths;
}

/**
 * Keeps the candidates that share the smallest container with the `near` text: the one whose
 * nearest ancestor holding an anchor is deepest. One walk up per candidate, not one per pair.
 */
function nearest(
  elements: Element[],
  scope: Element | Document,
  near: TextMatcher,
  budget: Budget,
): Element[] {
  const anchors = byText(scope, near, budget);
  if (anchors.length === 0) return [];
  const depths = anchorDepths(anchors);
  let best = 0;
  const scored = elements.map((el) => {
    let score = 0;
    for (let n: Element | null = el; n; n = composedParent(n)) {
      const d = depths.get(n);
      if (d !== undefined) {
        score = d;
        break;
      }
    }
    if (score > best) best = score;
    return { el, score };
  });
  return scored.filter((s) => s.score === best).map((s) => s.el);
}

/** Every element a target names under `scopeHandle` (or the document), `near` applied. */
export function matchAll(
  target: PageTarget,
  scopeHandle?: number,
  budget: Budget = new Budget(),
): { found: Element[]; scope: Element | Document } | { error: string } | { stale: string } {
  const scope = scopeHandle === undefined ? document : elementOf(scopeHandle);
  if (!scope) return { error: 'The element that scoped the search is gone from the page.' };
  if (target.strategy === 'ref') {
    if (target.document !== undefined && target.document !== documentId())
      return { stale: OTHER_DOCUMENT };
    const at = refAt(target.value, target.print);
    return at.element ? { found: [at.element], scope } : { stale: at.stale ?? 'the page changed' };
  }
  let found: Element[];
  try {
    found = candidates(scope, target, budget);
  } catch (e) {
    return { error: `Invalid ${target.strategy}: ${(e as Error).message}` };
  }
  if (target.near && found.length > 1) found = nearest(found, scope, target.near, budget);
  return { found, scope };
}

/** Matches described in full: what an ambiguity lists and what the acting op reports. */
const FULL_INFO = 20;
/** Matches given a handle: `nth` reaches this far (the handle table keeps 2000). */
const WITH_HANDLE = 1000;
/** A locate that is given no time of its own stops after this long. */
const LOCATE_MS = 5000;

/** What a match beyond the first few carries: enough to count it and tell it apart. */
function briefInfo(el: Element, visible: boolean, handle: boolean): ElementInfo {
  return { handle: handle ? handleOf(el) : 0, tag: el.localName, visible, desc: describe(el) };
}

/**
 * Finds what a target names; visible matches only when any is visible. Only the first matches
 * are described (a name, a text), so a selector matching 100,000 elements costs one visibility
 * check each; `budgetMs` bounds the whole search, and a search it stopped says `cut`.
 */
export function locate(
  target: PageTarget,
  scopeHandle?: number,
  budgetMs = LOCATE_MS,
): LocateResult {
  const budget = new Budget(budgetMs);
  const matched = matchAll(target, scopeHandle, budget);
  if ('error' in matched) return { matches: [], total: 0, error: matched.error };
  if ('stale' in matched) return { matches: [], total: 0, stale: matched.stale };
  const { found, scope } = matched;
  const visible = found.map((el) => isVisible(el));
  const anyVisible = visible.some(Boolean);
  const chosen = found.filter((_, i) => visible[i] || !anyVisible);
  const result: LocateResult = {
    matches: chosen.map((el, i) =>
      i < FULL_INFO ? info(el) : briefInfo(el, anyVisible, i < WITH_HANDLE),
    ),
    total: found.length,
  };
  if (found.length === 0 && target.strategy === 'role' && !budget.cut) {
    const role = target.value.toLowerCase();
    const same: string[] = [];
    for (const el of allElements(scope, budget)) {
      if (same.length >= 8) break;
      if (roleOf(el) === role && isVisible(el))
        same.push(normaliseSpace(accessibleName(el)) || '(no name)');
    }
    result.sameRole = same;
  }
  if (budget.cut) result.cut = budget.report();
  return result;
}
