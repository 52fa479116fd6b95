import { NotAvailable } from '../api.js';
import { h } from '../dom.js';

/** What a screen shows in place of data it could not get: a missing route is said plainly. */
export function problem(e: unknown, what: string): HTMLElement {
  if (e instanceof NotAvailable)
    return h(
      'p',
      { class: 'notice unavailable', role: 'status' },
      `${what} is not available on this server: it lacks ${e.path} (a newer server adds it).`,
    );
  return h('p', { class: 'notice error', role: 'alert' }, `${what}: ${(e as Error).message}`);
}

/** The one place actions report their outcome, read out by screen readers. */
export function announce(text: string, tone: 'ok' | 'error' = 'ok'): void {
  const region = document.getElementById('status');
  if (!region) return;
  region.textContent = text;
  region.className = `status ${tone}`;
}

export function screenTitle(text: string, ...extra: (Node | string)[]): HTMLElement {
  document.title = `${text} — SwiftBrowse console`;
  return h('header', { class: 'screen-head' }, h('h1', { tabindex: '-1' }, text), ...extra);
}

/** A hash link inside the console. */
export function route(path: string, text: string, props: Record<string, string> = {}): HTMLElement {
  return h('a', { href: `#${path}`, ...props }, text);
}
