/**
 * How far past its own `timeout` an op may answer in a test: the page's questions and a stop
 * (INTERRUPT_MS, 2 s at most), then up to 1 s for the op to end (DEADLINE_MARGIN_MS and
 * AFTER_INTERRUPT_MS; docs/targets-and-waiting.md), and 2 s more for the event loops of a 2-core
 * machine at load 8. A test of a time bound uses this, never a tighter figure of its own.
 */
export const ANSWER_SLACK_MS = 5000;
