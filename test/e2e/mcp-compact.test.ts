// Server surface: the compact MCP tool set.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { CompactAnswer } from '../../src/core/compact-answer.js';
import type { ActionResult } from '../../src/core/result.js';
import { startHarness, type Harness } from '../helpers/harness.js';

// What a model is shown over MCP (issue #19): the compact answer, one copy, the whole result one
// argument away.

let h: Harness;
let mcp: Client;

const FORM = `<!doctype html><title>Sign in</title>
<form onsubmit="event.preventDefault(); setTimeout(() => location.href = '/compact-home.html', 50)">
<label>Email <input name=email></label>
<button type=button onclick="document.title = 'Sign in (1 error)'; msg.textContent = 'Email is required'">Check</button>
<button type=button onclick="msg.textContent = 'Draft saved'">Save draft</button>
<button>Sign in</button></form><p id=msg></p>`;

before(async () => {
  h = await startHarness();
  h.server.setContent('/compact-form.html', FORM);
  h.server.setContent(
    '/compact-home.html',
    '<!doctype html><title>Home</title><h1>Welcome back</h1>',
  );
  mcp = new Client({ name: 'compact-test', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL('/mcp?session=cmp&tools=full', h.url)),
  );
});
after(async () => {
  await mcp.callTool({ name: 'browser_close', arguments: {} });
  await mcp.close();
  await h.closeBrowsers();
  await h.close();
});

const url = (path: string) => `${h.server.PREFIX}/${path}`;

async function call<T = CompactAnswer>(tool: string, args: Record<string, unknown> = {}) {
  const result = (await mcp.callTool({ name: tool, arguments: args })) as CallToolResult;
  const texts = result.content.filter((c) => c.type === 'text');
  assert.equal(texts.length, 1, 'one text per answer');
  return { result, body: JSON.parse(texts[0].type === 'text' ? texts[0].text : '') as T };
}

describe('the compact answer over MCP', () => {
  test('an action on an unchanged page says what changed, not what the caller already knows', async () => {
    const goto = await call('browser_goto', { url: url('compact-form.html') });
    assert.equal(goto.body.page?.title, 'Sign in', 'a navigation names the page');
    const fill = await call('browser_fill', {
      target: { label: 'Email' },
      value: 'ada@example.com',
    });
    assert.equal(fill.body.ok, true, JSON.stringify(fill.body.error));
    assert.deepEqual(Object.keys(fill.body).sort(), ['data', 'ok', 'target']);
    assert.equal(fill.body.target?.name, 'Email');
    assert.equal(fill.result.structuredContent, undefined, 'no second copy');
    const saved = await call('browser_click', { target: { role: 'button', name: 'Save draft' } });
    assert.match(JSON.stringify(saved.body.data?.changes), /Draft saved/, 'the change line');
    assert.ok(saved.body.notes?.includes('dom_changed'), JSON.stringify(saved.body));
    assert.equal(saved.body.page, undefined, 'same URL, title and tab');
  });

  test('a title change on the same URL names the page again', async () => {
    const check = await call('browser_click', { target: { role: 'button', name: 'Check' } });
    assert.equal(check.body.page?.title, 'Sign in (1 error)');
    assert.match(JSON.stringify(check.body.data?.changes), /Email is required/);
  });

  test('a failure keeps its error whole and the page, as the whole result has them', async () => {
    const args = { target: { text: 'No such button' }, timeout: 300 };
    const compact = await call('browser_click', args);
    const full = await call<ActionResult>('browser_click', { ...args, detail: 'full' });
    assert.equal(compact.result.isError, true);
    assert.equal(compact.body.error?.kind, 'not_found', JSON.stringify(compact.body));
    assert.deepEqual(compact.body.error, full.body.error);
    assert.deepEqual(compact.body.page, full.body.page);
    assert.ok(compact.body.evidence?.length, 'the failure screenshot is named');
  });

  test('a checked outcome keeps its verification, and a navigation its new page', async () => {
    await call('browser_goto', { url: url('compact-form.html') });
    const signIn = await call('browser_click', {
      target: { role: 'button', name: 'Sign in' },
      expect: { url_contains: 'compact-home' },
    });
    assert.equal(signIn.body.ok, true, JSON.stringify(signIn.body.error));
    assert.equal(signIn.body.verification?.status, 'passed');
    assert.equal(signIn.body.verification?.checks?.[0]?.passed, true);
    assert.equal(signIn.body.page?.url, url('compact-home.html'));
  });

  test('detail: "full" answers with the whole ActionResult', async () => {
    const { body } = await call<ActionResult>('browser_snapshot', { detail: 'full' });
    assert.equal(body.op, 'snapshot');
    assert.equal(body.session_id, 'cmp');
    assert.match(body.action_id, /^cmp-\d+$/);
    assert.equal(typeof body.timing.duration_ms, 'number');
    assert.equal(body.verification.status, 'not_checked');
    assert.equal(body.page?.title, 'Home');
    const bad = await call('browser_snapshot', { detail: 'everything' });
    assert.equal(bad.body.error?.kind, 'invalid_argument');
    assert.match(bad.body.error!.message, /"compact" or "full"/);
  });

  test('browser_run answers compactly, each batch step too, and takes detail beside op', async () => {
    const run = new Client({ name: 'compact-run', version: '1.0.0' });
    await run.connect(new StreamableHTTPClientTransport(new URL('/mcp?session=cmp', h.url)));
    try {
      const batch = (await run.callTool({
        name: 'browser_run',
        arguments: {
          steps: [
            { op: 'goto', args: { url: url('compact-form.html') } },
            { op: 'fill', args: { target: { label: 'Email' }, value: 'x@y.z' } },
          ],
        },
      })) as CallToolResult;
      const body = JSON.parse((batch.content[0] as { text: string }).text) as CompactAnswer;
      const steps = body.data?.results as CompactAnswer[];
      assert.equal(steps[0].page?.title, 'Sign in');
      assert.equal(steps[1].page, undefined);
      assert.ok(steps.every((s) => !('timing' in s) && !('action_id' in s)));
      const full = (await run.callTool({
        name: 'browser_run',
        arguments: { op: 'status', detail: 'full' },
      })) as CallToolResult;
      assert.equal(JSON.parse((full.content[0] as { text: string }).text).session_id, 'cmp');
    } finally {
      await run.close();
    }
  });
});

