/**
 * The in-page script: one bundle, run identically by every driver. Each call evaluates
 * `api.<fn>(…args)` in a frame; the api object is installed once per document.
 */
import { locateActionable } from './act.js';
import {
  activity,
  activityAfterFrame,
  checkpoint,
  documentId,
  mark,
  watchActivity,
} from './activity.js';
import { comboboxState } from './combobox.js';
import { quietDialogStorms } from './dialog-storm.js';
import { handleVisible, textVisible } from './conditions.js';
import {
  activeHandle,
  controlInfo,
  domClick,
  focusElement,
  focusForTyping,
  focusInfo,
  hrefOf,
  intentTexts,
  opensNewTab,
  readValue,
  scrollIntoView,
  scrollPage,
  scrollTo,
  selectOptions,
  setDirectValue,
} from './controls.js';
import { withFrames } from './frames.js';
import { elementOf } from './handles.js';
import { locate } from './locate.js';
import { elementShells, extractOf, find, tableRows } from './inspect.js';
import { outline } from './outline.js';
import { frameOffset, probe, receivesAt } from './probe.js';
import { addressOfHandle, track, trackUnlessStill } from './reading.js';
import {
  blankSecretEchoes,
  markSecretField,
  typeSecret,
  unblankSecretEchoes,
} from './secret-fields.js';

// Searches answer with the document's shown frames (only when it has any), so the server looks
// into each without a second call on a page that has none.
const framed = {
  locate: (...a: Parameters<typeof locate>) => withFrames(locate(...a)),
  locateActionable: async (...a: Parameters<typeof locateActionable>) =>
    withFrames(await locateActionable(...a)),
  find: (...a: Parameters<typeof find>) => withFrames(find(...a)),
  outline: (...a: Parameters<typeof outline>) => withFrames(outline(...a)),
  textVisible: (text: string) => withFrames({ visible: textVisible(text) }),
};

watchActivity();
quietDialogStorms();

/** The browser's own title getter, held before the page's scripts run: a page's redefinition is not read. */
const titleGetter = Object.getOwnPropertyDescriptor(Document.prototype, 'title')?.get;

/** The document's title, read on the way back of every main-frame call: the answer's `page.title`. */
function pageTitle(): string {
  try {
    return String(titleGetter?.call(document) ?? '');
  } catch {
    return '';
  }
}

export const api = {
  element: elementOf,
  addressOf: addressOfHandle,
  activeHandle,
  activity,
  activityAfterFrame,
  blankSecretEchoes,
  checkpoint,
  comboboxState,
  controlInfo,
  documentId,
  domClick,
  elementShells,
  extractOf,
  find: framed.find,
  focusElement,
  focusForTyping,
  focusInfo,
  frameOffset,
  handleVisible,
  hrefOf,
  intentTexts,
  locate: framed.locate,
  locateActionable: framed.locateActionable,
  mark,
  markSecretField,
  opensNewTab,
  outline: framed.outline,
  probe,
  readValue,
  receivesAt,
  scrollIntoView,
  scrollPage,
  scrollTo,
  selectOptions,
  setDirectValue,
  tableRows,
  textVisible: framed.textVisible,
  title: pageTitle,
  track,
  trackUnlessStill,
  typeSecret,
  unblankSecretEchoes,
};

export type PageApi = typeof api;
