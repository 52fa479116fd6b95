// Runs a task's intents through one agent and sums what it cost.
import type { Agent, Call } from './agents/agent.js';
import { isRead, type Task } from './tasks.js';

export interface TaskRun {
  task: string;
  wallMs: number;
  calls: Call[];
  /** Read intents the agent could answer from what it had already been sent. */
  readsAnswered: number;
  /** Needles the last action's answer did not hold, with the start of that answer. */
  readsNeeded: { needle: string; after: string }[];
  /** Needles the agent never saw: it would not know what happened. */
  missed: string[];
  error?: string;
}

export async function runTask(agent: Agent, task: Task, base: string): Promise<TaskRun> {
  const first = agent.calls.length;
  const t0 = performance.now();
  const run: TaskRun = {
    task: task.name,
    wallMs: 0,
    calls: [],
    readsAnswered: 0,
    readsNeeded: [],
    missed: [],
  };
  // What the agent has been sent since its last action: what it knows about the page now.
  let seen = '';
  try {
    for (const intent of task.intents) {
      if (!isRead(intent)) {
        const before = agent.calls.length;
        seen = await agent.act(intent, base);
        const failed = agent.calls.slice(before).find((c) => c.kind === 'act' && !c.ok);
        if (failed) throw new Error(`${failed.tool} failed: ${seen.slice(0, 400)}`);
        continue;
      }
      const { needle } = intent;
      if (agent.readFor) {
        seen += await agent.readFor(needle);
      } else if (seen.includes(needle)) {
        run.readsAnswered++;
        continue;
      } else {
        run.readsNeeded.push({ needle, after: seen.slice(0, 600) });
        seen += await agent.read();
        if (!seen.includes(needle)) {
          // Not rendered yet: an agent waits for it rather than reading again and again.
          seen += await agent.waitFor(needle);
          if (agent.calls[agent.calls.length - 1]?.ok) continue;
        }
      }
      if (!seen.includes(needle)) run.missed.push(needle);
    }
  } catch (e) {
    // fetch failed says nothing by itself: its cause names the socket error.
    const cause = e instanceof Error && e.cause instanceof Error ? ` (${e.cause.message})` : '';
    run.error = e instanceof Error ? `${e.message}${cause}` : String(e);
  }
  run.wallMs = performance.now() - t0;
  run.calls = agent.calls.slice(first);
  return run;
}
