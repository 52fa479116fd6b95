// The printed table: what an agent pays per task with each tool, and the ratios.
import type { ContentionFigures } from './sections/contention.js';
import type { FlowFigures } from './sections/flow.js';
import { OVERHEAD_OPS, type OverheadFigures, type WalkFigures } from './sections/overhead.js';
import { renderPhases } from './sections/phases.js';
import { renderRoundTrips } from './sections/round-trips.js';
import type { HttpStartup, ScaleFigures } from './sections/scale.js';
import type { AgentFigures } from './sections/tasks.js';
import { round, tokens } from './stats.js';

export interface Results {
  meta: Record<string, string | number>;
  agents: AgentFigures[];
  httpStartup?: HttpStartup;
  scale?: ScaleFigures[];
  contention?: ContentionFigures;
  overhead?: OverheadFigures;
  walk?: WalkFigures[];
  flow?: FlowFigures;
}

const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '–');

function table(head: string[], rows: (string | number)[][]): string {
  const cells = [head, ...rows].map((r) => r.map(String));
  const widths = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [
    line(cells[0]),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.slice(1).map(line),
  ].join('\n');
}

const SHORT: Record<string, string> = {
  'swiftbrowse-full': 'SB full',
  'swiftbrowse-compact': 'SB compact',
  'playwright-mcp': 'PW MCP',
  'raw-playwright': 'raw',
};

