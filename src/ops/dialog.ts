import { z } from 'zod';
import { looseEnum } from '../core/schema.js';
import { defineOp } from './define.js';

export const dialog = defineOp({
  name: 'dialog',
  answersDialogs: true,
  readsPage: false,
  summary: 'Answer the open alert/confirm/prompt, or the next one to open if none is open',
  acts: true,
  args: z.strictObject({
    action: looseEnum(['accept', 'dismiss']).describe('accept (OK) or dismiss (Cancel)'),
    text: z.string().optional().describe('Text to enter into a prompt before accepting'),
  }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    const answer = { accept: args.action === 'accept', text: args.text };
    const open = tab.pendingDialog();
    ctx.delivered();
    if (!open) {
      tab.armDialog(answer);
      return {
        data: {
          armed: args.action,
          note: 'No dialog is open; the next one will be answered this way.',
        },
      };
    }
    await tab.answerDialog(answer);
    return { data: { dialog: open, answered: args.action } };
  },
});
