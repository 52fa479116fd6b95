// What SwiftBrowse adds per op over raw playwright-core (with diff: false and with the diff), and
// how long the in-page text-track walk takes on big pages.
import { chromium, type Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { CHROMIUM_ARGS, findBrowser } from '../../src/drivers/find-browser.js';
import type { FixtureServer } from '../../test/helpers/fixture-server.js';
import { generatedPage } from '../apps.js';
import { SwiftBrowseAgent } from '../agents/swiftbrowse.js';
import { median, round } from '../stats.js';
import { phaseFigures, phaseKey, type Measured, type PhaseFigures } from './phases.js';
import { countRoundTrips, type RoundTrips } from './round-trips.js';

const OPS_PAGE = `<!doctype html><title>Ops</title><main><label>Note <input id="note"></label>
<button id="go">Add</button><ol id="out"></ol></main><script>
document.getElementById('go').onclick = () => { const li = document.createElement('li');
li.textContent = 'Added ' + document.getElementById('note').value; document.getElementById('out').append(li); };
</script>`;

export interface OverheadFigures {
  iterations: number;
  /** Median client round trip per op, ms. */
  raw: { fill: number; click: number };
  noDiff: { fill: number; click: number };
  /** diff: false on another build (--baseline), interleaved with the rest. */
  baseline?: { fill: number; click: number; main: string; overheadMs: number };
  /** diff: false with LOG_FRAMES=false: no session-log screenshot after each op. */
  noDiffNoFrames: { fill: number; click: number };
  withDiff: { fill: number; click: number };
  /** Where each op's time goes, from the session log: per op and diff setting (phases.ts). */
  phases: Record<string, PhaseFigures>;
  /** Page round trips of one fill and one click (round-trips.ts). */
  roundTrips: RoundTrips;
  overheadNoDiffMs: number;
  overheadNoFramesMs: number;
  overheadWithDiffMs: number;
  diffCostMs: number;
}

export interface WalkFigures {
  page: string;
  elements: number;
  /** In-page text-track walk (performance.now inside the page), median ms. */
  walkMs: number;
  /** The snapshot op through MCP, client round trip, median ms. */
  snapshotOpMs: number;
  /** Playwright's own ariaSnapshot() of body, median ms, for reference. */
  ariaSnapshotMs: number;
  trackChars: number;
  ariaChars: number;
}

function durationOf(structured: unknown): number {
  const timing = (structured as { timing?: { duration_ms?: number } } | undefined)?.timing;
  return timing?.duration_ms ?? NaN;
}

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

export async function measureOverhead(
  server: FixtureServer,
  dataDir: string,
  iterations: number,
  withWalk = true,
  baselineMain?: string,
): Promise<{ overhead: OverheadFigures; walk?: WalkFigures[] }> {
  server.setContent('/ops.html', OPS_PAGE);
  const url = `${server.PREFIX}/ops.html`;
  const browser = await chromium.launch({ executablePath: findBrowser(), args: CHROMIUM_ARGS });
  const page = await browser.newPage();
  await page.goto(url);
  const sb = new SwiftBrowseAgent({ tools: 'compact', env: { DATA_DIR: dataDir } });
  await sb.start(url);
  // The same pipeline without the session log's frames (LOG_FRAMES=false): what the audit trail's
  // screenshot after each op costs the op that follows it.
  const bare = new SwiftBrowseAgent({
    tools: 'compact',
    env: { DATA_DIR: `${dataDir}-noframes`, LOG_FRAMES: 'false' },
  });
  await bare.start(url);
  const base = baselineMain
    ? new SwiftBrowseAgent({
        tools: 'compact',
        env: { DATA_DIR: `${dataDir}-baseline` },
        main: baselineMain,
      })
    : undefined;
  await base?.start(url);
  // Each SwiftBrowse call also keeps the op's own duration, to split the round trip.
  const measured: Measured = {};
  const viaMcp = (agent: SwiftBrowseAgent, diff: boolean) => {
    const call = async (op: string, args: Record<string, unknown>) => {
      const t = performance.now();
      // The op's own duration is in the whole result (detail: full), which the baseline may predate.
      const detail = agent === sb ? { detail: 'full' } : {};
      const { text } = await agent.run(op, { ...args, diff, ...detail });
      const m = (measured[phaseKey(op, diff)] ??= { roundTrip: [], duration: [] });
      if (agent === sb) {
        m.roundTrip.push(performance.now() - t);
        m.duration.push(durationOf(JSON.parse(text)));
      }
    };
    return {
      fill: (i: number) => call('fill', { target: { label: 'Note' }, value: `note ${i}` }),
      click: () => call('click', { target: { role: 'button', name: 'Add' } }),
    };
  };
  const ways = {
    raw: {
      fill: (i: number) => page.getByLabel('Note').fill(`note ${i}`),
      click: () => page.getByRole('button', { name: 'Add' }).click(),
    },
    noDiff: viaMcp(sb, false),
    noDiffNoFrames: viaMcp(bare, false),
    withDiff: viaMcp(sb, true),
    ...(base ? { baseline: viaMcp(base, false) } : {}),
  };
  type Way = keyof typeof ways;
  const times = Object.fromEntries(
    Object.keys(ways).map((w) => [w, { fill: [] as number[], click: [] as number[] }]),
  ) as Record<Way, { fill: number[]; click: number[] }>;
  // Interleaved, so a change in the machine's load falls on every way alike.
  for (let i = 0; i < iterations; i++)
    for (const way of Object.keys(ways) as Way[]) {
      const run = ways[way]!;
      times[way].fill.push(await timeIt(() => run.fill(i)));
      times[way].click.push(await timeIt(() => run.click()));
    }
  await bare.stop();
  await base?.stop();
  const roundTrips = await countRoundTrips(url, [
    { name: 'fill', op: 'fill', args: { target: { label: 'Note' }, value: 'x', diff: false } },
    { name: 'click', op: 'click', args: { target: { role: 'button', name: 'Add' }, diff: false } },
    { name: 'click (diff)', op: 'click', args: { target: { role: 'button', name: 'Add' } } },
    // Refs as a snapshot prints them on OPS_PAGE: the field is AAA, the button AB.
    { name: 'snapshot', op: 'snapshot', args: {} },
    { name: 'fill (ref)', op: 'fill', args: { target: { ref: 'AAA' }, value: 'x', diff: false } },
    { name: 'click (ref)', op: 'click', args: { target: { ref: 'AB' }, diff: false } },
  ]);
  const med = (x: { fill: number[]; click: number[] }) => ({
    fill: round(median(x.fill), 1),
    click: round(median(x.click), 1),
  });
  const all = (x: { fill: number[]; click: number[] }) => median([...x.fill, ...x.click]);
  const overhead: OverheadFigures = {
    iterations,
    raw: med(times.raw),
    noDiff: med(times.noDiff),
    noDiffNoFrames: med(times.noDiffNoFrames),
    withDiff: med(times.withDiff),
    ...(baselineMain && times.baseline
      ? {
          baseline: {
            ...med(times.baseline),
            main: baselineMain,
            overheadMs: round(all(times.baseline) - all(times.raw), 1),
          },
        }
      : {}),
    phases: phaseFigures(dataDir, 'bench', measured),
    roundTrips,
    overheadNoDiffMs: round(all(times.noDiff) - all(times.raw), 1),
    overheadNoFramesMs: round(all(times.noDiffNoFrames) - all(times.raw), 1),
    overheadWithDiffMs: round(all(times.withDiff) - all(times.raw), 1),
    diffCostMs: round(all(times.withDiff) - all(times.noDiff), 1),
  };

  if (!withWalk) {
    await sb.stop();
    await browser.close();
    return { overhead };
  }
  const bundle = readFileSync(new URL('../../page/injected.js', import.meta.url), 'utf8');
  const walk: WalkFigures[] = [];
  const pages: [string, string][] = [
    ['generated 2,000', '/gen2000.html'],
    ['generated 10,000 (large)', '/gen10000.html'],
    ['long article', '/article/1.html'],
  ];
  server.setContent('/gen2000.html', generatedPage(2000));
  server.setContent('/gen10000.html', generatedPage(10000));
  for (const [name, path] of pages) {
    await page.goto(`${server.PREFIX}${path}`);
    walk.push(await walkOf(page, bundle, name, sb, `${server.PREFIX}${path}`));
  }
  await sb.stop();
  await browser.close();
  return { overhead, walk };
}

async function walkOf(
  page: Page,
  bundle: string,
  name: string,
  sb: SwiftBrowseAgent,
  url: string,
): Promise<WalkFigures> {
  await page.addScriptTag({ content: bundle });
  const elements = await page.evaluate(() => document.querySelectorAll('*').length);
  const walks: number[] = [];
  let trackChars = 0;
  for (let i = 0; i < 9; i++) {
    const [ms, chars] = (await page.evaluate(
      `(() => { const t = performance.now(); const r = __swiftbrowsePage.api.track({});
        return [performance.now() - t, JSON.stringify(r.lines).length]; })()`,
    )) as [number, number];
    walks.push(ms);
    trackChars = chars;
  }
  const aria: number[] = [];
  let ariaChars = 0;
  for (let i = 0; i < 5; i++)
    aria.push(
      await timeIt(async () => {
        ariaChars = (await page.locator('body').ariaSnapshot()).length;
      }),
    );
  await sb.run('goto', { url, diff: false });
  const ops: number[] = [];
  let snapshotChars = 0;
  for (let i = 0; i < 5; i++)
    ops.push(
      await timeIt(async () => {
        snapshotChars = (await sb.run('snapshot', {}, 'read')).text.length;
      }),
    );
  return {
    page: name,
    elements,
    walkMs: round(median(walks), 1),
    snapshotOpMs: round(median(ops), 1),
    ariaSnapshotMs: round(median(aria), 1),
    trackChars: snapshotChars || trackChars,
    ariaChars,
  };
}
