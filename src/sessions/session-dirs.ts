import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { checkName } from '../core/names.js';
import { keptFilesDir } from '../files/file-store.js';
import { STDIO_SESSION } from './session-manager.js';

/**
 * The directories a session owns under DATA_DIR: `sessions/<name>` (its browser files) and
 * `files/<name>` (its kept files). Its flow library (`flows/<name>`) and its log (`logs/<name>`)
 * belong to the flow library and the log viewer, and are not the session's data here.
 */
export function sessionDataDirs(dataDir: string, name: string): string[] {
  return [join(dataDir, 'sessions', name), keptFilesDir(dataDir, name)];
}

/** A session name as it may name a directory: a valid session name, or the stdio session's. */
export function checkSessionDirName(name: string): string {
  return name === STDIO_SESSION ? name : checkName('session', name);
}

function isSessionDirName(name: string): boolean {
  try {
    checkSessionDirName(name);
    return true;
  } catch {
    return false;
  }
}

async function subdirs(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

/** Every session name with a directory on disk, by name; folders no session could own are skipped. */
export async function sessionDirNames(dataDir: string): Promise<string[]> {
  const names = new Set([
    ...(await subdirs(join(dataDir, 'sessions'))),
    ...(await subdirs(join(dataDir, 'files'))),
  ]);
  return [...names].filter(isSessionDirName).sort();
}

/** Files and bytes under a directory, counted through its folders; 0 when it is not there. */
async function measure(dir: string): Promise<{ files: number; bytes: number }> {
  const total = { files: 0, bytes: 0 };
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return total;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      const inner = await measure(path);
      total.files += inner.files;
      total.bytes += inner.bytes;
    } else if (e.isFile()) {
      total.files += 1;
      total.bytes += (await stat(path).catch(() => undefined))?.size ?? 0;
    }
  }
  return total;
}

/** Whether the session has any directory on disk. */
export async function hasSessionData(dataDir: string, name: string): Promise<boolean> {
  const found = await Promise.all(
    sessionDataDirs(dataDir, name).map((d) =>
      stat(d).then(
        (s) => s.isDirectory(),
        () => false,
      ),
    ),
  );
  return found.some(Boolean);
}

/** Removes the session's directories; says how many files and bytes went. */
export async function removeSessionData(
  dataDir: string,
  name: string,
): Promise<{ files: number; bytes: number }> {
  const removed = { files: 0, bytes: 0 };
  for (const dir of sessionDataDirs(dataDir, checkSessionDirName(name))) {
    const { files, bytes } = await measure(dir);
    removed.files += files;
    removed.bytes += bytes;
    await rm(dir, { recursive: true, force: true });
  }
  return removed;
}
