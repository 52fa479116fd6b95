// What SwiftBrowse adds per op over raw playwright-core doing the same input (goto, click, fill as
// pressSequentially, press), in wall time and CPU, with diff: false and with the diff; and how long
// the in-page text-track walk takes on big pages.
import { chromium, type Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { CHROMIUM_ARGS, findBrowser } from '../../src/drivers/find-browser.js';
import type { FixtureServer } from '../../test/helpers/fixture-server.js';
import { generatedPage } from '../apps.js';
import { SwiftBrowseAgent } from '../agents/swiftbrowse.js';
import { cpuMsOf, treePids } from '../proc.js';
import { median, round } from '../stats.js';
import { phaseFigures, phaseKey, type Measured, type PhaseFigures } from './phases.js';
import { countRoundTrips, type RoundTrips } from './round-trips.js';

const OPS_PAGE = `<!doctype html><title>Ops</title><main><label>Note <input id="note"></label>
<button id="go">Add</button><ol id="out"></ol></main><script>
document.getElementById('go').onclick = () => { const li = document.createElement('li');
li.textContent = 'Added ' + document.getElementById('note').value; document.getElementById('out').append(li); };
</script>`;

/** The ops the overhead section times, each against raw playwright-core doing the same input. */
export const OVERHEAD_OPS = ['goto', 'click', 'fill', 'press'] as const;
export type OverheadOp = (typeof OVERHEAD_OPS)[number];

/** One way of driving the page: median wall ms and mean CPU ms per op. */
export interface WayFigures {
  ms: Record<OverheadOp, number>;
  cpuMs: Record<OverheadOp, number>;
}

export interface OverheadFigures {
  iterations: number;
  /**
   * raw: in-process playwright-core (fill is `pressSequentially`, as SwiftBrowse types key by
   * key); noDiff / withDiff: SwiftBrowse over MCP stdio with `diff: false` / the default diff;
   * noDiffNoFrames: `diff: false` and LOG_FRAMES=false; baseline: another build, `diff: false`.
   */
  ways: Record<string, WayFigures>;
  /** The baseline build's main, when one ran. */
  baselineMain?: string;
  /**
   * Per way, wall and CPU against raw: per op, and `all` for the four together (the sum of the
   * medians over the sum of raw's).
   */
  ratios: Record<string, { ms: Record<string, number>; cpu: Record<string, number> }>;
  /** The diff's own share of an op's wall time, the four ops together. */
  diffShare: number;
  /** Where each op's time goes, from the session log: per op and diff setting (phases.ts). */
  phases: Record<string, PhaseFigures>;
  /** Page round trips of each op (round-trips.ts). */
  roundTrips: RoundTrips;
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

/** One op of one way of driving the page; `i` makes each fill's text new. */
type Step = (i: number) => Promise<unknown>;

const emptyOps = () => ({}) as Record<OverheadOp, number[]>;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sumOf = (x: Record<OverheadOp, number>) => OVERHEAD_OPS.reduce((n, op) => n + x[op], 0);

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
  const viaMcp = (agent: SwiftBrowseAgent, diff: boolean): Record<OverheadOp, Step> => {
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
      goto: () => call('goto', { url }),
      click: () => call('click', { target: { role: 'button', name: 'Add' } }),
      fill: (i) => call('fill', { target: { label: 'Note' }, value: `note ${i}` }),
      press: () => call('press', { target: { label: 'Note' }, key: 'End' }),
    };
  };
  // Raw does the same input: fill clears the field and types key by key, as SwiftBrowse does.
  const note = page.getByLabel('Note');
  const raw: Record<OverheadOp, Step> = {
    goto: () => page.goto(url),
    click: () => page.getByRole('button', { name: 'Add' }).click(),
    fill: async (i) => {
      await note.fill('');
      await note.pressSequentially(`note ${i}`);
    },
    press: () => note.press('End'),
  };
  // CPU: the server and its browser for SwiftBrowse (not the bench's MCP client); for raw, this
  // process (playwright-core runs in it, the MCP clients idle meanwhile) and raw's own browser.
  const agentRoots = () => [sb, bare, base].flatMap((a) => a?.roots() ?? []);
  const ownMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  // Reading /proc costs this process CPU too: what the reads took is left out of raw's.
  let probing = 0;
  const rawCpu = () => {
    const start = ownMs();
    const ours = new Set(treePids(agentRoots()));
    const browserPids = treePids([{ pid: process.pid, includeRoot: false }]).filter(
      (pid) => !ours.has(pid),
    );
    const browserMs = cpuMsOf(browserPids);
    const own = start - probing;
    probing += ownMs() - start;
    return own + browserMs;
  };
  const ways: Record<string, { steps: Record<OverheadOp, Step>; cpu: () => number }> = {
    raw: { steps: raw, cpu: rawCpu },
    noDiff: { steps: viaMcp(sb, false), cpu: () => cpuMsOf(treePids(sb.roots())) },
    noDiffNoFrames: { steps: viaMcp(bare, false), cpu: () => cpuMsOf(treePids(bare.roots())) },
    withDiff: { steps: viaMcp(sb, true), cpu: () => cpuMsOf(treePids(sb.roots())) },
    ...(base
      ? { baseline: { steps: viaMcp(base, false), cpu: () => cpuMsOf(treePids(base.roots())) } }
      : {}),
  };
  const wall: Record<string, Record<OverheadOp, number[]>> = {};
  const cpu: Record<string, Record<OverheadOp, number[]>> = {};
  // Interleaved, so a change in the machine's load falls on every way alike.
  for (let i = 0; i < iterations; i++)
    for (const [way, { steps, cpu: cpuNow }] of Object.entries(ways))
      for (const op of OVERHEAD_OPS) {
        const before = cpuNow();
        const ms = await timeIt(() => steps[op](i));
        ((cpu[way] ??= emptyOps())[op] ??= []).push(cpuNow() - before);
        ((wall[way] ??= emptyOps())[op] ??= []).push(ms);
      }
  await bare.stop();
  await base?.stop();
  const roundTrips = await countRoundTrips(url, [
    { name: 'goto', op: 'goto', args: { url, diff: false } },
    { name: 'fill', op: 'fill', args: { target: { label: 'Note' }, value: 'x', diff: false } },
    { name: 'click', op: 'click', args: { target: { role: 'button', name: 'Add' }, diff: false } },
    { name: 'press', op: 'press', args: { target: { label: 'Note' }, key: 'End', diff: false } },
    { name: 'click (diff)', op: 'click', args: { target: { role: 'button', name: 'Add' } } },
    // Refs as a snapshot prints them on OPS_PAGE: the field is AAA, the button AB.
    { name: 'snapshot', op: 'snapshot', args: {} },
    { name: 'fill (ref)', op: 'fill', args: { target: { ref: 'AAA' }, value: 'x', diff: false } },
    { name: 'click (ref)', op: 'click', args: { target: { ref: 'AB' }, diff: false } },
  ]);
  const figures: Record<string, WayFigures> = {};
  for (const way of Object.keys(ways)) {
    const per = (xs: Record<OverheadOp, number[]>, pick: (v: number[]) => number) =>
      Object.fromEntries(OVERHEAD_OPS.map((op) => [op, round(pick(xs[op]), 1)])) as Record<
        OverheadOp,
        number
      >;
    figures[way] = { ms: per(wall[way]!, median), cpuMs: per(cpu[way]!, mean) };
  }
  const ratioOf = (a: Record<OverheadOp, number>, b: Record<OverheadOp, number>) => {
    const out: Record<string, number> = {};
    for (const op of OVERHEAD_OPS) out[op] = round(a[op] / b[op], 2);
    out.all = round(sumOf(a) / sumOf(b), 2);
    return out;
  };
  const ratios: OverheadFigures['ratios'] = {};
  for (const way of Object.keys(figures))
    if (way !== 'raw')
      ratios[way] = {
        ms: ratioOf(figures[way]!.ms, figures.raw!.ms),
        cpu: ratioOf(figures[way]!.cpuMs, figures.raw!.cpuMs),
      };
  const overhead: OverheadFigures = {
    iterations,
    ways: figures,
    ...(baselineMain ? { baselineMain } : {}),
    ratios,
    diffShare: round(1 - sumOf(figures.noDiff!.ms) / sumOf(figures.withDiff!.ms), 2),
    phases: phaseFigures(dataDir, 'bench', measured),
    roundTrips,
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
