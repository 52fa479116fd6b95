// Server surface, also on the Grid: one smoke test per surface, proving each is wired to the
// backend under it (the surfaces' own files run once, on the default backend).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { ActionResult } from '../../src/core/result.js';
import type { BrowserRecord } from '../../src/sessions/browser-record.js';
import { BACKEND, TEST_BROWSER, backendEnv } from '../helpers/backend.js';
import { startHarness, type Harness } from '../helpers/harness.js';

const MAIN = fileURLToPath(new URL('../../src/surfaces/cli/main.js', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'swiftbrowse-smoke-'));
const BACKEND_NAME = BACKEND === 'grid' ? 'grid' : 'playwright';

let h: Harness;
before(async () => {
  // The log's smoke reads a frame.
  h = await startHarness({ logFrames: true });
});
after(async () => {
  await h.closeBrowsers();
  await h.close();
  rmSync(work, { recursive: true, force: true });
});

const page = (name: string) => `${h.server.PREFIX}/${name}`;

/** The environment a spawned SwiftBrowse gets: this arm's backend, its own DATA_DIR. */
function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('SWIFTBROWSE_')) env[k] = v;
  return { ...env, DATA_DIR: join(work, 'data'), ...backendEnv() };
}

function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { ...childEnv(), ...env }, cwd: work, timeout: 120_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

const textOf = (r: CallToolResult) =>
  r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe(`every surface drives the ${BACKEND} backend`, () => {
  test('HTTP: a sign-in with expect, and a batch, answer on the dashboard', async () => {
    await h.op('goto', { url: page('login.html') }, 'http');
    const batch = await h.request('/browser/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-key': 'http' },
      body: JSON.stringify({
        steps: [
          { op: 'fill', args: { target: { label: 'Email' }, value: 'ada@example.com' } },
          { op: 'fill', args: { target: { label: 'Password' }, value: 'pw' } },
          {
            op: 'click',
            args: {
              target: { role: 'button', name: 'Sign in' },
              expect: { url_contains: 'dashboard' },
            },
          },
        ],
      }),
    });
    const result = (await batch.json()) as ActionResult;
    assert.equal(batch.status, 200, JSON.stringify(result));
    assert.equal((result.data?.results as ActionResult[]).length, 3);
    assert.match(result.page!.url, /dashboard/);
  });

  test('admin: the session record names the backend that ran it', async () => {
    const r = await h.request('/admin/sessions/http');
    const body = (await r.json()) as { browser_record?: BrowserRecord };
    assert.equal(r.status, 200);
    assert.equal(body.browser_record?.ran?.backend, BACKEND_NAME);
  });

  test('files and logs: a screenshot has a signed link that serves it; the log framed the op', async () => {
    const shot = await h.op('screenshot', {}, 'http');
    const link = shot.body.evidence?.[0]?.url;
    assert.ok(link, JSON.stringify(shot.body));
    const image = await h.request(link);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/png');
    await h.app.runtime.logs!.flush();
    const log = (await (await h.request('/logs/http?op=goto')).json()) as {
      events: { op: string; frame?: string }[];
    };
    assert.equal(log.events[0]?.op, 'goto');
    assert.ok(log.events[0].frame, 'the goto was framed');
  });

  test('flows: one saved over HTTP runs in one call', async () => {
    const flow = {
      name: 'smoke',
      steps: [
        { op: 'goto', args: { url: page('links.html') } },
        { op: 'assert', args: { title_contains: 'Links', message: 'The links page loads.' } },
      ],
    };
    const put = await h.request('/flows/smoke', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-session-key': 'flows' },
      body: JSON.stringify(flow),
    });
    assert.equal(put.status, 201, await put.text());
    const run = await h.op('flow_run', { name: 'smoke' }, 'flows');
    assert.equal(run.body.ok, true, JSON.stringify(run.body));
  });

  test('MCP over HTTP: a tool call reads the page', async () => {
    const client = new Client({ name: 'smoke', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp?session=mcp', h.url)));
    try {
      const r = (await client.callTool({
        name: 'browser_run',
        arguments: { op: 'goto', args: { url: page('login.html') } },
      })) as CallToolResult;
      assert.equal(r.isError ?? false, false, textOf(r));
      assert.match(textOf(r), /Sign in/);
    } finally {
      await client.close();
    }
  });

  test('MCP over stdio, in its own process on this backend', async () => {
    const client = new Client({ name: 'smoke', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [MAIN, 'mcp'], env: childEnv() }),
    );
    try {
      const r = (await client.callTool({
        name: 'browser_run',
        arguments: { op: 'goto', args: { url: page('dashboard.html') } },
      })) as CallToolResult;
      assert.equal(r.isError ?? false, false, textOf(r));
      const status = (await client.callTool({
        name: 'browser_status',
        arguments: { detail: 'full' },
      })) as CallToolResult;
      const full = JSON.parse(textOf(status)) as { data: { running?: { browser: string } } };
      assert.equal(full.data.running?.browser, TEST_BROWSER);
    } finally {
      await client.close();
    }
  });

  test('CLI and test runner: an op through the server, then a flow file as a test on its own', async () => {
    const run = await cli(
      ['run', 'goto', JSON.stringify({ url: page('links.html') }), '--session', 'cli'],
      { SWIFTBROWSE_URL: h.url },
    );
    assert.equal(run.code, 0, run.out);
    assert.match(run.out, /Links/);
    mkdirSync(join(work, 'flows'), { recursive: true });
    writeFileSync(
      join(work, 'flows', 'links.yaml'),
      `name: links\nsteps:\n  - op: goto\n    args: {url: "${page('links.html')}"}\n  - op: assert\n    args: {title_contains: Links, message: The links page loads.}\n`,
    );
    const tested = await cli(['test', 'flows', '--report-dir', 'report']);
    assert.equal(tested.code, 0, tested.out);
    const junit = readFileSync(join(work, 'report', 'junit.xml'), 'utf8');
    assert.match(junit, /tests="1"/);
    assert.match(junit, /failures="0"/);
  });
});
