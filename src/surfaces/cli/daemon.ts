import { spawn } from 'node:child_process';
import { openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../config.js';
import { checkDataDir } from '../../files/data-dir.js';
import { isHealthy } from './client.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function files(config: Config) {
  return { log: join(config.dataDir, 'server.log'), pid: join(config.dataDir, 'server.pid') };
}

function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Starts `serve` detached from this terminal and its pipes (a harness that launched `up` must
 * not hang on them), logging to DATA_DIR/server.log; returns once /health answers.
 */
export async function up(
  config: Config,
  server: string,
  argv: string[],
  timeoutMs = 30_000,
): Promise<{ started: boolean; pid?: number; message: string }> {
  // A loaded machine can take seconds to answer: a short wait would start a second server whose
  // pid then replaces the running one's.
  if (await isHealthy(server, 10_000))
    return { started: false, message: `SwiftBrowse is already running at ${server}.` };
  const { log, pid: pidFile } = files(config);
  // Its log and pid file go there: a DATA_DIR it cannot write is said before anything starts.
  checkDataDir(config);
  const out = openSync(log, 'a');
  const main = fileURLToPath(new URL('./main.js', import.meta.url));
  const child = spawn(process.execPath, [main, 'serve', ...argv], {
    detached: true,
    stdio: ['ignore', out, out],
    env: process.env,
  });
  child.unref();
  writeFileSync(pidFile, String(child.pid));
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // A child that exited (its port taken) is not the server answering.
    if (exited !== null) break;
    if (await isHealthy(server))
      return {
        started: true,
        pid: child.pid,
        message: `SwiftBrowse is running at ${server} (pid ${child.pid}, log ${log}).`,
      };
    await sleep(200);
  }
  throw new Error(
    `SwiftBrowse did not come up at ${server}${exited !== null ? ` (it exited with ${exited})` : ` within ${timeoutMs / 1000} s`}. Last lines of ${log}:\n${tail(log)}`,
  );
}

export async function down(config: Config, server: string): Promise<string> {
  const { pid: pidFile } = files(config);
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return (await isHealthy(server))
      ? `A server answers at ${server}, but it was not started by up (no ${pidFile}); stop it where it runs.`
      : 'SwiftBrowse is not running.';
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    rmSync(pidFile, { force: true });
    return 'SwiftBrowse was not running (stale pid file removed).';
  }
  for (let i = 0; i < 50; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      rmSync(pidFile, { force: true });
      return `SwiftBrowse (pid ${pid}) stopped.`;
    }
    await sleep(100);
  }
  process.kill(pid, 'SIGKILL');
  rmSync(pidFile, { force: true });
  return `SwiftBrowse (pid ${pid}) did not stop in 5 s and was killed.`;
}
