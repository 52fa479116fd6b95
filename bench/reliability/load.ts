// The load run: 16 sessions at once through a mixed script, then a sustained mixed run; failures,
// p50/p95 per op, the server's memory before, after and after idle, browsers left after close,
// and an MCP initialize flood against the server's memory.
import { samplePeak } from '../proc.js';
import {
  brief,
  op,
  percentile,
  resultOf,
  rng,
  send,
  ServerChild,
  sleep,
  type Checks,
} from './common.js';
import { mcpInitialize } from '../../test/helpers/mcp-initialize.js';
import type { Hostile } from './hostile.js';

export interface LoadFigures {
  sessions: number;
  scriptOps: number;
  scriptFailed: number;
  sustainedSeconds: number;
  sustainedOps: number;
  sustainedFailed: number;
  perOp: Record<string, { n: number; failed: number; p50Ms: number; p95Ms: number }>;
  serverRssMb: { before: number; after: number; afterIdle: number };
  treePeakRssMb: number;
  orphanBrowsers: number;
  mcpFlood: { requests: number; refused: number; rssBeforeMb: number; rssAfterMb: number };
}

type Step = [string, Record<string, unknown>];

export async function runLoad(options: {
  hostile: Hostile;
  checks: Checks;
  seed: number;
  sessions: number;
  seconds: number;
  rounds: number;
  mcpInits: number;
  env: Record<string, string>;
  log: (line: string) => void;
}): Promise<LoadFigures> {
  const { hostile, checks, log } = options;
  const form = `${hostile.base}/rel/form.html`;
  const script: Step[] = [
    ['goto', { url: form }],
    ['snapshot', {}],
    ['fill', { target: { label: 'Name' }, value: 'Ada' }],
    ['click', { target: { role: 'button', name: 'Save' }, expect: { text_visible: 'Saved Ada' } }],
    ['find', { target: { role: 'link' } }],
  ];
  // The sustained run's scripts, one picked at a time; each starts on its own page.
  const mix: Step[][] = [
    script,
    [
      ['goto', { url: form }],
      ['fill', { target: { label: 'Topic' }, value: 'Support' }],
      ['extract', { target: { css: '#out' } }],
      ['status', {}],
    ],
    [
      ['goto', { url: `${hostile.base}/rel/counter.html` }],
      ['click', { target: { role: 'button', name: 'Count' } }],
      ['screenshot', {}],
    ],
  ];
  const timings = new Map<string, number[]>();
  const failedBy = new Map<string, number>();
  const failures: string[] = [];
  const run = async (s: string, [name, args]: Step) => {
    const r = await op(server.url, name, args, s, 60_000);
    const list = timings.get(name) ?? [];
    list.push(r.ms);
    timings.set(name, list);
    if (resultOf(r)?.ok !== true) {
      failedBy.set(name, (failedBy.get(name) ?? 0) + 1);
      if (failures.length < 5) failures.push(`${s} ${name}: ${brief(r)}`);
      return false;
    }
    return true;
  };

  // The server's own default timeouts: 16 browsers starting at once is the load being measured.
  const server = await ServerChild.start({
    env: { DEFAULT_TIMEOUT_MS: '10000', NAVIGATION_TIMEOUT_MS: '30000', ...options.env },
  });
  try {
    await sleep(1000);
    const before = server.memory().serverRssMb;
    const names = Array.from({ length: options.sessions }, (_, i) => `ld${i}`);
    const sampler = samplePeak(() => [{ pid: server.pid, includeRoot: true }]);
    log(`  ${options.sessions} sessions × ${options.rounds} rounds of the mixed script`);
    const scripted = await Promise.all(
      names.map(async (s) => {
        let failed = 0;
        for (let r = 0; r < options.rounds; r++)
          for (const step of script) if (!(await run(s, step))) failed++;
        return failed;
      }),
    );
    const scriptFailed = scripted.reduce((a, b) => a + b, 0);
    const scriptOps = options.sessions * options.rounds * script.length;
    checks.add(
      'load',
      `${options.sessions} sessions at once through goto, snapshot, fill, click, find: no failures`,
      scriptFailed === 0,
      `${scriptOps} ops, ${scriptFailed} failed${failures.length ? `: ${failures.join(' | ')}` : ''}`,
    );

    log(`  sustained mixed run for ${options.seconds} s`);
    failures.length = 0;
    const random = rng(options.seed);
    const end = Date.now() + options.seconds * 1000;
    let sustainedOps = 0;
    const sustained = await Promise.all(
      names.map(async (s) => {
        let failed = 0;
        while (Date.now() < end) {
          for (const step of mix[Math.floor(random() * mix.length)]) {
            sustainedOps++;
            if (!(await run(s, step))) failed++;
          }
        }
        return failed;
      }),
    );
    const sustainedFailed = sustained.reduce((a, b) => a + b, 0);
    const peak = sampler.stop();
    const after = server.memory().serverRssMb;
    checks.add(
      'load',
      `sustained mixed run (${options.sessions} sessions, ${options.seconds} s): no failures`,
      sustainedFailed === 0,
      `${sustainedOps} ops, ${sustainedFailed} failed${failures.length ? `: ${failures.join(' | ')}` : ''}`,
    );

    await Promise.all(names.map((s) => op(server.url, 'close', {}, s, 30_000)));
    // The local backend keeps one shared browser (a context per session): what must go with
    // the sessions is every renderer, and no second browser may be left beside the shared one.
    const leftover = () => {
      const all = server.chromium();
      const pids = new Set(all.map((p) => p.pid));
      return {
        types: all.map((p) => /--type=([\w-]+)/.exec(p.cmdline)?.[1] ?? 'browser'),
        renderers: all.filter((p) => /--type=renderer/.test(p.cmdline)).length,
        browsers: all.filter((p) => !pids.has(p.ppid)).length,
      };
    };
    let left = leftover();
    for (let i = 0; i < 50 && (left.renderers > 0 || left.browsers > 1); i++) {
      await sleep(200);
      left = leftover();
    }
    const orphans = left.renderers + Math.max(0, left.browsers - 1);
    checks.add(
      'load',
      'no renderer and no second browser is left after every session closes',
      orphans === 0,
      `10 s after close: ${left.renderers} renderers, ${left.browsers} browser(s); Chromium processes under the server: ${left.types.join(', ') || 'none'}`,
    );
    await sleep(options.seconds >= 60 ? 10_000 : 3000);
    const afterIdle = server.memory().serverRssMb;
    checks.add(
      'load',
      'the server gives memory back after idle (RSS within 150 MB of before)',
      afterIdle <= before + 150,
      `server RSS ${before} MB before, ${after} MB after load, ${afterIdle} MB after idle`,
    );

    log(`  ${options.mcpInits} MCP initialize requests`);
    const rssBeforeMb = server.memory().serverRssMb;
    let refused = 0;
    let lastRefusal = '';
    const init = mcpInitialize('flood');
    for (let i = 0; i < options.mcpInits; i++) {
      const r = await send(server.url, '/mcp?session=flood', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: init,
        timeoutMs: 10_000,
      });
      if (r.status !== 200) {
        refused++;
        lastRefusal = `${r.status} ${r.text.slice(0, 200)}`;
      }
    }
    await sleep(2000);
    const rssAfterMb = server.memory().serverRssMb;
    const perThousand = ((rssAfterMb - rssBeforeMb) / options.mcpInits) * 1000;
    checks.add(
      'load',
      'MCP sessions are capped (a clear refusal) or cost under 10 MB per 1000 initializes',
      (refused > 0 && /session|limit|MCP/i.test(lastRefusal)) || perThousand < 10,
      `${options.mcpInits} initializes: ${refused} refused${lastRefusal ? ` (${lastRefusal})` : ''}; server RSS ${rssBeforeMb} → ${rssAfterMb} MB (${perThousand.toFixed(1)} MB per 1000)`,
    );
    checks.add('load', 'the server is healthy after the load run', await server.healthy(), '');

    const perOp: LoadFigures['perOp'] = {};
    for (const [name, list] of [...timings].sort()) {
      perOp[name] = {
        n: list.length,
        failed: failedBy.get(name) ?? 0,
        p50Ms: Math.round(percentile(list, 50)),
        p95Ms: Math.round(percentile(list, 95)),
      };
    }
    return {
      sessions: options.sessions,
      scriptOps,
      scriptFailed,
      sustainedSeconds: options.seconds,
      sustainedOps,
      sustainedFailed,
      perOp,
      serverRssMb: { before, after, afterIdle },
      treePeakRssMb: Math.round(peak.rssMb),
      orphanBrowsers: orphans,
      mcpFlood: { requests: options.mcpInits, refused, rssBeforeMb, rssAfterMb },
    };
  } finally {
    await server.stop();
  }
}
