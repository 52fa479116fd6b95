import { z } from 'zod';
import { flag, looseEnum } from '../core/schema.js';
import { targetSchema } from '../core/target.js';
import { madeFileName } from '../files/names.js';
import { defineOp, type OpContext } from './define.js';
import { actionableElement, summarise } from './element.js';
import { scrubPdf } from '../files/pdf-strings.js';

export const screenshot = defineOp({
  name: 'screenshot',
  summary:
    "Capture the viewport, the full page or one element; saved to the session's files and returned",
  readOnly: true,
  args: z.strictObject({
    target: targetSchema.optional().describe('Capture only this element'),
    full_page: flag().optional().describe('Capture the whole scrollable page'),
    format: looseEnum(['png', 'jpeg']).default('png').describe('Image format (default png)'),
    quality: z.coerce.number().int().min(1).max(100).optional().describe('JPEG quality'),
    save: flag().default(true).describe("Save to the session's files (default true)"),
  }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    let clip: { x: number; y: number; width: number; height: number } | undefined;
    let target;
    if (args.target) {
      const el = await actionableElement(tab, ctx.elements, args.target, {
        enabled: false,
        hitTest: false,
      });
      clip = el.box;
      target = summarise(el);
    }
    const bytes = await tab.screenshot({
      type: args.format,
      quality: args.format === 'jpeg' ? (args.quality ?? 80) : undefined,
      fullPage: args.full_page,
      clip,
      onEchoes: (count) =>
        ctx.notes.push(
          `secret_blanked: ${count} element(s) of the page showing a typed secret as text were drawn blank in the image`,
        ),
    });
    const data: Record<string, unknown> = {
      image: { content_type: `image/${args.format}`, base64: bytes.toString('base64') },
      bytes: bytes.length,
    };
    const name = madeFileName(
      'screenshot',
      ctx.session.name,
      args.format === 'jpeg' ? 'jpg' : 'png',
    );
    const saved = args.save ? await saveFile(ctx, 'screenshot', name, bytes) : {};
    return { data: { ...data, ...saved.data }, target, evidence: saved.evidence };
  },
});

/**
 * Saves into the session's files and answers with the file entry; a save that fails leaves the
 * caller its bytes and a note, never a failed op.
 */
async function saveFile(ctx: OpContext, kind: 'screenshot' | 'pdf', name: string, bytes: Buffer) {
  try {
    const file = await ctx.files.save(ctx.session.name, name, bytes);
    return { data: { file }, evidence: [ctx.files.evidence(ctx.session.name, kind, name)] };
  } catch (e) {
    ctx.notes.push(`not_saved: ${(e as Error).message}; the ${kind} is returned all the same`);
    return {};
  }
}

export const pdf = defineOp({
  name: 'pdf',
  summary:
    "Print the page to PDF, saved to the session's files (save: false returns the bytes instead)",
  readOnly: true,
  args: z.strictObject({
    save: flag().default(true).describe("Save to the session's files (default true)"),
  }),
  async run(ctx, args) {
    const tab = await ctx.tab();
    // The document's title and links come from the page: a typed secret must not reach the file.
    const bytes = scrubPdf(await tab.pdf(), ctx.session.bound);
    const saved = args.save
      ? await saveFile(ctx, 'pdf', madeFileName('page', ctx.session.name, 'pdf'), bytes)
      : {};
    const data: Record<string, unknown> = { bytes: bytes.length, ...saved.data };
    // Unsaved (asked, or the save failed): the caller still gets the document.
    if (!saved.data)
      data.pdf = { content_type: 'application/pdf', base64: bytes.toString('base64') };
    return { data, evidence: saved.evidence };
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
