import { accessibleName, roleOf } from './aria.js';
import {
  allElements,
  composedParent,
  deepQueryAll,
  describe,
  isVisible,
  normaliseSpace,
  shortText,
  textMatches,
} from './dom.js';
import { elementOf, handleOf } from './handles.js';
import { refAt } from './reading.js';
import type { ElementInfo, LocateResult, PageTarget, TextMatcher } from './protocol.js';

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

/** The deepest elements whose whole text matches: a span inside a button wins over the button. */
function byText(scope: Element | Document, matcher: TextMatcher): Element[] {
  const hits = allElements(scope).filter(
    (el) =>
      !['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'TITLE', 'HTML', 'BODY'].includes(
        el.tagName,
      ) && textMatches(matcher, fullText(el)),
  );
  const set = new Set(hits);
  return hits.filter((el) => !Array.from(el.children).some((c) => set.has(c)));
}

function labelTexts(el: Element): string[] {
  const out: string[] = [];
  const labels = (el as HTMLInputElement).labels;
  if (labels) for (const l of labels) out.push(l.textContent ?? '');
  const aria = el.getAttribute('aria-label');
  if (aria) out.push(aria);
  const ids = el.getAttribute('aria-labelledby');
  if (ids) {
    const root = el.getRootNode() as Document | ShadowRoot;
    out.push(
      ids
        .split(/\s+/)
        .map((id) => root.getElementById(id)?.textContent ?? '')
        .join(' '),
    );
  }
  return out;
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
export function candidates(scope: Element | Document, target: PageTarget): Element[] {
  switch (target.strategy) {
    case 'css':
      return deepQueryAll(scope, target.value);
    case 'xpath':
      return xpathAll(scope, target.value);
    case 'testid':
      return deepQueryAll(scope, `[data-testid="${CSS.escape(target.value)}"]`);
    case 'placeholder':
      return deepQueryAll(scope, '[placeholder]').filter((el) =>
        textMatches(target.match!, el.getAttribute('placeholder') ?? ''),
      );
    case 'label':
      return deepQueryAll(scope, CONTROLS).filter((el) =>
        labelTexts(el).some((t) => textMatches(target.match!, t)),
      );
    case 'text':
      return byText(scope, target.match!);
    case 'role': {
      const role = target.value.toLowerCase();
      return allElements(scope).filter(
        (el) =>
          roleOf(el) === role && (!target.name || textMatches(target.name, accessibleName(el))),
      );
    }
    default:
      return [];
  }
}

function depth(el: Element): number {
  let d = 0;
  for (let n: Element | null = el; n; n = composedParent(n)) d++;
  return d;
}

function commonAncestorDepth(a: Element, b: Element): number {
  const seen = new Set<Element>();
  for (let n: Element | null = a; n; n = composedParent(n)) seen.add(n);
  for (let n: Element | null = b; n; n = composedParent(n)) if (seen.has(n)) return depth(n);
  return 0;
}

/** Keeps the candidates that share the smallest container with the `near` text. */
function nearest(elements: Element[], scope: Element | Document, near: TextMatcher): Element[] {
  const anchors = byText(scope, near);
  if (anchors.length === 0) return [];
  const scored = elements.map((el) => ({
    el,
    score: Math.max(...anchors.map((a) => commonAncestorDepth(el, a))),
  }));
  const best = Math.max(...scored.map((s) => s.score));
  return scored.filter((s) => s.score === best).map((s) => s.el);
}

/** Every element a target names under `scopeHandle` (or the document), `near` applied. */
export function matchAll(
  target: PageTarget,
  scopeHandle?: number,
): { found: Element[]; scope: Element | Document } | { error: string } | { stale: string } {
  const scope = scopeHandle === undefined ? document : elementOf(scopeHandle);
  if (!scope) return { error: 'The element that scoped the search is gone from the page.' };
  if (target.strategy === 'ref') {
    const at = refAt(target.value, target.print);
    return at.element ? { found: [at.element], scope } : { stale: at.stale ?? 'the page changed' };
  }
  let found: Element[];
  try {
    found = candidates(scope, target);
  } catch (e) {
    return { error: `Invalid ${target.strategy}: ${(e as Error).message}` };
  }
  if (target.near && found.length > 1) found = nearest(found, scope, target.near);
  return { found, scope };
}

/** Finds what a target names; visible matches only when any is visible. */
export function locate(target: PageTarget, scopeHandle?: number): LocateResult {
  const matched = matchAll(target, scopeHandle);
  if ('error' in matched) return { matches: [], total: 0, error: matched.error };
  if ('stale' in matched) return { matches: [], total: 0, stale: matched.stale };
  const { found, scope } = matched;
  const infos = found.map(info);
  const visible = infos.filter((i) => i.visible);
  const result: LocateResult = {
    matches: visible.length > 0 ? visible : infos,
    total: infos.length,
  };
  if (infos.length === 0 && target.strategy === 'role') {
    const role = target.value.toLowerCase();
    result.sameRole = allElements(scope)
      .filter((el) => roleOf(el) === role && isVisible(el))
      .slice(0, 8)
      .map((el) => normaliseSpace(accessibleName(el)) || '(no name)');
  }
  return result;
}
