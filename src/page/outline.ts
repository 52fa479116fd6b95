import { addressOf, printOf } from './address.js';
import { accessibleName, roleOf } from './aria.js';
import { composedParent, deepQueryAll, describe, shortText } from './dom.js';
import { candidates } from './locate.js';
import { hiddenVerdict, verdict } from './probe.js';

const INTERACTIVE =
  'a, button, input:not([type=hidden]), select, textarea, summary, [contenteditable=""], [contenteditable="true"], [tabindex]:not([tabindex="-1"]), [aria-expanded], [role=button], [role=link], [role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], [role=option], [role=combobox], [role=textbox], [role=slider]';

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

function regionOf(el: Element): Region {
  for (let n = composedParent(el); n; n = composedParent(n)) {
    const region = LANDMARKS[roleOf(n) ?? ''];
    if (region) return region;
  }
  return 'page';
}

export type SelectorTarget = { css: string } | { role: string; name: string } | { xpath: string };

function unique(target: SelectorTarget, el: Element): boolean {
  try {
    const found =
      'css' in target
        ? deepQueryAll(document, target.css)
        : 'xpath' in target
          ? candidates(document, { strategy: 'xpath', value: target.xpath })
          : candidates(document, {
              strategy: 'role',
              value: target.role,
              name: { exact: target.name },
            });
    return found.length === 1 && found[0] === el;
  } catch {
    return false;
  }
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
export function durableSelector(el: Element): SelectorTarget | null {
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
  /** Why it cannot take input now; absent when it can. */
  state?: string;
  revealed_by?: { target: SelectorTarget | null; gesture: 'click' | 'hover' };
}

/** The usable elements of the page, main content first, each with a checked selector and its state. */
export function outline(limit: number): { items: OutlineItem[]; total: number } {
  const elements = deepQueryAll(document, INTERACTIVE).filter(
    (el) => !(el instanceof HTMLInputElement && el.type === 'hidden'),
  );
  const items: OutlineItem[] = elements.map((el) => {
    const item: OutlineItem = { region: regionOf(el) };
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
    const selector = durableSelector(el);
    if (selector) item.target = selector;
    const v = verdict(el, { enabled: true, hitTest: true });
    if (!v.ok && v.blocker !== 'offscreen') {
      item.state = `${v.blocker}: ${v.message}`;
      if (v.blocker === 'hidden') {
        const hidden = hiddenVerdict(el);
        if (hidden.revealer)
          item.revealed_by = {
            target: durableSelector(hidden.revealer.el),
            gesture: hidden.revealer.gesture,
          };
      }
    } else if (v.blocker === 'offscreen') item.state = 'offscreen';
    return item;
  });
  const rank = (i: OutlineItem) => REGION_ORDER.indexOf(i.region);
  const sorted = items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => rank(a.item) - rank(b.item) || a.i - b.i)
    .map((x) => x.item);
  return { items: sorted.slice(0, limit), total: sorted.length };
}