export function render(r: Results): string {
  const out: string[] = [];
  const by = new Map(r.agents.map((a) => [a.agent, a]));
  const full = by.get('swiftbrowse-full');
  const compact = by.get('swiftbrowse-compact');
  const pw = by.get('playwright-mcp');
  const raw = by.get('raw-playwright');
  const names = r.agents.map((a) => SHORT[a.agent] ?? a.agent);
  const taskNames = r.agents[0]?.tasks.map((t) => t.task) ?? [];
  const cell = (a: AgentFigures | undefined, task: string) => a?.tasks.find((t) => t.task === task);
  const flag = (a: AgentFigures | undefined, task: string) => {
    const t = cell(a, task);
    return t?.errors.length ? '!' : t?.missed.length ? '?' : '';
  };

  // --tasks none runs only the sections (flow, overhead, scale).
  if (r.agents.length) {
    out.push(
      `Tokens an agent receives per task (estimated: characters / 4; median of ${r.meta.reps}; reads = explicit snapshot/innerText calls)`,
    );
    const tokenRows: (string | number)[][] = taskNames.map((task) => [
      task,
      ...r.agents.map((a) => `${tokens(cell(a, task)?.received ?? 0)}${flag(a, task)}`),
      ratio(cell(compact, task)?.received ?? 0, cell(pw, task)?.received ?? 0),
      ratio(cell(full, task)?.received ?? 0, cell(pw, task)?.received ?? 0),
      ratio(cell(compact, task)?.received ?? 0, cell(raw, task)?.received ?? 0),
      r.agents.map((a) => cell(a, task)?.reads ?? 0).join('/'),
    ]);
    tokenRows.push([
      'total',
      ...r.agents.map((a) => tokens(a.total.received)),
      ratio(compact?.total.received ?? 0, pw?.total.received ?? 0),
      ratio(full?.total.received ?? 0, pw?.total.received ?? 0),
      ratio(compact?.total.received ?? 0, raw?.total.received ?? 0),
      r.agents.map((a) => a.total.reads).join('/'),
    ]);
    out.push(
      table(
        ['task', ...names, 'compact/PW', 'full/PW', 'compact/raw', `reads ${names.join('/')}`],
        tokenRows,
      ),
    );
    out.push('(! = the task failed, ? = a needle the agent never saw: see the JSON)');
    out.push(
      `Tokens the agent writes (call arguments), total: ${r.agents.map((a) => `${SHORT[a.agent]} ${tokens(a.total.sent)}`).join(', ')}`,
    );
    out.push('');
    const listed = r.agents.filter((a) => a.toolsChars > 0);
    out.push(
      `Tools list (JSON of tools/list, re-sent every turn): ${listed.map((a) => `${SHORT[a.agent]} ${a.toolsChars} chars (~${tokens(a.toolsChars)} tokens)`).join(', ')}; compact/PW ${ratio(compact?.toolsChars ?? 0, pw?.toolsChars ?? 0)}, full/PW ${ratio(full?.toolsChars ?? 0, pw?.toolsChars ?? 0)}`,
    );
    out.push('');

    out.push(`Wall time per task, ms (median of ${r.meta.reps}); median op ms in brackets`);
    const timeRows: (string | number)[][] = taskNames.map((task) => [
      task,
      ...r.agents.map(
        (a) => `${round(cell(a, task)?.wallMs ?? 0)} (${round(cell(a, task)?.opMedianMs ?? 0)})`,
      ),
      ratio(cell(compact, task)?.wallMs ?? 0, cell(pw, task)?.wallMs ?? 0),
      ratio(cell(compact, task)?.wallMs ?? 0, cell(raw, task)?.wallMs ?? 0),
    ]);
    timeRows.push([
      'total',
      ...r.agents.map((a) => round(a.total.wallMs)),
      ratio(compact?.total.wallMs ?? 0, pw?.total.wallMs ?? 0),
      ratio(compact?.total.wallMs ?? 0, raw?.total.wallMs ?? 0),
    ]);
    out.push(table(['task', ...names, 'compact/PW', 'compact/raw'], timeRows));
    out.push('');
    out.push(
      table(
        [
          'agent',
          'op median ms',
          'op p95 ms',
          'ops',
          'peak RSS MB',
          'peak PSS MB',
          'procs',
          'connect ms',
          'first navigate ms',
        ],
        r.agents.map((a) => [
          SHORT[a.agent] ?? a.agent,
          round(a.opMs.median),
          round(a.opMs.p95),
          a.opMs.n,
          round(a.memory.rssMb),
          round(a.memory.pssMb),
          a.memory.processes,
          round(a.start.connectMs),
          round(a.start.firstNavigateMs),
        ]),
      ),
    );
    out.push(
      '(RSS sums every process of the tree and counts shared pages many times; PSS splits them.)',
    );
  }

  if (r.httpStartup && pw) {
    const s = r.httpStartup;
    out.push('');
    out.push(
      `Start: swiftbrowse serve start→healthy ${s.startToHealthyMs} ms (idle PSS ${s.idleServerPssMb} MB), first browser ready (MCP connect + first goto) ${s.firstBrowserReadyMs} ms; ` +
        `Playwright MCP connect + first navigate ${round(pw.start.connectMs + pw.start.firstNavigateMs)} ms; ratios ${ratio(s.startToHealthyMs, pw.start.connectMs)} (healthy/connect), ${ratio(s.firstBrowserReadyMs, pw.start.connectMs + pw.start.firstNavigateMs)} (first browser)` +
        (compact
          ? `; SwiftBrowse stdio connect + first goto ${round(compact.start.connectMs + compact.start.firstNavigateMs)} ms`
          : ''),
    );
  }
  if (r.overhead) {
    const o = r.overhead;
    out.push('');
    const label: Record<string, string> = {
      raw: 'raw playwright-core',
      noDiff: 'SwiftBrowse diff:false',
      noDiffNoFrames: 'diff:false, LOG_FRAMES=false',
      withDiff: 'SwiftBrowse, default diff',
      baseline: `baseline diff:false (${o.baselineMain ?? ''})`,
    };
    out.push(
      `Per op against raw playwright-core doing the same input (fill = pressSequentially), interleaved, ${o.iterations} rounds: wall ms (median, MCP stdio round trip) and CPU ms (mean; server + browser, raw: playwright-core's process + browser), ratio to raw in brackets`,
    );
    out.push(
      table(
        [
          'way',
          ...OVERHEAD_OPS.map((op) => `${op} ms`),
          'all',
          ...OVERHEAD_OPS.map((op) => `${op} cpu`),
          'all cpu',
        ],
        Object.entries(o.ways).map(([way, f]) => {
          const r = o.ratios[way];
          const cell = (v: number, x?: number) => (x === undefined ? `${v}` : `${v} (${x}×)`);
          return [
            label[way] ?? way,
            ...OVERHEAD_OPS.map((op) => cell(f.ms[op], r?.ms[op])),
            r ? `${r.ms.all}×` : '',
            ...OVERHEAD_OPS.map((op) => cell(f.cpuMs[op], r?.cpu[op])),
            r ? `${r.cpu.all}×` : '',
          ];
        }),
      ),
    );
    out.push(
      `The diff's own share of an op's wall time, the four ops together: ${Math.round(o.diffShare * 100)}%`,
    );
    if (o.phases) {
      out.push(
        "Where the time goes (SwiftBrowse, median ms; outside = round trip − the op's own duration: MCP stdio both ways and the wait before the op starts):",
      );
      out.push(...renderPhases(o.phases).map((l) => `  ${l}`));
    }
    if (o.roundTrips) out.push(renderRoundTrips(o.roundTrips));
  }
  if (r.walk) {
    out.push('');
    out.push(
      table(
        [
          'page',
          'elements',
          'walk ms (in page)',
          'snapshot op ms',
          'ariaSnapshot ms',
          'snapshot chars',
          'aria chars',
        ],
        r.walk.map((w) => [
          w.page,
          w.elements,
          w.walkMs,
          w.snapshotOpMs,
          w.ariaSnapshotMs,
          w.trackChars,
          w.ariaChars,
        ]),
      ),
    );
  }
  if (r.scale) {
    out.push('');
    out.push(
      table(
        [
          'scale (same task at once)',
          'sessions',
          'wall ms',
          'tasks/min',
          'peak RSS MB',
          'peak PSS MB',
          'PSS/session MB',
          'failed',
        ],
        r.scale.map((s) => [
          s.tool,
          s.sessions,
          s.wallMs,
          s.tasksPerMinute,
          s.peakRssMb,
          s.peakPssMb,
          s.pssPerSessionMb,
          s.failed,
        ]),
      ),
    );
  }
  if (r.contention) {
    const c = r.contention;
    out.push('');
    out.push(
      `Contention: ${c.sessions} sessions × (goto + ${c.rounds} × (fill + click)) beside ${c.busyWorkers} busy workers, raw then SwiftBrowse, ${c.pairs.length} pair(s)`,
    );
    const withBaseline = c.pairs.some((p) => p.baseline);
    out.push(
      table(
        [
          'pair',
          'raw wall ms',
          'sb wall ms',
          'sb/raw',
          'raw failed',
          'sb failed',
          'sb click p50 / raw',
          'delivered answered failed',
          'renderers left',
          ...(withBaseline ? ['baseline/raw', 'baseline failed', 'baseline delivered failed'] : []),
        ],
        c.pairs.map((p, i) => [
          i + 1,
          p.raw.wallMs,
          p.swiftbrowse.wallMs,
          p.wallRatio,
          p.raw.failed,
          p.swiftbrowse.failed,
          ratio(p.swiftbrowse.clickP50Ms, p.raw.clickP50Ms),
          p.swiftbrowse.deliveredButFailed,
          p.swiftbrowse.renderersLeft ?? '–',
          ...(withBaseline
            ? [
                p.baseline ? ratio(p.baseline.wallMs, p.raw.wallMs) : '–',
                p.baseline?.failed ?? '–',
                p.baseline?.deliveredButFailed ?? '–',
              ]
            : []),
        ]),
      ),
    );
    out.push(
      `all pairs: wall sb/raw ${c.wallRatio}, failed ${c.failed.swiftbrowse} (sb) vs ${c.failed.raw} (raw), delivered clicks answered as failed ${c.deliveredButFailed}`,
    );
  }
  if (r.flow) {
    out.push('');
    const f = r.flow;
    out.push(
      `Flow vs separate calls (${f.steps} steps, SwiftBrowse full set): separate ${f.separate.calls} calls ${f.separate.wallMs} ms, ${tokens(f.separate.received)} tokens received, ${tokens(f.separate.sent)} written; ` +
        `flow_run 1 call (${f.flow.stepsRun} steps run) ${f.flow.wallMs} ms, ${tokens(f.flow.received)} tokens received, ${tokens(f.flow.sent)} written (saving it once: ${tokens(f.flow.saveChars)} tokens); ` +
        `flow/separate: wall ${ratio(f.flow.wallMs, f.separate.wallMs)}, tokens ${ratio(f.flow.received, f.separate.received)}` +
        (f.error ? `; error: ${f.error}` : ''),
    );
  }
  return out.join('\n');
}
