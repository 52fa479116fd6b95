import { describeCondition, globToRegExp, type Condition } from '../core/condition.js';
import { OpError } from '../core/errors.js';
import type { Check } from '../core/result.js';
import type { BrowserTab } from '../drivers/driver.js';
import { callPage } from '../drivers/page-script.js';
import { findElement, type ElementContext } from './element.js';
import { belowFrame, DEFAULT_FRAME_LIMITS, MAIN_FRAME } from './frames.js';
import { runScript } from './script.js';

export interface VerifyOptions {
  /** js conditions are allowed (EVALUATE). */
  evaluate: boolean;
  signal?: AbortSignal;
  /** The op's element context: element conditions may name refs. */
  elements: ElementContext;
  /**
   * Dismisses a dialog the page raised in the reads' way, as at the op's start: a page that
   * raises one after another between two reads (Firefox answers the next at once) would else
   * fail every read to the end of the op's time.
   */
  clearDialog?: () => Promise<void>;
}

interface Observation {
  passed: boolean;
  observed: Record<string, unknown>;
}

async function countMatches(
  tab: BrowserTab,
  elements: ElementContext,
  condition: Condition,
): Promise<{ count: number; visible: number }> {
  try {
    // Matches are the visible ones whenever any is visible, so the first tells.
    const found = await findElement(tab, elements, {
      ...condition.target!,
      nth: condition.target!.nth ?? 0,
    });
    return { count: found.candidates, visible: found.info.visible ? found.candidates : 0 };
  } catch (e) {
    if (e instanceof OpError && e.kind === 'not_found') return { count: 0, visible: 0 };
    throw e;
  }
}

/**
 * Where the text is visible: '' in the main frame, a frame's address, undefined nowhere. The
 * frames are looked into only when the main frame does not show it (and it has frames).
 */
async function textSeen(
  tab: BrowserTab,
  elements: ElementContext,
  text: string,
): Promise<string | undefined> {
  const main = await callPage(tab, [], 'textVisible', text);
  if (main.visible) return '';
  const below = await belowFrame(
    elements.frames ?? DEFAULT_FRAME_LIMITS,
    MAIN_FRAME,
    main.frames,
    (spot) => callPage(tab, spot.path, 'textVisible', text),
  );
  return below.answers.find((a) => a.value.visible)?.spot.address;
}

/** Looks once: does the condition hold right now, and what was seen. */
export async function observe(
  tab: BrowserTab,
  c: Condition,
  options: VerifyOptions,
): Promise<Observation> {
  switch (c.type) {
    case 'url_contains':
      return { passed: tab.url().includes(String(c.value)), observed: { url: tab.url() } };
    case 'url_matches':
      return {
        passed: globToRegExp(String(c.value)).test(tab.url()),
        observed: { url: tab.url() },
      };
    case 'title_contains': {
      const title = await tab.title();
      return { passed: title.includes(String(c.value)), observed: { title } };
    }
    case 'text_visible':
    case 'text_gone': {
      const seen = await textSeen(tab, options.elements, String(c.value));
      const visible = seen !== undefined;
      const observed: Record<string, unknown> = { visible };
      if (seen) observed.frame = seen;
      return { passed: c.type === 'text_visible' ? visible : !visible, observed };
    }
    case 'visible':
    case 'hidden': {
      const { count, visible } = await countMatches(tab, options.elements, c);
      return {
        passed: c.type === 'visible' ? visible > 0 : visible === 0,
        observed: { count, visible: visible > 0 },
      };
    }
    case 'count': {
      const { count } = await countMatches(tab, options.elements, c);
      return { passed: count === c.equals, observed: { count } };
    }
    case 'value': {
      const found = await findElement(tab, options.elements, c.target!);
      const value = await callPage(tab, found.frame, 'readValue', found.handle);
      return { passed: value === String(c.equals), observed: { value } };
    }
    case 'js': {
      if (!options.evaluate)
        throw new OpError(
          'permission_denied',
          'js conditions are off on this server (EVALUATE=off); use url, text or element conditions.',
        );
      const value = await runScript(tab, [], String(c.value));
      if (typeof value !== 'boolean') {
        throw new OpError(
          'invalid_argument',
          `A js condition must return exactly true or false; it returned ${describeValue(value)}. Add an explicit return of a boolean.`,
        );
      }
      return { passed: value, observed: { returned: value } };
    }
  }
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined (is a return statement missing?)';
  if (value === null) return 'null';
  const json = JSON.stringify(value);
  return `${typeof value} ${json && json.length > 60 ? `${json.slice(0, 60)}…` : json}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls the conditions until all hold (each for its `stable_for`) or the time is up. A condition
 * that never held fails, whatever the time it took; errors that are not "not yet" end it at once.
 */
export async function verify(
  tab: BrowserTab,
  conditions: Condition[],
  timeoutMs: number,
  options: VerifyOptions,
): Promise<Check[]> {
  const deadline = Date.now() + timeoutMs;
  const heldSince = new Map<number, number>();
  for (;;) {
    const checks: Check[] = [];
    await options.clearDialog?.();
    for (const [i, c] of conditions.entries()) {
      let obs: Observation;
      try {
        obs = await observe(tab, c, options);
      } catch (e) {
        if (e instanceof OpError && !e.recoverable && e.kind !== 'ambiguous') throw e;
        const message = e instanceof Error ? e.message : String(e);
        obs = { passed: false, observed: { error: message } };
      }
      const now = Date.now();
      if (obs.passed) {
        if (!heldSince.has(i)) heldSince.set(i, now);
      } else heldSince.delete(i);
      const stableFor = c.stable_for ?? 0;
      const held = heldSince.has(i) ? now - heldSince.get(i)! : 0;
      const passed = obs.passed && held >= stableFor;
      const check: Check = { condition: c, passed, observed: obs.observed };
      if (obs.passed && !passed) check.observed = { ...obs.observed, held_ms: held };
      checks.push(check);
    }
    if (checks.every((c) => c.passed)) return checks;
    if (Date.now() >= deadline || options.signal?.aborted) return checks;
    await sleep(Math.min(100, Math.max(10, deadline - Date.now())));
  }
}

/** One sentence on the first failed check, for the error message. */
export function failureMessage(checks: Check[], url: string): string {
  const failed = checks.filter((c) => !c.passed);
  const parts = failed.map((c) => {
    const seen = c.observed
      ? Object.entries(c.observed)
          .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
          .join(', ')
      : '';
    const stable = c.condition.stable_for ? ` for ${c.condition.stable_for} ms` : '';
    return `${describeCondition(c.condition)} did not hold${stable}${seen ? ` (saw ${seen})` : ''}`;
  });
  return `On ${url}: ${parts.join('; ')}.`;
}
