import { availableParallelism, loadavg } from 'node:os';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/**
 * Runnable processes per core past which the machine is saturated: a page that does not answer
 * then may be starved of CPU rather than held by its own script.
 */
const SATURATED_LOAD_PER_CORE = 2;
/** The server's own event loop delayed this long means its timers, and its probes, ran late. */
const SATURATED_LOOP_DELAY_MS = 200;
/** The event-loop delay is read over windows this long: the last full one is reported. */
const WINDOW_MS = 10_000;

export interface MachineLoad {
  /** One-minute load average. */
  load: number;
  cores: number;
  /** The server's worst event-loop delay in the last window, when it is being watched. */
  loopDelayMs?: number;
}

let loop: IntervalHistogram | undefined;
let lastWindowMaxMs = 0;

/** Starts watching the server's event-loop delay (once per process; a server calls it at start). */
export function watchEventLoop(): void {
  if (loop) return;
  loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  setInterval(() => {
    lastWindowMaxMs = loop!.max / 1e6;
    loop!.reset();
  }, WINDOW_MS).unref();
}

export function machineLoad(): MachineLoad {
  const load: MachineLoad = { load: loadavg()[0]!, cores: availableParallelism() };
  if (loop) load.loopDelayMs = Math.round(Math.max(lastWindowMaxMs, loop.max / 1e6));
  return load;
}

/** Says how the machine is saturated, or undefined when it is not. */
export function saturation(m: MachineLoad): string | undefined {
  const loaded = m.load / m.cores >= SATURATED_LOAD_PER_CORE;
  const late = (m.loopDelayMs ?? 0) >= SATURATED_LOOP_DELAY_MS;
  if (!loaded && !late) return undefined;
  const parts = [`load ${m.load.toFixed(1)} on ${m.cores} cores`];
  if (m.loopDelayMs !== undefined)
    parts.push(`the server's event loop delayed up to ${m.loopDelayMs} ms`);
  return `the machine is saturated (${parts.join(', ')})`;
}
