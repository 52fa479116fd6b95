import type { TextMatcher } from './protocol.js';

export function normaliseSpace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function textMatches(matcher: TextMatcher, text: string): boolean {
  const t = normaliseSpace(text);
  if ('exact' in matcher) return t === normaliseSpace(matcher.exact);
  return new RegExp(matcher.regex, matcher.flags).test(t);
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

/** Every element under `root`, in document order, descending into open shadow roots. */
export function allElements(root: Element | Document | ShadowRoot): Element[] {
  const out: Element[] = [];
  const visit = (scope: Element | Document | ShadowRoot) => {
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_ELEMENT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n as Element;
      out.push(el);
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  if (root instanceof Element && root.shadowRoot) visit(root.shadowRoot);
  visit(root);
  return out;
}

/** querySelectorAll that also reads through open shadow roots. */
export function deepQueryAll(root: Element | Document, selector: string): Element[] {
  const found = new Set<Element>();
  const scopes: (Element | Document | ShadowRoot)[] = [root];
  for (const el of allElements(root)) if (el.shadowRoot) scopes.push(el.shadowRoot);
  for (const scope of scopes) for (const el of scope.querySelectorAll(selector)) found.add(el);
  if (root instanceof Element && root.matches(selector)) found.add(root);
  return allElements(root).filter((el) => found.has(el));
}

export function isVisible(el: Element): boolean {
  if (!el.isConnected) return false;
  if (!el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true })) return false;
  const rect = el.getBoundingClientRect();
  if (rect.width > 0 && rect.height > 0) return true;
  // display:contents and zero-size wrappers are visible when something inside them renders.
  return Array.from(el.children).some((c) => isVisible(c));
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
  return new Promise((r) => setTimeout(r, ms));
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
    const timer = setTimeout(() => resolve(clock()), 50);
    requestAnimationFrame(() => {
      clearTimeout(timer);
      setTimeout(() => resolve(clock()), 0);
    });
  });
}
