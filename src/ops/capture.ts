import { z } from 'zod';
import { looseEnum } from '../core/schema.js';
import { targetSchema } from '../core/target.js';
import { fileName, saveSessionFile } from '../files/session-files.js';
import { defineOp } from './define.js';
import { actionableElement, summarise } from './element.js';

export const screenshot = defineOp({
  name: 'screenshot',
  summary:
    "Capture the viewport, the full page or one element; saved to the session's files and returned",
  readOnly: true,
  args: z.strictObject({
    target: targetSchema.optional().describe('Capture only this element'),
    full_page: z.boolean().optional().describe('Capture the whole scrollable page'),
    format: looseEnum(['png', 'jpeg']).default('png').describe('Image format (default png)'),
    quality: z.coerce.number().int().min(1).max(100).optional().describe('JPEG quality'),
    save: z.boolean().default(true).describe("Save to the session's files (default true)"),
  }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    let clip: { x: number; y: number; width: number; height: number } | undefined;
    let target;
    if (args.target) {
      const el = await actionableElement(tab, args.target, { enabled: false, hitTest: false });
      clip = el.box;
      target = summarise(el);
    }
    const bytes = await tab.screenshot({
      type: args.format,
      quality: args.format === 'jpeg' ? (args.quality ?? 80) : undefined,
      fullPage: args.full_page,
      clip,
    });
    const data: Record<string, unknown> = {
      image: { content_type: `image/${args.format}`, base64: bytes.toString('base64') },
      bytes: bytes.length,
    };
    const evidence = [];
    if (args.save) {
      try {
        const entry = await saveSessionFile(
          ctx.sessions.downloadsDir(ctx.session),
          fileName('screenshot', ctx.session.name, args.format === 'jpeg' ? 'jpg' : 'png'),
          bytes,
          'screenshot',
        );
        evidence.push(entry);
        data.file = entry.name;
      } catch (e) {
        ctx.notes.push(`not_saved: ${(e as Error).message}`);
      }
    }
    return { data, target, evidence };
  },
});

export const pdf = defineOp({
  name: 'pdf',
  summary: "Print the page to PDF, saved to the session's files",
  readOnly: true,
  args: z.strictObject({}),
  async run(ctx) {
    const tab = await ctx.tab();
    const bytes = await tab.pdf();
    const entry = await saveSessionFile(
      ctx.sessions.downloadsDir(ctx.session),
      fileName('page', ctx.session.name, 'pdf'),
      bytes,
      'pdf',
    );
    return { data: { file: entry.name, bytes: bytes.length }, evidence: [entry] };
  },
});

export const resize = defineOp({
  name: 'resize',
  summary: 'Set the viewport size of the current tab',
  acts: true,
  args: z.strictObject({
    width: z.coerce.number().int().min(200).max(8000).describe('Viewport width in CSS pixels'),
    height: z.coerce.number().int().min(200).max(8000).describe('Viewport height in CSS pixels'),
  }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    ctx.delivered();
    await tab.setViewport(args.width, args.height);
    ctx.session.settings = {
      ...ctx.session.settings,
      viewport: { width: args.width, height: args.height },
    };
    return { data: { viewport: tab.viewport() } };
  },
});
