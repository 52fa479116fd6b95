import { approvalError, consequentialWord } from '../core/approval.js';
import { describeTarget, type Target } from '../core/target.js';
import type { BrowserTab, FramePath } from '../drivers/driver.js';
import { callPage } from '../drivers/page-script.js';
import type { Activation } from '../page/protocol.js';
import type { OpContext } from './define.js';

/** Whether an action must read what it activates: the policy is on and no approval came. */
export function needsApproval(ctx: OpContext, approved: boolean | undefined): boolean {
  return ctx.approval && !approved;
}

/**
 * A consequential click or Enter needs the user's approval when the policy is on (DESIGN §3.6).
 * Judged on the control the action activates (page `intentTexts`), never on typed text; `intent`
 * is those texts when the lookup already read them.
 */
export async function requireApproval(
  ctx: OpContext,
  tab: BrowserTab,
  el: { frame: FramePath; handle: number; target?: Target },
  approved: boolean | undefined,
  activation: Activation = 'click',
  intent?: string[],
): Promise<void> {
  if (!needsApproval(ctx, approved)) return;
  const texts = intent ?? (await callPage(tab, el.frame, 'intentTexts', el.handle, activation));
  const word = consequentialWord(texts, ctx.config.consequentialWords);
  if (!word) return;
  const op =
    ctx.surface === 'flow' ? 'This step' : activation === 'enter' ? 'press Enter' : 'click';
  throw approvalError(op, el.target ? describeTarget(el.target) : 'the focused element', word);
}
