import type { ErrorHint, ErrorInfo } from '../core/errors.js';
import type { FlowStep } from './document.js';

const GUIDE = 'skill://swiftbrowse/SKILL.md';

/** The guide's sections a failed run points at; a test checks each heading exists. */
export const HINT_SECTIONS = {
  assertWithMessage: 'an-assert-failed-with-its-message',
  assertWithoutMessage: 'an-assert-failed-without-a-message',
  pageChanged: 'the-page-changed-under-the-flow',
  other: 'troubleshooting-flows',
} as const;

/**
 * The hint of a failed run, chosen by cause (seed 000 §F2.6): the `read` reaches the agent, the
 * `repair_flow` prompt is for a person to pick in their client.
 */
export function hintFor(flow: string, n: number, step: FlowStep, error: ErrorInfo): ErrorHint {
  let section: string = HINT_SECTIONS.other;
  if (step.op === 'assert')
    section = step.args?.message
      ? HINT_SECTIONS.assertWithMessage
      : HINT_SECTIONS.assertWithoutMessage;
  else if (error.kind === 'not_found' || error.kind === 'stale_element')
    section = HINT_SECTIONS.pageChanged;
  return {
    read: `${GUIDE}#${section}`,
    prompt: 'repair_flow',
    arguments: { flow, step: String(n), symptom: error.message.slice(0, 200) },
  };
}