describe('the compact answer elsewhere', () => {
  test('HTTP answers whole unless ?detail=compact', async () => {
    const post = (query: string) =>
      h.request(`/browser/goto${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-key': 'cmp-http' },
        body: JSON.stringify({ url: url('compact-form.html') }),
      });
    const whole = (await (await post('')).json()) as ActionResult;
    assert.equal(whole.session_id, 'cmp-http');
    const compact = (await (await post('?detail=compact')).json()) as CompactAnswer;
    assert.equal(compact.ok, true);
    assert.equal('session_id' in compact, false);
    assert.equal(compact.page?.title, 'Sign in', 'a navigation names the page');
    const bad = await post('?detail=short');
    assert.equal(bad.status, 400);
    await h.request('/browser', { method: 'DELETE', headers: { 'x-session-key': 'cmp-http' } });
  });

  test('swiftbrowse run --compact prints the compact answer on one line', async () => {
    const main = fileURLToPath(new URL('../../src/surfaces/cli/main.js', import.meta.url));
    const args = [main, '--server', h.url, '--session', 'cmp-cli', '--compact', 'run', 'goto'];
    const { stdout } = await promisify(execFile)(process.execPath, [
      ...args,
      JSON.stringify({ url: url('compact-form.html') }),
    ]);
    assert.equal(stdout.trim().split('\n').length, 1);
    const printed = JSON.parse(stdout) as CompactAnswer;
    assert.equal(printed.ok, true);
    assert.equal('action_id' in printed, false);
    assert.equal(printed.page?.title, 'Sign in');
    await h.request('/browser', { method: 'DELETE', headers: { 'x-session-key': 'cmp-cli' } });
  });

  test('MCP_STRUCTURED_CONTENT=on adds the whole result as structuredContent', async () => {
    const x = await startHarness({ mcpStructuredContent: true });
    const client = new Client({ name: 'compact-structured', version: '1.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL('/mcp?session=cmp-s&tools=full', x.url)),
      );
      const result = (await client.callTool({
        name: 'browser_status',
        arguments: {},
      })) as CallToolResult;
      const structured = result.structuredContent as unknown as ActionResult;
      assert.equal(structured.session_id, 'cmp-s');
      assert.equal(typeof structured.timing.duration_ms, 'number');
      const text = JSON.parse((result.content[0] as { text: string }).text) as CompactAnswer;
      assert.equal('session_id' in text, false, 'the text stays compact');
    } finally {
      await client.close();
      await x.close();
    }
  });
});
