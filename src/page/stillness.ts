// Whether the page can have changed since a text track was read, without reading it again
// (issue 17: no second text-track walk when nothing changed). The mutation count (activity.ts)
// misses what changes the track with no DOM mutation: a control's live value, :hover and :focus
// styles, a popover shown, a scroll. Those come with events, counted here; a value a script sets
// with no event is caught by a hash of the controls' values. Shadow trees and frames are outside
// the document's mutation observer, so a page holding them is never taken as still.
import { activity, documentId } from './activity.js';

/** What the page looked like to these counters when a track was read. */
export interface Stillness {
  documentId: string;
  /** Events that can change what renders with no DOM mutation, counted since the script came in. */
  events: number;
  /** A hash of every control's value and checked state in the document. */
  values: number;
}

// Capture on window sees every one of them, bubbling or not, before the page can stop it.
const EVENTS = [
  'input',
  'change',
  'reset',
  'submit',
  'keydown',
  'focusin',
  'focusout',
  'pointerover',
  'pointerout',
  'mouseover',
  'mouseout',
  'scroll',
  'resize',
  'toggle',
  'beforetoggle',
  'close',
  'transitionrun',
  'animationstart',
  'hashchange',
  'popstate',
  'fullscreenchange',
];
let events = 0;
for (const type of EVENTS)
  window.addEventListener(type, () => events++, { capture: true, passive: true });

function mix(hash: number, text: string): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return Math.imul(h ^ 0x1f, 0x01000193);
}

/** FNV-1a over the controls' state: only the number leaves the page, never a value. */
function controlValues(): number {
  let hash = 0x811c9dc5;
  for (const el of document.querySelectorAll('input, textarea, select')) {
    if (el instanceof HTMLInputElement)
      hash = mix(hash, `${el.value}\u0000${el.checked ? 1 : 0}${el.indeterminate ? 1 : 0}`);
    else if (el instanceof HTMLTextAreaElement) hash = mix(hash, el.value);
    else if (el instanceof HTMLSelectElement)
      for (const o of el.options) hash = mix(hash, o.selected ? '1' : '0');
  }
  return hash >>> 0;
}

/** The counters now, to keep with a track of the whole page. */
export function stillness(): Stillness {
  return { documentId: documentId(), events, values: controlValues() };
}

/**
 * True when nothing that renders can have changed since `then`: the same document, no DOM
 * mutation since the last mark (the action's start), no event of the kinds above, the same
 * control values.
 */
export function stillSince(then: Stillness): boolean {
  if (then.documentId !== documentId() || then.events !== events) return false;
  if (activity().mutations !== 0) return false;
  return controlValues() === then.values;
}
