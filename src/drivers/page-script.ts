import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PageApi } from '../page/index.js';
import type { BrowserTab, FramePath } from './driver.js';

const bundle = readFileSync(new URL('../../page/injected.js', import.meta.url), 'utf8');
// Keyed by the bundle's hash so a page never keeps an older server's script.
const key = `__swiftbrowse_${createHash('sha1').update(bundle).digest('hex').slice(0, 8)}`;
const install = `(globalThis.${key} ??= (() => { ${bundle}; return __swiftbrowsePage.api; })())`;
/** What a call answers when the script is not in the document yet; never a JSON text. */
const MISSING = '__swiftbrowse_missing__';

type Awaited<T> = T extends Promise<infer U> ? U : T;
export type PageCallResult<K extends keyof PageApi> = Awaited<ReturnType<PageApi[K]>>;

/** Calls one function of the in-page script in a frame of a tab. */
export async function callPage<K extends keyof PageApi>(
  tab: BrowserTab,
  frame: FramePath,
  fn: K,
  ...args: Parameters<PageApi[K]>
): Promise<PageCallResult<K>> {
  const argList = args.map((a) => (a === undefined ? 'undefined' : JSON.stringify(a))).join(',');
  // One JSON string crosses the wire: drivers serialise big object graphs far slower than a string.
  const call = (api: string) =>
    `Promise.resolve(${api}.${fn}(${argList})).then((v) => v === undefined ? undefined : JSON.stringify(v))`;
  // The script (tens of kB) is sent only to a document that does not hold it yet: most calls
  // find it installed and cost a short expression.
  let json = await tab.evaluate(
    frame,
    `(globalThis.${key} ? ${call(`globalThis.${key}`)} : ${JSON.stringify(MISSING)})`,
  );
  if (json === MISSING) json = await tab.evaluate(frame, call(install));
  return (typeof json === 'string' ? JSON.parse(json) : json) as PageCallResult<K>;
}

/** The expression that yields the installed api object (drivers use it to fetch element handles). */
export const pageApiExpression = install;
