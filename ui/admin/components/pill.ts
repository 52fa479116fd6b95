import { h } from '../dom.js';

export type PillTone = 'neutral' | 'good' | 'warn' | 'bad' | 'info';

/** A status mark: inert text with a tone, never an action (actions are buttons). */
export function pill(text: string, tone: PillTone = 'neutral', title?: string): HTMLElement {
  return h('span', { class: `pill ${tone}`, title }, text);
}

const STATE_TONES: Record<string, PillTone> = {
  open: 'good',
  busy: 'warn',
  closed: 'neutral',
  ended: 'bad',
  orphan: 'info',
};

export function statePill(state: string): HTMLElement {
  return pill(state, STATE_TONES[state] ?? 'neutral');
}
