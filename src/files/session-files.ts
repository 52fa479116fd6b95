import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Evidence } from '../core/result.js';

/** Saves bytes into a session's files directory and describes the entry. */
export async function saveSessionFile(
  dir: string,
  name: string,
  bytes: Buffer,
  kind: Evidence['kind'],
): Promise<Evidence> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, name);
  await writeFile(path, bytes);
  return { kind, name, path };
}

/** `shot-s1-4.png`: unique per action, readable in a listing. */
export function fileName(prefix: string, actionHint: string, ext: string): string {
  return `${prefix}-${actionHint}-${Date.now().toString(36)}.${ext}`;
}
