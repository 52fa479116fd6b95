/** Elements the server is working with, by number, for the life of this document. */
const byHandle = new Map<number, Element>();
const byElement = new WeakMap<Element, number>();
let next = 1;
const LIMIT = 2000;

export function handleOf(el: Element): number {
  const known = byElement.get(el);
  if (known !== undefined && byHandle.get(known) === el) return known;
  const handle = next++;
  byHandle.set(handle, el);
  byElement.set(el, handle);
  if (byHandle.size > LIMIT) byHandle.delete(byHandle.keys().next().value as number);
  return handle;
}

export function elementOf(handle: number): Element | null {
  const el = byHandle.get(handle);
  return el && el.isConnected ? el : null;
}
