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
  return (await run(tab, frame, undefined, fn, args)) as PageCallResult<K>;
}

/**
 * Calls one function of the in-page script only where the document holds it already; undefined
 * where it does not (nothing of ours ran there, so there is nothing of ours to ask).
 */
export async function callInstalledPage<K extends keyof PageApi>(
  tab: BrowserTab,
  frame: FramePath,
  fn: K,
  ...args: Parameters<PageApi[K]>
): Promise<PageCallResult<K> | undefined> {
  const json = await run(tab, frame, undefined, fn, args, false);
  return json === MISSING ? undefined : (json as PageCallResult<K>);
}

/**
 * Calls one function only in a document of `origin`: the origin is read in the same synchronous
 * script that makes the call, before the script is touched (a document of another origin could
 * hold an impostor of it). Answers the origin found instead when it differs.
 */
export async function callPageOnOrigin<K extends keyof PageApi>(
  tab: BrowserTab,
  frame: FramePath,
  origin: string,
  fn: K,
  ...args: Parameters<PageApi[K]>
): Promise<{ result: PageCallResult<K> } | { otherOrigin: string }> {
  const json = await run(tab, frame, origin, fn, args);
  const wrong = json as { [WRONG_ORIGIN]?: string } | undefined;
  if (typeof wrong === 'object' && wrong !== null && typeof wrong[WRONG_ORIGIN] === 'string')
    return { otherOrigin: wrong[WRONG_ORIGIN] };
  return { result: json as PageCallResult<K> };
}

/** The key a refused call answers under: no function of the script returns it. */
const WRONG_ORIGIN = '__swiftbrowse_other_origin__';

async function run(
  tab: BrowserTab,
  frame: FramePath,
  origin: string | undefined,
  fn: string,
  args: unknown[],
  installing = true,
): Promise<unknown> {
  const argList = args.map((a) => (a === undefined ? 'undefined' : JSON.stringify(a))).join(',');
  // A main-frame call brings the title back with its answer: the op's answer then needs no call
  // of its own for it.
  const main = frame.length === 0;
  // One JSON string crosses the wire: drivers serialise big object graphs far slower than a string.
  const call = (api: string) =>
    main
      ? `Promise.resolve(${api}.${fn}(${argList})).then((v) => JSON.stringify({ ${TITLED}: true, v, t: ${api}.title() }))`
      : `Promise.resolve(${api}.${fn}(${argList})).then((v) => v === undefined ? undefined : JSON.stringify(v))`;
  // `location` is unforgeable: a page cannot make it report another origin.
  const guarded = (expression: string) =>
    origin === undefined
      ? expression
      : `(location.origin === ${JSON.stringify(origin)} ? ${expression} : JSON.stringify({ ${WRONG_ORIGIN}: location.origin }))`;
  // The script (tens of kB) is sent only to a document that does not hold it yet: most calls
  // find it installed and cost a short expression.
  const sentAt = Date.now();
  let json = await tab.evaluate(
    frame,
    guarded(`(globalThis.${key} ? ${call(`globalThis.${key}`)} : ${JSON.stringify(MISSING)})`),
  );
  if (json === MISSING && installing) json = await tab.evaluate(frame, guarded(call(install)));
  if (typeof json !== 'string' || json === MISSING) return json;
  const answer = JSON.parse(json) as unknown;
  if (!isTitled(answer)) return answer;
  tab.titleRead(answer.t, sentAt);
  return answer.v;
}

/** Marks a main-frame answer that carries the title: no page function returns this key. */
const TITLED = '__swiftbrowse_titled__';

function isTitled(answer: unknown): answer is { v: unknown; t: string } {
  return typeof answer === 'object' && answer !== null && TITLED in answer;
}

/** The expression that yields the installed api object (drivers use it to fetch element handles). */
export const pageApiExpression = install;

/**
 * Run by the drivers at every document's start, before the page's own scripts: the script then
 * watches the page's timers and requests from the first one, and holds the browser's own
 * functions before a page can replace them. A document it missed installs it at its first call.
 */
export const pagePreloadScript = `${install};`;
