import type { Bidi } from './bidi.js';
import { fromWebDriver } from './errors.js';

/**
 * Scales a PNG down to at most `maxWidth` CSS pixels and encodes it as a JPEG, inside the browser:
 * BiDi captures only at full size, and Node has no image codec here. It runs in a sandbox (an
 * isolated world), so the page neither sees it nor can tamper with the canvas it uses. The JPEG
 * is read back by FileReader: Firefox's sandbox may not read the page's ArrayBuffer (Xrays), and a
 * fetch of a data URL there obeys the page's CSP.
 */
const SCALE_TO_JPEG = `async (png, maxWidth, quality) => {
  const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
  const width = Math.min(maxWidth, Math.round(bitmap.width / (devicePixelRatio || 1)));
  const height = Math.max(1, Math.round((bitmap.height * width) / bitmap.width));
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  const jpeg = await canvas.convertToBlob({ type: 'image/jpeg', quality });
  const dataUrl = await new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(jpeg);
  });
  return dataUrl.slice(dataUrl.indexOf(',') + 1);
}`;

interface CallResult {
  type: 'success' | 'exception';
  result?: { type: string; value?: unknown };
  exceptionDetails?: { text: string };
}

export async function scaleToJpeg(
  bidi: Bidi,
  context: string,
  png: Buffer,
  options: { maxWidth: number; quality: number },
): Promise<Buffer> {
  let r: CallResult;
  try {
    r = await bidi.call<CallResult>('script.callFunction', {
      functionDeclaration: SCALE_TO_JPEG,
      arguments: [
        { type: 'string', value: png.toString('base64') },
        { type: 'number', value: options.maxWidth },
        { type: 'number', value: options.quality / 100 },
      ],
      target: { context, sandbox: 'swiftbrowse-capture' },
      awaitPromise: true,
      resultOwnership: 'none',
    });
  } catch (e) {
    throw fromWebDriver(e, 'Scaling the viewport capture');
  }
  if (r.type !== 'success' || typeof r.result?.value !== 'string')
    throw fromWebDriver(
      new Error(r.exceptionDetails?.text ?? 'no image came back'),
      'Scaling the viewport capture',
    );
  return Buffer.from(r.result.value, 'base64');
}
