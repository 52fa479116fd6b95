// Server surface: the bench runs and prints its sections.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PlaywrightMcpAgent } from '../../bench/agents/playwright-mcp.js';
import { SwiftBrowseAgent } from '../../bench/agents/swiftbrowse.js';
import { serveApps } from '../../bench/apps.js';
import { render } from '../../bench/report.js';
import { runAgent, type AgentFigures } from '../../bench/sections/tasks.js';
import { TASKS } from '../../bench/tasks.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';

let server: FixtureServer;
const work = mkdtempSync(join(tmpdir(), 'swiftbrowse-bench-smoke-'));

before(async () => {
  server = await startFixtureServer();
  serveApps(server);
});
after(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

test('the bench harness runs the hover-menu task through both MCP servers and prints its row', async () => {
  const task = TASKS.filter((t) => t.name === 'hover-menu');
  const figures: AgentFigures[] = [];
  for (const agent of [
    new SwiftBrowseAgent({ tools: 'compact', env: { DATA_DIR: join(work, 'sb') } }),
    new PlaywrightMcpAgent(join(work, 'pw')),
  ])
    figures.push(await runAgent(agent, task, server.PREFIX, 1, () => {}));
  for (const f of figures) {
    const [row] = f.tasks;
    assert.deepEqual(row.errors, [], f.agent);
    assert.deepEqual(row.missed, [], `${f.agent} saw "Analytics overview"`);
    assert.ok(f.memory.processes > 0, `${f.agent} has a browser to measure`);
  }
  const [swiftbrowse, playwright] = figures;
  assert.ok(swiftbrowse.toolsChars > 0 && playwright.toolsChars > 0);
  assert.ok(playwright.tasks[0].received > 0, 'the snapshot files Playwright MCP links are read');
  const table = render({ meta: { reps: 1 }, agents: figures });
  assert.match(table, /^hover-menu\s/m);
  assert.match(table, /compact\/PW/);
});
