import { controlInfo, focusForTyping, intentTexts, opensNewTab } from './controls.js';
import { locate } from './locate.js';
import { probe } from './probe.js';
import type { ActAnswer, ActRequest, PageTarget } from './protocol.js';

/**
 * Locate, probe and read what the acting op needs next, in one page call instead of one round
 * trip each (issue 17). The element is probed only when the target names exactly one (or `nth`
 * picks one); the server judges the matches as it would after a plain `locate`.
 */
export async function locateActionable(
  target: PageTarget,
  scopeHandle: number | undefined,
  request: ActRequest,
): Promise<ActAnswer> {
  const located = locate(target, scopeHandle);
  const { matches } = located;
  const pick =
    request.nth === undefined
      ? matches.length === 1
        ? matches[0]
        : undefined
      : matches[request.nth];
  if (located.error || !pick) return { located };
  const control = request.control ? controlInfo(pick.handle) : undefined;
  // Text typed into a field focused by script needs no point: its box need not hold still.
  const typing =
    request.typing && (control?.kind === 'text' || control?.kind === 'contenteditable');
  const verdict = await probe(
    pick.handle,
    typing ? { ...request.probe, stable: false } : request.probe,
  );
  if (!verdict.ok) return { located, verdict };
  const answer: ActAnswer = { located, verdict };
  if (request.intent) answer.intent = intentTexts(pick.handle);
  if (request.popup) answer.popup = opensNewTab(pick.handle);
  if (control) answer.control = control;
  if (typing) answer.focused = focusForTyping(pick.handle);
  return answer;
}
