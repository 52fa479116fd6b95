import type { BrowserTab } from '../drivers/driver.js';

/** A dialog in the op's way is dismissed, and the op says so. */
export async function dismissDialog(tab: BrowserTab | undefined, notes: string[]): Promise<void> {
  const pending = tab?.pendingDialog();
  if (!tab || !pending) return;
  await tab.answerDialog({ accept: false });
  // One note for the op: the first dialog, and how many followed it.
  const at = notes.findIndex((n) => n.startsWith('dialog_dismissed ('));
  if (at < 0)
    return void notes.push(`dialog_dismissed (${pending.type}: ${pending.message.slice(0, 80)})`);
  const more = Number(/ and (\d+) more$/.exec(notes[at])?.[1] ?? 0);
  notes[at] = `${notes[at].replace(/ and \d+ more$/, '')} and ${more + 1} more`;
}
