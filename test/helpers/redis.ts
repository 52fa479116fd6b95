import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface RedisOptions {
  /** A port to listen on (a restart on the same address); a free one by default. */
  port?: number;
  /** Makes clients authenticate (requirepass); the URL then carries it. */
  password?: string;
}

/** A real redis-server on a free loopback port, without persistence, in a temp directory. */
export async function startRedis(options: RedisOptions = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
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
      ...(options.password ? ['--requirepass', options.password] : []),
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
    url: `redis://${options.password ? `:${options.password}@` : ''}127.0.0.1:${port}`,
    port,
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
