import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * A real redis-server on a free loopback port (or `port`: a restart where clients expect it),
 * without persistence, in a temp directory.
 */
export async function startRedis(port?: number): Promise<RedisServer> {
  port ??= await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'swiftbrowse-redis-'));
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
    child.once('error', (e) =>
      reject(new Error(`redis-server could not run (${e.message}); apt-get install redis-server`)),
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/ready to accept connections/i.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.stdout!.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
