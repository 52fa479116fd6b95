// How many page round trips (BrowserTab.evaluate) one fill and one click make, by page-script
// function: run in process with the Playwright backend and MCP's approval policy, the tab's
// evaluate counted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { PlaywrightTab } from '../../src/drivers/playwright/playwright-tab.js';
import { runOp } from '../../src/ops/run-op.js';
import { createSwiftBrowse } from '../../src/server.js';

export interface RoundTrips {
  /** evaluate calls per op, total and by page-script function ("other": not a page-script call). */
  [op: string]: { total: number; by: Record<string, number> };
}

const CALL = /globalThis\.__swiftbrowse_\w+\.(\w+)\(/;

/** Counts the evaluate calls of each op in `ops` on `url` (each run once after a warm-up run). */
export async function countRoundTrips(
  url: string,
  ops: { name: string; op: string; args: Record<string, unknown> }[],
): Promise<RoundTrips> {
  const dataDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-roundtrips-'));
  const config = loadConfig({}, { port: 0, dataDir });
  const app = await createSwiftBrowse(config, pino({ level: 'silent' }));
  const counts: string[] = [];
  const original = PlaywrightTab.prototype.evaluate;
  PlaywrightTab.prototype.evaluate = function (this: PlaywrightTab, frame, expression) {
    counts.push(CALL.exec(expression)?.[1] ?? 'other');
    return original.call(this, frame, expression);
  };
  try {
    const session = await app.runtime.sessions.get('roundtrips');
    const run = (op: string, args: unknown) =>
      runOp(app.runtime, { op, args, session, surface: 'mcp', approval: config.mcpApproval });
    await run('goto', { url });
    const out: RoundTrips = {};
    for (const { name, op, args } of ops) {
      await run(op, args);
      counts.length = 0;
      const result = await run(op, args);
      if (!result.ok) throw new Error(`${name}: ${result.error?.message}`);
      const by: Record<string, number> = {};
      for (const fn of counts) by[fn] = (by[fn] ?? 0) + 1;
      out[name] = { total: counts.length, by };
    }
    return out;
  } finally {
    PlaywrightTab.prototype.evaluate = original;
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function renderRoundTrips(trips: RoundTrips): string {
  const parts = Object.entries(trips).map(
    ([name, t]) =>
      `${name} ${t.total} (${Object.entries(t.by)
        .map(([fn, n]) => `${fn}${n > 1 ? ` ×${n}` : ''}`)
        .join(', ')})`,
  );
  return `Page round trips per op (tab.evaluate calls): ${parts.join('; ')}`;
}
