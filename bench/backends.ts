// Per-op latency of one 20-op batch on the three ways SwiftBrowse can drive Chromium: the local
// Playwright backend, the WebDriver backend on a local ChromeDriver (no Grid), and the WebDriver
// backend through a Selenium Grid. Rounds alternate between backends so they share the machine's
// load; each op's figure is the median of its rounds.
// Run: npm run build && node dist/bench/backends.js [rounds]
import { spawn } from 'node:child_process';
import { startGrid } from '../test/helpers/grid.js';
import { startHarness, type Harness } from '../test/helpers/harness.js';
import { freePort } from '../test/helpers/ports.js';
import { commandLine } from './command-line.js';

const USAGE = `
Usage: node dist/bench/backends.js [rounds]
  rounds               rounds per backend (default 5); each op's figure is their median
  -h, --help           this text
`;
const { positionals } = commandLine(USAGE, { options: {}, allowPositionals: true });
const ROUNDS = Number(positionals[0] ?? 5);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  process.stderr.write(`rounds takes a whole number ≥ 1 (got "${positionals[0]}")\n${USAGE}`);
  process.exit(2);
}

type Step = [op: string, args: (prefix: string) => Record<string, unknown>];
const BATCH: Step[] = [
  ['goto', (p) => ({ url: `${p}/login.html` })],
  ['snapshot', () => ({})],
  ['fill', () => ({ target: { label: 'Email' }, value: 'ada@example.com' })],
  ['fill', () => ({ target: { label: 'Password' }, value: 'hunter22' })],
  ['find', () => ({ target: { role: 'button' } })],
  ['click', () => ({ target: { role: 'button', name: 'Sign in' } })],
  ['goto', (p) => ({ url: `${p}/controls.html` })],
  ['fill', () => ({ target: { label: 'Country' }, value: 'France' })],
  ['fill', () => ({ target: { label: 'Terms' }, value: true })],
  ['fill', () => ({ target: { label: 'Name' }, value: 'Ada' })],
  ['press', () => ({ key: 'Tab' })],
  ['extract', () => ({ target: { label: 'Name' }, what: 'value' })],
  ['evaluate', () => ({ script: 'document.title' })],
  ['scroll', () => ({ to: 'bottom' })],
  ['screenshot', () => ({})],
  ['outline', () => ({})],
  ['goto', (p) => ({ url: `${p}/hover-menu.html` })],
  ['hover', () => ({ target: { text: 'HelpDesk' } })],
  ['back', () => ({})],
  ['status', () => ({})],
];

async function startChromeDriver(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const child = spawn('/usr/bin/chromedriver', [`--port=${port}`], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/status`)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { url, stop: () => child.kill() };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function round(name: string, h: Harness, session: string): Promise<number[]> {
  const times: number[] = [];
  for (const [op, args] of BATCH) {
    const t = performance.now();
    const r = await h.op(op, args(h.server.PREFIX), session);
    times.push(performance.now() - t);
    if (!r.body.ok) console.error(`  ${name}: ${op} failed: ${r.body.error?.message}`);
  }
  return times;
}

const chromedriver = await startChromeDriver();
const grid = await startGrid(2);
// A bare ChromeDriver knows no stereotype: it is told where Chromium is and how to start it.
const local = {
  'goog:chromeOptions': {
    binary: '/usr/bin/chromium',
    args: ['--disable-gpu', '--no-first-run', '--disable-background-networking'],
  },
};
const backends: [string, Harness][] = [
  ['playwright', await startHarness({ gridUrl: undefined, timeoutMs: 30_000 })],
  [
    'chromedriver',
    await startHarness({
      gridUrl: chromedriver.url,
      sessionCapabilities: local,
      timeoutMs: 30_000,
    }),
  ],
  ['grid', await startHarness({ gridUrl: grid.url, timeoutMs: 30_000 })],
];
const samples = new Map<string, number[][]>(backends.map(([name]) => [name, []]));
try {
  for (const [, h] of backends) await h.op('open', {}, 'bench'); // browser start is not an op cost
  for (let r = 0; r < ROUNDS; r++)
    for (const [name, h] of backends) samples.get(name)?.push(await round(name, h, 'bench'));
} finally {
  for (const [, h] of backends) await h.close();
  chromedriver.stop();
  await grid.stop();
}

const per = (name: string) =>
  BATCH.map((_, i) => median((samples.get(name) ?? []).map((round) => round[i])));
const pw = per('playwright');
const cd = per('chromedriver');
const gr = per('grid');
const fmt = (n: number) => n.toFixed(0).padStart(7);
const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}×`.padStart(7);
console.log(`median of ${ROUNDS} rounds, ms per op`);
console.log('op'.padEnd(12), 'playwright', 'chromedriver', '   grid', ' cd/pw', ' grid/pw');
BATCH.forEach(([op], i) =>
  console.log(
    op.padEnd(12),
    fmt(pw[i]).padStart(10),
    fmt(cd[i]).padStart(12),
    fmt(gr[i]),
    ratio(cd[i], pw[i]),
    ratio(gr[i], pw[i]),
  ),
);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
console.log(
  'batch total'.padEnd(12),
  fmt(sum(pw)).padStart(10),
  fmt(sum(cd)).padStart(12),
  fmt(sum(gr)),
  ratio(sum(cd), sum(pw)),
  ratio(sum(gr), sum(pw)),
);
