import type { Harness } from './harness.js';

/** Reads a value from the page of a session with evaluate, for asserting what the page did. */
export async function pageValue(h: Harness, script: string, session = 't'): Promise<unknown> {
  const r = await h.op('evaluate', { script }, session);
  if (!r.body.ok) throw new Error(`evaluate failed: ${JSON.stringify(r.body.error)}`);
  return (r.body.data as { result: unknown }).result;
}
