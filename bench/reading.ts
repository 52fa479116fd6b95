// How big and how fast reading a page is: SwiftBrowse's snapshot against Playwright's own
// ariaSnapshot() of the same pages, in one run. Run: npm run build && node dist/bench/reading.js
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, findBrowser } from '../src/drivers/find-browser.js';
import { startHarness } from '../test/helpers/harness.js';

const PAGES = [
  'login.html',
  'dashboard.html',
  'controls.html',
  'hover-menu.html',
  'iframe.html',
  'shadow.html',
  'ambiguous.html',
  'links.html',
  'spa.html',
];

function generated(elements: number): string {
  const rows: string[] = [];
  for (let i = 0; rows.length * 10 < elements; i++) {
    rows.push(
      `<div class="card"><h3>Item ${i}</h3><p>Description of item ${i} with <b>bold</b> text</p>` +
        `<a href="/item/${i}">Open ${i}</a><button>Buy ${i}</button><input name="q${i}" value="v${i}">` +
        `<span>Tag</span><ul><li>one</li><li>two</li></ul></div>`,
    );
  }
  return `<main>${rows.join('')}</main>`;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const h = await startHarness({ timeoutMs: 30_000 });
const browser = await chromium.launch({ executablePath: findBrowser(), args: CHROMIUM_ARGS });
const page = await browser.newPage();
let ours = 0;
let theirs = 0;
console.log('page'.padEnd(18), 'snapshot', 'ariaSnapshot', 'ratio');
for (const name of PAGES) {
  const url = `${h.server.PREFIX}/${name}`;
  await h.op('goto', { url }, 'bench');
  const snap = String((await h.op('snapshot', {}, 'bench')).body.data?.track ?? '');
  await page.goto(url);
  await page.waitForTimeout(name === 'spa.html' ? 100 : 0);
  const aria = await page.locator('body').ariaSnapshot();
  ours += snap.length;
  theirs += aria.length;
  console.log(
    name.padEnd(18),
    String(snap.length).padStart(8),
    String(aria.length).padStart(12),
    (snap.length / aria.length).toFixed(2),
  );
}
console.log(
  'total'.padEnd(18),
  String(ours).padStart(8),
  String(theirs).padStart(12),
  (ours / theirs).toFixed(2),
);

for (const size of [2000, 10000]) {
  h.server.setContent(`/big${size}.html`, generated(size));
  await h.op('goto', { url: `${h.server.PREFIX}/big${size}.html` }, 'bench');
  const count = Number(
    (await h.op('evaluate', { script: "document.querySelectorAll('*').length" }, 'bench')).body.data
      ?.result,
  );
  const opMs: number[] = [];
  for (let i = 0; i < 7; i++)
    opMs.push((await h.op('snapshot', {}, 'bench')).body.timing.duration_ms);
  await page.goto(`${h.server.PREFIX}/big${size}.html`);
  const ariaMs: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    await page.locator('body').ariaSnapshot();
    ariaMs.push(performance.now() - t);
  }
  console.log(
    `${count} elements: snapshot op median ${median(opMs)} ms (whole round trip), ariaSnapshot median ${median(ariaMs).toFixed(0)} ms`,
  );
}
await browser.close();
await h.close();
