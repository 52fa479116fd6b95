import { assert, waitFor } from './assert.js';
import { batch } from './batch.js';
import { pdf, resize, screenshot } from './capture.js';
import { click } from './click.js';
import { consoleOp } from './console.js';
import type { OpDefinition } from './define.js';
import { dialog } from './dialog.js';
import { drag } from './drag.js';
import { evaluate } from './evaluate.js';
import { fill } from './fill.js';
import { files, keepFile } from './files.js';
import { flowDelete, flowGet, flowList, flowRun, flowSave } from './flows.js';
import { hover } from './hover.js';
import { close, open, stateSave, status } from './lifecycle.js';
import { back, forward, goto, reload } from './navigate.js';
import { network } from './network.js';
import { press } from './press.js';
import { report } from './report.js';
import { extract, find, outline } from './read.js';
import { scroll } from './scroll.js';
import { secrets } from './secrets.js';
import { diff, snapshot } from './snapshot.js';
import { tabClose, tabList, tabNew, tabSelect } from './tabs.js';
import { upload } from './upload.js';

/** Every op, in the order listings show them. */
export const OPS: readonly OpDefinition[] = [
  open,
  close,
  status,
  stateSave,
  goto,
  back,
  forward,
  reload,
  snapshot,
  find,
  extract,
  outline,
  diff,
  click,
  hover,
  drag,
  fill,
  press,
  scroll,
  upload,
  dialog,
  evaluate,
  assert,
  waitFor,
  screenshot,
  pdf,
  consoleOp,
  network,
  resize,
  tabNew,
  tabList,
  tabSelect,
  tabClose,
  files,
  keepFile,
  secrets,
  batch,
  flowList,
  flowGet,
  flowSave,
  flowDelete,
  flowRun,
  report,
];

export const OP_MAP: ReadonlyMap<string, OpDefinition> = new Map(OPS.map((op) => [op.name, op]));
