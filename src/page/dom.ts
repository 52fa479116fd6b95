import type { Budget } from './budget.js';
import type { TextMatcher } from './protocol.js';
import { ownClearTimeout, ownRequestAnimationFrame, ownSetTimeout } from './timers.js';

export function normaliseSpace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function textMatches(matcher: TextMatcher, text: string): boolean {
  return textTest(matcher)(text);
}

/** The matcher as a test, compiled once for a walk that asks it of every element. */
export function textTest(matcher: TextMatcher): (text: string) => boolean {
  if ('exact' in matcher) {
    const wanted = normaliseSpace(matcher.exact);
    // Collapsing whitespace only shortens a text: one shorter than the wanted one cannot match.
    return (text) => text.length >= wanted.length && normaliseSpace(text) === wanted;
  }
  const re = new RegExp(matcher.regex, matcher.flags);
  return (text) => {
    re.lastIndex = 0;
    return re.test(normaliseSpace(text));
  };
}

/** The parent in the composed tree: a shadow root's children have the host as parent. */
export function composedParent(el: Element): Element | null {
  if (el.parentElement) return el.parentElement;
  const root = el.getRootNode();
  return root instanceof ShadowRoot ? root.host : null;
}

export function composedContains(ancestor: Element, node: Element): boolean {
  for (let n: Element | null = node; n; n = composedParent(n)) if (n === ancestor) return true;
  return false;
}

/**
 * Every element under `root`, in document order, descending into open shadow roots (a host's
 * shadow tree comes right after the host, before its light children). Iterative: a page nested
 * 50,000 deep is walked like a flat one. With a budget the walk stops when it is spent.
 */
export function allElements(root: Element | Document | ShadowRoot, budget?: Budget): Element[] {
  const out: Element[] = [];
  const walkers: TreeWalker[] = [document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT)];
  if (root instanceof Element && root.shadowRoot)
    walkers.push(document.createTreeWalker(root.shadowRoot, NodeFilter.SHOW_ELEMENT));
  while (walkers.length > 0) {
    if (budget?.spent()) break;
    const el = walkers[walkers.length - 1].nextNode() as Element | null;
    if (!el) {
      walkers.pop();
      continue;
    }
    out.push(el);
    if (el.shadowRoot)
      walkers.push(document.createTreeWalker(el.shadowRoot, NodeFilter.SHOW_ELEMENT));
  }
  return out;
}

/** querySelectorAll that also reads through open shadow roots. */
export function deepQueryAll(
  root: Element | Document,
  selector: string,
  budget?: Budget,
): Element[] {
  return deepQuerier(root, budget)(selector);
}

/**
 * A deep querySelectorAll for many selectors on one tree: the walk that finds its shadow roots is
 * made once, on the first query, so each further selector costs only the native queries.
 */
export function deepQuerier(
  root: Element | Document,
  budget?: Budget,
): (selector: string) => Element[] {
  let elements: Element[] | undefined;
  const scopes: (Document | Element | ShadowRoot)[] = [root];
  return (selector) => {
    if (!elements) {
      elements = allElements(root, budget);
      if (root instanceof Element && root.shadowRoot) scopes.push(root.shadowRoot);
      for (const el of elements) if (el.shadowRoot) scopes.push(el.shadowRoot);
    }
    // No shadow root: the native query is already in document order.
    if (scopes.length === 1 && !budget?.cut) return Array.from(root.querySelectorAll(selector));
    const found = new Set<Element>();
    for (const scope of scopes) for (const el of scope.querySelectorAll(selector)) found.add(el);
    return elements.filter((el) => found.has(el));
  };
}

export function isVisible(el: Element): boolean {
  if (!el.isConnected) return false;
  if (!el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true })) return false;
  const rect = el.getBoundingClientRect();
  if (rect.width > 0 && rect.height > 0) return true;
  // display:contents and zero-size wrappers are visible when something inside them renders.
  const stack = Array.from(el.children);
  while (stack.length > 0) {
    const c = stack.pop()!;
    if (!c.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true })) continue;
    const r = c.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) return true;
    for (let k = c.firstElementChild; k; k = k.nextElementSibling) stack.push(k);
  }
  return false;
}

/** `button#save.primary` — enough for a person to recognise the element. */
export function describe(el: Element): string {
  let s = el.tagName.toLowerCase();
  if (el.id) s += `#${el.id}`;
  const classes = Array.from(el.classList).slice(0, 2);
  if (classes.length) s += `.${classes.join('.')}`;
  return s;
}

/** The element's visible text, whitespace-normalised and cut for messages. */
export function shortText(el: Element, max = 60): string {
  const raw = el instanceof HTMLElement ? el.innerText : (el.textContent ?? '');
  const t = normaliseSpace(raw ?? '');
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

export function isDisabled(el: Element): boolean {
  if (el.getAttribute('aria-disabled') === 'true') return true;
  if (!('disabled' in el)) return false;
  if ((el as HTMLButtonElement).disabled) return true;
  // A control inside a disabled fieldset is disabled unless it sits in the first legend.
  return (
    el.closest('fieldset:disabled') !== null &&
    !el.closest('fieldset:disabled > legend:first-of-type')
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => ownSetTimeout(r, ms));
}

/**
 * The next animation frame, then a task of its own: read inside the frame, an animation can show
 * the time of a read made just before it (the clock never runs back), and look at rest. Answers
 * the animations' clock as a read in this task sees it: under load a frame's time moves on while
 * that clock stands still. A timer stands in when rAF stalls (background tabs).
 */
export function nextFrame(): Promise<number> {
  return new Promise((resolve) => {
    const clock = () => Number(document.timeline.currentTime ?? performance.now());
    const timer = ownSetTimeout(() => resolve(clock()), 50);
    ownRequestAnimationFrame(() => {
      ownClearTimeout(timer);
      ownSetTimeout(() => resolve(clock()), 0);
    });
  });
}
