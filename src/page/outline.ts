import { addressOf, printOf } from './address.js';
import { accessibleName, roleOf } from './aria.js';
import {
  allElements,
  composedContains,
  composedParent,
  deepQuerier,
  deepQueryAll,
  describe,
  normaliseSpace,
  shortText,
  textTest,
} from './dom.js';
import { Budget } from './budget.js';
import { elementOf } from './handles.js';
import { candidates } from './locate.js';
import { hiddenVerdict, verdict } from './probe.js';
import type { TextMatcher } from './protocol.js';

const INTERACTIVE =
  'a, button, input:not([type=hidden]), select, textarea, summary, [contenteditable=""], [contenteditable="true"], [tabindex]:not([tabindex="-1"]), [aria-expanded], [role=button], [role=link], [role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio], [role=option], [role=combobox], [role=listbox], [role=textbox], [role=searchbox], [role=spinbutton], [role=slider], [role=treeitem]';

/** Regions in the order a reader wants them: the content first (DESIGN issue: outline). */
const REGION_ORDER = [
  'main',
  'page',
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
] as const;
type Region = (typeof REGION_ORDER)[number];
const LANDMARKS: Record<string, Region> = {
  main: 'main',
  navigation: 'navigation',
  banner: 'banner',
  contentinfo: 'contentinfo',
  complementary: 'complementary',
};

/** Each element's region, remembered for the ancestors passed: one walk up per branch, not per element. */
function regionFinder(): (el: Element) => Region {
  const known = new Map<Element, Region>();
  return (el) => {
    const chain: Element[] = [];
    let region: Region = 'page';
    for (let n = composedParent(el); n; n = composedParent(n)) {
      const seen = known.get(n);
      if (seen) {
        region = seen;
        break;
      }
      const own = LANDMARKS[roleOf(n) ?? ''];
      if (own) {
        region = own;
        known.set(n, own);
        break;
      }
      chain.push(n);
    }
    for (const n of chain) known.set(n, region);
    return region;
  };
}

export type SelectorTarget = { css: string } | { role: string; name: string } | { xpath: string };

/** Answers whether a target names exactly one element, that element; false when out of time. */
type Uniqueness = (target: SelectorTarget, el: Element) => boolean;

/**
 * Uniqueness checks for one outline: the page's shadow roots are found once, and each role's
 * elements once, so a check is a native query or a name test over one role's elements, stopping
 * at the second match.
 */
