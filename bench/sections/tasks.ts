// The tasks through every agent, one agent at a time, each in its own process tree.
import type { Agent, Call, Started } from '../agents/agent.js';
import { samplePeak, type Memory } from '../proc.js';
import { runTask, type TaskRun } from '../run-tasks.js';
import { median, p95, sum } from '../stats.js';
import type { Task } from '../tasks.js';

export interface TaskFigures {
  task: string;
  /** Medians over the repetitions. */
  received: number;
  sent: number;
  wallMs: number;
  opMedianMs: number;
  calls: number;
  /** Explicit reads (snapshot / innerText) and waits the agent needed. */
  reads: number;
  waits: number;
  readsAnswered: number;
  missed: string[];
  errors: string[];
  /** Per repetition: the needles that took an explicit read, and what the action had answered. */
  readsNeeded: { needle: string; after: string }[][];
}

export interface AgentFigures {
  agent: string;
  toolsChars: number;
  start: Started;
  memory: Memory;
  tasks: TaskFigures[];
  total: { received: number; sent: number; wallMs: number; calls: number; reads: number };
  opMs: { median: number; p95: number; n: number };
}

function figuresOf(runs: TaskRun[]): TaskFigures {
  const per = (f: (r: TaskRun) => number) => median(runs.map(f));
  const count = (r: TaskRun, kind: Call['kind']) => r.calls.filter((c) => c.kind === kind).length;
  return {
    task: runs[0].task,
    received: per((r) => sum(r.calls.map((c) => c.received))),
    sent: per((r) => sum(r.calls.map((c) => c.sent))),
    wallMs: per((r) => r.wallMs),
    opMedianMs: median(runs.flatMap((r) => r.calls.map((c) => c.ms))),
    calls: per((r) => r.calls.length),
    reads: per((r) => count(r, 'read')),
    waits: per((r) => count(r, 'wait')),
    readsAnswered: per((r) => r.readsAnswered),
    missed: [...new Set(runs.flatMap((r) => r.missed))],
    errors: [...new Set(runs.flatMap((r) => (r.error ? [r.error] : [])))],
    readsNeeded: runs.map((r) => r.readsNeeded),
  };
}

export async function runAgent(
  agent: Agent,
  tasks: Task[],
  base: string,
  reps: number,
  log: (line: string) => void,
  /** Keep one session for every task (SwiftBrowse then withholds text shown in earlier tasks). */
  sameSession = false,
): Promise<AgentFigures> {
  const sampler = samplePeak(() => agent.roots());
  const start = await agent.start(`${base}/blank.html`);
  const runs = new Map<string, TaskRun[]>();
  let first = true;
  for (let rep = 0; rep < reps; rep++)
    for (const task of tasks) {
      if (!first && sameSession !== true) await agent.fresh?.(`${base}/blank.html`);
      first = false;
      const run = await runTask(agent, task, base);
      runs.set(task.name, [...(runs.get(task.name) ?? []), run]);
      const problem = run.error ?? (run.missed.length ? `missed ${run.missed.join(', ')}` : '');
      log(`  ${agent.name} ${task.name} #${rep + 1}: ${Math.round(run.wallMs)} ms ${problem}`);
    }
  const memory = sampler.stop();
  await agent.stop();
  const figures = tasks.map((t) => figuresOf(runs.get(t.name) ?? []));
  const ms = [...runs.values()].flat().flatMap((r) => r.calls.map((c) => c.ms));
  return {
    agent: agent.name,
    toolsChars: agent.toolsChars,
    start,
    memory,
    tasks: figures,
    total: {
      received: sum(figures.map((f) => f.received)),
      sent: sum(figures.map((f) => f.sent)),
      wallMs: sum(figures.map((f) => f.wallMs)),
      calls: sum(figures.map((f) => f.calls)),
      reads: sum(figures.map((f) => f.reads)),
    },
    opMs: { median: median(ms), p95: p95(ms), n: ms.length },
  };
}
