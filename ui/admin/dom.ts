/** Children h() accepts: text is always set as text, never parsed as HTML. */
export type Child = Node | string | number | false | null | undefined | Child[];

type Props = Record<string, string | number | boolean | undefined | EventListener>;

/**
 * Builds an element. `on*` props become listeners, `false`/`undefined` props are left out; every
 * string child is a text node, so nothing a page or a flow wrote can become markup.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === 'class') el.className = String(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else
      parent.appendChild(
        typeof child === 'object' ? child : document.createTextNode(String(child)),
      );
  }
}

/** Replaces everything inside `parent`. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

export const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

export function bytes(n: number | undefined): string {
  if (n === undefined) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function duration(ms: number | undefined): string {
  if (ms === undefined) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function when(iso: string | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** A value shown as text: strings as they are, the rest as compact JSON. */
export function shown(value: unknown): string {
  if (value === undefined) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A URL a page reported, as a link only when it is http(s): `javascript:`, `data:` and the rest
 * are shown as text, so clicking the console never runs what a driven page chose.
 */
export function safeLink(url: string | undefined): Node {
  if (!url) return document.createTextNode('—');
  let scheme = '';
  try {
    scheme = new URL(url).protocol;
  } catch {
    scheme = '';
  }
  if (scheme === 'http:' || scheme === 'https:')
    return h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', class: 'url' }, url);
  return h('code', { class: 'url unsafe', title: 'Not a web address: shown as text' }, url);
}
