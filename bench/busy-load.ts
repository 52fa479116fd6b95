import { spawn } from 'node:child_process';

/**
 * Node workers each busy half the time (50 ms on, 50 ms off), in a process of their own, so a run
 * can be checked beside a bounded load: six add about three cores of demand. Returns the stop.
 * The test runner's `--under-load` and the bench's contention section both use it.
 */
export function startBusyLoad(workers: number): () => void {
  const spin = `for (;;) { const end = Date.now() + 50; while (Date.now() < end); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50); }`;
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const { Worker } = require('node:worker_threads');
       for (let i = 0; i < ${workers}; i++) new Worker(${JSON.stringify(spin)}, { eval: true });`,
    ],
    { stdio: 'ignore' },
  );
  return () => void child.kill('SIGKILL');
}
