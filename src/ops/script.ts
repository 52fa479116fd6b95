import type { BrowserTab, FramePath } from '../drivers/driver.js';

/**
 * Runs an author's script in a frame. It may be an expression (`document.title`), a function
 * (`() => …`, called), or a body with `return`. Built here, not with `new Function` in the
 * page, so a page's Content-Security-Policy cannot refuse it.
 */
export function scriptExpression(script: string, arg?: unknown): string {
  const argJson = arg === undefined ? 'undefined' : JSON.stringify(arg);
  if (isExpression(script)) {
    return `(async () => { const __v = (${script}\n); return typeof __v === 'function' ? await __v(${argJson}) : await __v; })()`;
  }
  return `(async (arg) => { ${script}\n})(${argJson})`;
}

function isExpression(script: string): boolean {
  try {
    new Function(`return (${script}\n);`);
    return true;
  } catch {
    return false;
  }
}

export async function runScript(
  tab: BrowserTab,
  frame: FramePath,
  script: string,
  arg?: unknown,
): Promise<unknown> {
  return tab.evaluate(frame, scriptExpression(script, arg));
}
