/**
 * The in-page script: one bundle, run identically by every driver. Each call evaluates
 * `api.<fn>(…args)` in a frame; the api object is installed once per document.
 */
import { locateActionable } from './act.js';
import { activity, activityAfterFrame, checkpoint, documentId, mark } from './activity.js';
import { comboboxState } from './combobox.js';
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
import { elementOf } from './handles.js';
import { locate } from './locate.js';
import { elementShells, extractOf, find, tableRows } from './inspect.js';
import { outline } from './outline.js';
import { frameOffset, probe } from './probe.js';
import { addressOfHandle, track, trackUnlessStill } from './reading.js';
import { markSecretField, typeSecret } from './secret-fields.js';

export const api = {
  element: elementOf,
  addressOf: addressOfHandle,
  activeHandle,
  activity,
  activityAfterFrame,
  checkpoint,
  comboboxState,
  controlInfo,
  documentId,
  domClick,
  elementShells,
  extractOf,
  find,
  focusElement,
  focusForTyping,
  focusInfo,
  frameOffset,
  handleVisible,
  hrefOf,
  intentTexts,
  locate,
  locateActionable,
  mark,
  markSecretField,
  opensNewTab,
  outline,
  probe,
  readValue,
  scrollIntoView,
  scrollPage,
  scrollTo,
  selectOptions,
  setDirectValue,
  tableRows,
  textVisible,
  track,
  trackUnlessStill,
  typeSecret,
};

export type PageApi = typeof api;
