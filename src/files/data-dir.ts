import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type Config } from '../config.js';

/** Folders under DATA_DIR the server writes into while it runs, when they exist already. */
const WRITTEN = ['sessions', 'files', 'flows', 'logs', 'profiles'];

/**
 * Refuses to start on a DATA_DIR the server cannot write (read-only disk, another owner): a
 * write that failed later showed as "ENOENT … signing.key", a lost download or a missing log.
 * DATA_DIR is created if needed, then it and each folder under it that exists take a probe file.
 */
export function checkDataDir(config: Config): void {
  const dirs = [config.dataDir, ...WRITTEN.map((d) => join(config.dataDir, d))];
  for (const [i, dir] of dirs.entries()) {
    if (i > 0 && !existsSync(dir)) continue;
    const probe = join(dir, `.swiftbrowse-write-check-${process.pid}`);
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(probe, '');
      rmSync(probe, { force: true });
    } catch (e) {
      throw new ConfigError(
        `Setting DATA_DIR (${config.dataDir}) is not writable: ${(e as Error).message}. SwiftBrowse keeps its signing key, session files, kept files, flows and logs there: make ${dir} writable by this user, or set DATA_DIR to a directory it can write.`,
      );
    }
  }
}