function uniqueness(budget: Budget): Uniqueness {
  const query = deepQuerier(document, budget);
  let byRole: Map<string, Element[]> | undefined;
  // Per role, how many elements carry each name: computed once, so ten checks cost one pass.
  const names = new Map<string, Map<string, number>>();
  const namesOf = (role: string): Map<string, number> | null => {
    const known = names.get(role);
    if (known) return known;
    if (!byRole) {
      byRole = new Map();
      for (const el of allElements(document, budget)) {
        const r = roleOf(el);
        if (r) (byRole.get(r) ?? byRole.set(r, []).get(r)!).push(el);
      }
    }
    const counts = new Map<string, number>();
    for (const el of byRole.get(role) ?? []) {
      if (budget.spent()) return null;
      const name = normaliseSpace(accessibleName(el));
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    names.set(role, counts);
    return counts;
  };
  return (target, el) => {
    if (budget.cut) return false;
    try {
      if ('css' in target) {
        const found = query(target.css);
        return !budget.cut && found.length === 1 && found[0] === el;
      }
      if ('xpath' in target) {
        const found = candidates(document, { strategy: 'xpath', value: target.xpath });
        return found.length === 1 && found[0] === el;
      }
      // The element itself has this role and name, so a count of one is the element.
      return namesOf(target.role)?.get(normaliseSpace(target.name)) === 1;
    } catch {
      return false;
    }
  };
}

// Inside a quoted attribute value only quotes and backslashes need escaping.
const attrSelector = (el: Element, attr: string) =>
  `${el.localName}[${attr}="${(el.getAttribute(attr) ?? '').replace(/["\\]/g, '\\$&')}"]`;

/** `main > div:nth-of-type(2) > button:nth-of-type(1)`, anchored at the nearest id. */
function structuralPath(el: Element): string {
  const parts: string[] = [];
  for (
    let n: Element | null = el;
    n && n.localName !== 'body' && n.localName !== 'html';
    n = n.parentElement
  ) {
    if (n !== el && n.id) {
      parts.unshift(`#${CSS.escape(n.id)}`);
      break;
    }
    const sameTag = n.parentElement
      ? Array.from(n.parentElement.children).filter((c) => c.localName === n!.localName)
      : [n];
    parts.unshift(
      sameTag.length > 1 ? `${n.localName}:nth-of-type(${sameTag.indexOf(n) + 1})` : n.localName,
    );
  }
  return parts.join(' > ');
}

/** One durable selector that matches exactly this element, or null (refs still work). */
export function durableSelector(
  el: Element,
  unique: Uniqueness = uniqueness(new Budget()),
): SelectorTarget | null {
  const tries: SelectorTarget[] = [];
  if (el.id) tries.push({ css: `#${CSS.escape(el.id)}` });
  if (el.getAttribute('data-testid')) tries.push({ css: attrSelector(el, 'data-testid') });
  for (const attr of ['name', 'aria-label', 'placeholder', 'href', 'title'])
    if (el.getAttribute(attr)) tries.push({ css: attrSelector(el, attr) });
  const role = roleOf(el);
  const name = accessibleName(el);
  if (role && name) tries.push({ role, name });
  const own = shortText(el, 200);
  if (el.childElementCount === 0 && own && !own.includes("'"))
    tries.push({ xpath: `//${el.localName}[normalize-space()='${own}']` });
  // Last resort, for look-alikes (two "Edit" buttons): where it sits. Not in shadow roots.
  if (el.getRootNode() === document) tries.push({ css: structuralPath(el) });
  return tries.find((t) => unique(t, el)) ?? null;
}

export interface OutlineItem {
  ref?: string;
  /** Read with the ref so the server can check it later; not shown to the caller. */
  print?: string;
  role?: string;
  name?: string;
  region: Region;
  target?: SelectorTarget;
  /** Open (true) or closed (false): aria-expanded, or the `<details>` a summary opens. */
  expanded?: boolean;
  /** Why it cannot take input now; absent when it can. */
  state?: string;
  revealed_by?: { target: SelectorTarget | null; gesture: 'click' | 'hover' };
}

/** What part of the page an outline lists. */
export interface OutlineFilter {
  /** Only elements inside this one (a located target's handle), itself included. */
  scope?: number;
  /** Only elements inside (or matching) an element this selector matches. */
  css?: string;
  /** Only elements whose name (or, without one, text) matches. */
  text?: TextMatcher;
}

/** Why an outline could not be listed: its scope went, or its selector is no selector. */
export interface OutlineError {
  kind: 'stale_element' | 'invalid_argument';
  message: string;
}

/** The interactive elements a filter keeps, in document order. */
function usable(filter: OutlineFilter, budget: Budget): Element[] | OutlineError {
  let root: Element | Document = document;
  if (filter.scope !== undefined) {
    const scope = elementOf(filter.scope);
    if (!scope) return { kind: 'stale_element', message: 'the element that scoped it is gone' };
    root = scope;
  }
  let elements = deepQueryAll(root, INTERACTIVE, budget).filter(
    (el) => !(el instanceof HTMLInputElement && el.type === 'hidden'),
  );
  if (root !== document && (root as Element).matches(INTERACTIVE))
    elements.unshift(root as Element);
  if (filter.css) {
    let scopes: Element[];
    try {
      scopes = deepQueryAll(root, filter.css, budget);
    } catch (e) {
      return { kind: 'invalid_argument', message: `css: ${(e as Error).message}` };
    }
    elements = elements.filter((el) => scopes.some((s) => composedContains(s, el)));
  }
  if (filter.text) {
    const test = textTest(filter.text);
    elements = elements.filter((el) => test(accessibleName(el)) || test(shortText(el, 200)));
  }
  return elements;
}

/**
 * The usable elements of the page (or of a part of it, `filter`), main content first, each with
 * a checked selector and its state. Ranking needs only each element's region; the name, selector
 * and verdict (each a look at the page, a selector's check a query of it) are worked out for the
 * `limit` listed alone. `budgetMs` bounds it all: when it runs out, the answer has what was done
 * and says `cut`.
 */
export function outline(
  limit: number,
  budgetMs?: number,
  filter: OutlineFilter = {},
): { items: OutlineItem[]; total: number; cut?: { elements: number }; error?: OutlineError } {
  const budget = new Budget(budgetMs);
  const elements = usable(filter, budget);
  if (!Array.isArray(elements)) return { items: [], total: 0, error: elements };
  const regionOf = regionFinder();
  const ranked: { el: Element; region: Region; i: number }[] = [];
  for (const [i, el] of elements.entries()) {
    if (budget.spent()) break;
    ranked.push({ el, region: regionOf(el), i });
  }
  const rank = (r: Region) => REGION_ORDER.indexOf(r);
  ranked.sort((a, b) => rank(a.region) - rank(b.region) || a.i - b.i);
  const items: OutlineItem[] = [];
  const unique = uniqueness(budget);
  for (const { el, region } of ranked.slice(0, limit)) {
    if (items.length > 0 && budget.spent()) break;
    items.push(describeItem(el, region, unique));
  }
  const result: ReturnType<typeof outline> = { items, total: elements.length };
  if (budget.cut) result.cut = budget.report();
  return result;
}

/** Whether the element is open: its aria-expanded, or for a summary its details' open. */
function expandedOf(el: Element): boolean | undefined {
  const aria = el.getAttribute('aria-expanded');
  if (aria === 'true' || aria === 'false') return aria === 'true';
  const details = el.parentElement;
  if (el.localName === 'summary' && details?.localName === 'details')
    return (details as HTMLDetailsElement).open;
  return undefined;
}

function describeItem(el: Element, region: Region, unique: Uniqueness): OutlineItem {
  const item: OutlineItem = { region };
  try {
    item.ref = addressOf(el);
    item.print = printOf(el);
  } catch {
    // no address outside body
  }
  const role = roleOf(el);
  if (role) item.role = role;
  const name = accessibleName(el);
  item.name = (name || shortText(el, 80) || describe(el)).slice(0, 80);
  const selector = durableSelector(el, unique);
  if (selector) item.target = selector;
  const expanded = expandedOf(el);
  if (expanded !== undefined) item.expanded = expanded;
  const v = verdict(el, { enabled: true, hitTest: true });
  if (!v.ok && v.blocker !== 'offscreen') {
    item.state = `${v.blocker}: ${v.message}`;
    if (v.blocker === 'hidden') {
      const hidden = hiddenVerdict(el);
      if (hidden.revealer)
        item.revealed_by = {
          target: durableSelector(hidden.revealer.el, unique),
          gesture: hidden.revealer.gesture,
        };
    }
  } else if (v.blocker === 'offscreen') item.state = 'offscreen';
  return item;
}
