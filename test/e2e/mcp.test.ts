// Server surface: MCP over stdio and streamable HTTP with the SDK client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  type CallToolResult,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { CompactAnswer } from '../../src/core/compact-answer.js';
import type { ActionResult } from '../../src/core/result.js';
import { OPS } from '../../src/ops/registry.js';
import { EXPECTED_OPS } from '../helpers/expected-ops.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { backendEnv } from '../helpers/backend.js';

const MAIN = fileURLToPath(new URL('../../src/surfaces/cli/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

let h: Harness;
const dataDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-mcp-'));
const clients: Client[] = [];

before(async () => {
  h = await startHarness();
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await h.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The environment a client would start us with: a temp DATA_DIR, no stray SwiftBrowse settings. */
function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('SWIFTBROWSE_') && k !== 'MCP_TOOLS') env[k] = v;
  return { ...env, DATA_DIR: dataDir, ...backendEnv(), ...extra };
}

async function connect(transport: StdioClientTransport | StreamableHTTPClientTransport) {
  const client = new Client({ name: 'swiftbrowse-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const overHttp = (query: string, headers: Record<string, string> = {}, base = h.url) =>
  connect(
    new StreamableHTTPClientTransport(new URL(`/mcp?${query}`, base), { requestInit: { headers } }),
  );

const overStdio = (args: string[], command = process.execPath, env = childEnv()) =>
  connect(
    new StdioClientTransport({
      command,
      args: command === process.execPath ? [MAIN, ...args] : args,
      env,
      stderr: 'inherit',
    }),
  );

/** The text content: the compact answer by default, the whole ActionResult with detail: "full". */
type Body = CompactAnswer & Partial<Omit<ActionResult, keyof CompactAnswer>>;

interface Answer {
  result: CallToolResult;
  body: Body;
}

/** Resolves once the client's session (m1) runs an op: its status resource, read with no op, says busy. */
async function opRunning(client: Client): Promise<void> {
  for (const due = Date.now() + 15_000; Date.now() < due;) {
    const read = await client.readResource({ uri: 'swiftbrowse://sessions/m1/status' });
    const text = 'text' in read.contents[0] ? String(read.contents[0].text) : '{}';
    if ((JSON.parse(text) as { busy?: boolean }).busy) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('session m1 ran no op within 15 s');
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  options: { onprogress?: (p: Progress) => void; signal?: AbortSignal } = {},
): Promise<Answer> {
  const result = (await client.callTool(
    { name, arguments: args },
    undefined,
    options,
  )) as CallToolResult;
  const text = result.content[0];
  assert.equal(text?.type, 'text');
  const body = JSON.parse(text.type === 'text' ? text.text : '') as Body;
  assert.equal(
    result.structuredContent,
    undefined,
    'one copy: the text (MCP_STRUCTURED_CONTENT off)',
  );
  assert.equal(result.isError, !body.ok, 'isError is set exactly when ok is false');
  return { result, body };
}

const page = (path: string) => `${h.server.PREFIX}/${path}`;
const toolsSize = async (client: Client) => JSON.stringify((await client.listTools()).tools).length;

type LogLine = LoggingMessageNotification['params'];
const messageOf = (line: LogLine) => String((line.data as { message?: unknown }).message);

/** The log lines a client is sent, and a wait for one: what a host's log panel would show. */
function logOf(client: Client) {
  const lines: LogLine[] = [];
  let heard = () => {};
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    lines.push(n.params);
    heard();
  });
  return {
    lines,
    async when(wanted: (line: LogLine) => boolean): Promise<LogLine> {
      const due = Date.now() + 60_000;
      for (;;) {
        const found = lines.find(wanted);
        if (found) return found;
        if (Date.now() > due) throw new Error(`no such log line; heard ${JSON.stringify(lines)}`);
        await new Promise<void>((r) => {
          heard = r;
          setTimeout(r, 1000);
        });
      }
    },
  };
}

describe('tools derived from the registry', () => {
  test('the full set has one browser_<op> tool per op, over HTTP and stdio', async () => {
    for (const client of [
      await overHttp('session=t1&tools=full'),
      await overStdio(['mcp', '--tools', 'full']),
    ]) {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name).sort();
      assert.deepEqual(names, OPS.map((op) => `browser_${op.name}`).sort());
      assert.deepEqual(names, EXPECTED_OPS.map((op) => `browser_${op}`).sort());
      const click = tools.find((t) => t.name === 'browser_click')!;
      assert.deepEqual(click.inputSchema.required, ['target']);
      // Destructive is MCP's default for a tool that is not read-only: left unsaid.
      assert.equal(click.annotations, undefined);
      // A flow reaches only this server's store: a closed world; its run clicks what its steps say.
      assert.deepEqual(tools.find((t) => t.name === 'browser_flow_delete')!.annotations, {
        openWorldHint: false,
      });
      assert.equal(tools.find((t) => t.name === 'browser_flow_run')!.annotations, undefined);
      assert.deepEqual(tools.find((t) => t.name === 'browser_flow_list')!.annotations, {
        readOnlyHint: true,
        openWorldHint: false,
      });
      assert.equal(
        tools.find((t) => t.name === 'browser_assert')!.annotations?.destructiveHint,
        false,
      );
      assert.equal(
        tools.find((t) => t.name === 'browser_snapshot')!.annotations?.readOnlyHint,
        true,
      );
      assert.match(tools.find((t) => t.name === 'browser_evaluate')!.description!, /:hover/);
      assert.match(tools.find((t) => t.name === 'browser_hover')!.description!, /pointer stays/);
    }
  });

  test('the compact set is browser_run plus the lifecycle, reaches every op, and costs a fraction of the full list', async (t) => {
    const compact = await overHttp('session=t2');
    const { tools } = await compact.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['browser_run', 'browser_open', 'browser_close', 'browser_status'],
    );
    const run = tools[0];
    const op = (run.inputSchema.properties as Record<string, { enum?: string[] }>).op;
    assert.deepEqual([...(op.enum ?? [])].sort(), OPS.map((o) => o.name).sort());
    const compactChars = await toolsSize(compact);
    const fullChars = await toolsSize(await overHttp('session=t2&tools=full'));
    t.diagnostic(`tools/list: compact ${compactChars} characters, full ${fullChars} characters`);
    assert.ok(compactChars * 4 < fullChars, `compact ${compactChars} vs full ${fullChars}`);
  });

  test('initialize carries instructions on how the pieces fit', async () => {
    const text = (await overHttp('session=t3')).getInstructions() ?? '';
    for (const word of [
      'session',
      'role',
      'data.changes',
      'notes',
      'expect',
      'snapshot',
      'ref',
      'approved',
      '"detail": "full"',
    ])
      assert.ok(text.includes(word), `instructions mention ${word}`);
  });
});

describe('over streamable HTTP', () => {
  let mcp: Client;
  before(async () => {
    mcp = await overHttp('session=m1&tools=full');
  });

  test('goto, fill, click and snapshot sign in on the login page', async () => {
    assert.equal((await call(mcp, 'browser_goto', { url: page('login.html') })).body.ok, true);
    await call(mcp, 'browser_fill', { target: { label: 'Email' }, value: 'ada@example.com' });
    await call(mcp, 'browser_fill', { target: { label: 'Password' }, value: 'secret' });
    const click = await call(mcp, 'browser_click', {
      target: { role: 'button', name: 'Sign in' },
      expect: { url_contains: 'dashboard' },
    });
    assert.equal(click.body.ok, true, JSON.stringify(click.body.error));
    assert.equal(click.body.verification?.status, 'passed');
    const snap = await call(mcp, 'browser_snapshot');
    assert.match(String(snap.body.data?.track), /Welcome, ada@example.com/);
  });

  test('a call answers the same over MCP as over POST /browser/<op>', async () => {
    const calls: [string, Record<string, unknown>][] = [
      ['goto', { url: page('login.html') }],
      ['fill', { target: { label: 'Email' }, value: 'a@b.c' }],
      ['click', { target: { text: 'No such button' }, timeout: 300 }],
      ['extract', { target: { label: 'Email' }, what: 'value' }],
      ['press', { key: 'Tab', nonsense: true }],
    ];
    const shape = (r: Body) => ({
      ok: r.ok,
      op: r.op,
      kind: r.error?.kind,
      data: Object.keys(r.data ?? {}).sort(),
    });
    for (const [op, args] of calls) {
      // detail: "full" asks MCP for the whole result, HTTP's default.
      const overMcp = (await call(mcp, `browser_${op}`, { ...args, detail: 'full' })).body;
      const overHttpRoute = (await h.op(op, args, 'same-http')).body;
      assert.deepEqual(shape(overMcp), shape(overHttpRoute), op);
    }
  });

  test('a screenshot comes back as image content, its bytes not repeated in the JSON', async () => {
    await call(mcp, 'browser_goto', { url: page('login.html') });
    const { result } = await call(mcp, 'browser_screenshot', { format: 'PNG' });
    const image = result.content.find((c) => c.type === 'image');
    assert.ok(image && image.type === 'image');
    assert.equal(image.mimeType, 'image/png');
    assert.equal(Buffer.from(image.data, 'base64').subarray(1, 4).toString(), 'PNG');
    const text = result.content[0].type === 'text' ? result.content[0].text : '';
    assert.ok(!text.includes(image.data.slice(0, 100)), 'no base64 in the text');
  });

  test('a "Delete account" click needs approval; a plain sign-in submit does not', async () => {
    await call(mcp, 'browser_goto', { url: page('delete.html') });
    const refused = await call(mcp, 'browser_click', {
      target: { role: 'button', name: 'Delete account' },
    });
    assert.equal(refused.body.error?.kind, 'approval_required');
    assert.match(refused.body.error!.message, /ask/i);
    const result = { target: { css: '#result' }, what: 'text' };
    assert.notEqual(
      (await call(mcp, 'browser_extract', result)).body.data?.text,
      'Account deleted',
    );
    const signIn = await call(mcp, 'browser_click', {
      target: { role: 'button', name: 'Sign in' },
    });
    assert.equal(signIn.body.ok, true, JSON.stringify(signIn.body.error));
    const approved = await call(mcp, 'browser_click', {
      target: { role: 'button', name: 'Delete account' },
      approved: true,
      expect: { text_visible: 'Account deleted' },
    });
    assert.equal(approved.body.ok, true, JSON.stringify(approved.body.error));
  });

  test('a malformed target is answered with one sentence naming the expected shape', async () => {
    const { body } = await call(mcp, 'browser_click', { target: { csss: 'x' } });
    assert.equal(body.error?.kind, 'invalid_argument');
    assert.match(body.error!.message, /target.*exactly one of .*css.*\{"css": "button\.go"\}/);
    assert.doesNotMatch(body.error!.message, /\n|"code"|zod/);
  });

  test('a target sent as a JSON string and an enum in another case are accepted', async () => {
    await call(mcp, 'browser_goto', { url: page('login.html') });
    const fill = await call(mcp, 'browser_fill', { target: '{"label": "Email"}', value: 'x@y.z' });
    assert.equal(fill.body.ok, true, JSON.stringify(fill.body.error));
    const shot = await call(mcp, 'browser_screenshot', { format: 'JPEG', save: false });
    assert.equal(shot.body.ok, true, JSON.stringify(shot.body.error));
  });

  test('an argument left out of a tool’s listed schema is still taken; a misspelt one is refused', async () => {
    const tools = (await mcp.listTools()).tools;
    const goto = tools.find((t) => t.name === 'browser_goto')!;
    assert.ok(!('diff' in (goto.inputSchema.properties ?? {})), 'diff is not listed on goto');
    const quiet = await call(mcp, 'browser_goto', { url: page('login.html'), diff: false });
    assert.equal(quiet.body.ok, true, JSON.stringify(quiet.body.error));
    assert.equal(quiet.body.data?.changes, undefined, 'diff: false took effect');
    const typo = await call(mcp, 'browser_goto', { url: page('login.html'), dif: false });
    assert.equal(typo.body.error?.kind, 'invalid_argument');
    assert.match(typo.body.error!.message, /dif/);
  });

  test('a long wait_for sends progress notifications while it waits', async () => {
    const progress: Progress[] = [];
    const { body } = await call(
      mcp,
      'browser_wait_for',
      { text_visible: 'This text never appears', timeout: 3000 },
      { onprogress: (p) => progress.push(p) },
    );
    assert.equal(body.error?.kind, 'timeout');
    assert.ok(progress.length >= 2, `${progress.length} notifications`);
    assert.ok(progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress));
  });

  test('a cancelled wait_for stops at its next poll and frees the session', async () => {
    const controller = new AbortController();
    const waiting = call(
      mcp,
      'browser_wait_for',
      { text_visible: 'This text never appears', timeout: 20_000 },
      { signal: controller.signal },
    );
    await opRunning(mcp);
    controller.abort();
    await assert.rejects(waiting);
    const cancelled = Date.now();
    // The next op waits behind the session's running one: it answers at once only if that stopped.
    const next = await call(mcp, 'browser_extract', { target: { label: 'Email' }, what: 'value' });
    assert.equal(next.body.ok, true);
    assert.ok(Date.now() - cancelled < 3000, `took ${Date.now() - cancelled} ms after the cancel`);
  });

  test('a click cancelled while it waits behind another op never reaches the page', async () => {
    h.server.setContent(
      '/mcp-counter.html',
      `<title>Counter</title><button onclick="fetch('/mcp-clicked')">Count</button>`,
    );
    await call(mcp, 'browser_goto', { url: page('mcp-counter.html') });
    const holding = call(mcp, 'browser_wait_for', { ms: 2500 });
    await opRunning(mcp);
    const controller = new AbortController();
    const click = call(
      mcp,
      'browser_click',
      { target: { role: 'button', name: 'Count' } },
      { signal: controller.signal },
    );
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    await assert.rejects(click);
    await holding;
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(h.server.requests.filter((r) => r === '/mcp-clicked').length, 0);
  });

  test('every resource can be read', async () => {
    const { resources } = await mcp.listResources();
    const uris = resources.map((r) => r.uri);
    assert.ok(uris.includes('swiftbrowse://session'));
    assert.ok(uris.includes('swiftbrowse://ops'));
    assert.ok(uris.includes('skill://swiftbrowse/SKILL.md'));
    for (const uri of uris) {
      const { contents } = await mcp.readResource({ uri });
      const text = 'text' in contents[0] ? String(contents[0].text) : '';
      assert.ok(text.length > 0, uri);
      if (uri === 'swiftbrowse://session') assert.equal(JSON.parse(text).session, 'm1');
      if (uri === 'swiftbrowse://secrets') assert.ok(Array.isArray(JSON.parse(text).secrets));
      if (uri === 'swiftbrowse://files') assert.ok(Array.isArray(JSON.parse(text).files));
      if (uri === 'swiftbrowse://ops')
        assert.deepEqual(
          (JSON.parse(text) as { ops: { name: string }[] }).ops.map((o) => o.name),
          OPS.map((o) => o.name),
        );
    }
    await assert.rejects(mcp.readResource({ uri: 'skill://swiftbrowse/../package.json' }));
  });

  test('a connection that names no session is refused at initialize, told how to name one', async () => {
    await assert.rejects(overHttp('tools=full'), /\?session=NAME/);
  });

  test('resource templates name a flow, a file and the session status, each readable', async () => {
    const { resourceTemplates } = await mcp.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((t) => t.uriTemplate),
      [
        'swiftbrowse://flows/{name}',
        'swiftbrowse://files/{name}',
        'swiftbrowse://sessions/{name}/status',
      ],
    );
    const saved = await call(mcp, 'browser_flow_save', {
      flow: { name: 'tmpl-flow', steps: [{ op: 'goto', args: { url: page('login.html') } }] },
    });
    assert.equal(saved.body.ok, true, JSON.stringify(saved.body.error));
    const flow = await mcp.readResource({ uri: 'swiftbrowse://flows/tmpl-flow' });
    const text = 'text' in flow.contents[0] ? String(flow.contents[0].text) : '';
    assert.match(text, /tmpl-flow/);
    assert.match(text, /login\.html/);

    await call(mcp, 'browser_goto', { url: page('login.html') });
    const shot = await call(mcp, 'browser_screenshot', { format: 'PNG' });
    assert.equal(shot.body.ok, true, JSON.stringify(shot.body.error));
    const listed = await mcp.readResource({ uri: 'swiftbrowse://files' });
    const files = JSON.parse('text' in listed.contents[0] ? String(listed.contents[0].text) : '');
    const name = (files.files as { name: string }[])
      .map((f) => f.name)
      .find((n) => n.endsWith('.png'))!;
    const file = await mcp.readResource({ uri: `swiftbrowse://files/${encodeURIComponent(name)}` });
    const entry = 'text' in file.contents[0] ? JSON.parse(String(file.contents[0].text)) : {};
    assert.equal(entry.name, name);
    const blob = file.contents[1];
    assert.ok(blob && 'blob' in blob, 'a small file comes with its bytes');
    assert.equal(blob.mimeType, 'image/png');
    assert.equal(Buffer.from(String(blob.blob), 'base64').subarray(1, 4).toString(), 'PNG');
    await assert.rejects(mcp.readResource({ uri: 'swiftbrowse://files/none.png' }), /No file/);

    const own = await mcp.readResource({ uri: 'swiftbrowse://sessions/m1/status' });
    assert.equal(
      JSON.parse('text' in own.contents[0] ? String(own.contents[0].text) : '').session,
      'm1',
    );
    await assert.rejects(
      mcp.readResource({ uri: 'swiftbrowse://sessions/other/status' }),
      /only its own session/,
    );

    // Reading a resource runs no op: the action ids of the ops around the reads are consecutive.
    const before = Number(
      String((await call(mcp, 'browser_status', {})).body.action_id)
        .split('-')
        .pop(),
    );
    await mcp.readResource({ uri: 'swiftbrowse://sessions/m1/status' });
    await mcp.readResource({ uri: 'swiftbrowse://files' });
    const after = Number(
      String((await call(mcp, 'browser_status', {})).body.action_id)
        .split('-')
        .pop(),
    );
    assert.equal(after, before + 1);
  });

  test("a Playwright MCP tool name is a JSON-RPC error naming this server's op", async () => {
    await assert.rejects(
      mcp.callTool({ name: 'browser_navigate', arguments: { url: page('login.html') } }),
      (e: McpError) =>
        e.code === ErrorCode.InvalidParams &&
        /Playwright MCP's name; here it is the op goto: call browser_goto/.test(e.message),
    );
    const compact = await overHttp('session=m1c');
    await assert.rejects(
      compact.callTool({ name: 'browser_snapshott', arguments: {} }),
      (e: McpError) =>
        e.code === ErrorCode.InvalidParams &&
        /did you mean browser_run \{"op": "snapshot"/.test(e.message),
    );
    await assert.rejects(
      mcp.callTool({ name: 'browser_clik', arguments: {} }),
      /Unknown tool "browser_clik": did you mean browser_click\?/,
    );
  });

  test('a name from the other tool set points to the tool this set calls, and runs nothing', async () => {
    const compact = await overHttp('session=m1x');
    const click = { target: { role: 'button', name: 'Sign in' } };
    await assert.rejects(
      compact.callTool({ name: 'browser_click', arguments: click }),
      (e: McpError) =>
        e.code === ErrorCode.InvalidParams &&
        e.message.includes(
          'browser_click is in the full tool set and this connection has the compact one: call browser_run {"op": "click", "args": {…}}',
        ),
    );
    await assert.rejects(
      mcp.callTool({ name: 'browser_run', arguments: { op: 'click', args: click } }),
      /browser_run is in the compact tool set and this connection has the full one, a tool per op: call browser_click with its arguments/,
    );
    // Neither call reached a browser: the compact connection's session never opened one.
    const status = await call(compact, 'browser_status', { detail: 'full' });
    assert.notEqual(status.body.data?.browser, 'open', JSON.stringify(status.body.data));
  });

  test('a browser Origin not on the allow list is refused on /mcp', async () => {
    const response = await h.request('/mcp?session=m1', {
      method: 'POST',
      headers: {
        origin: 'http://evil.example',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(response.status, 403);
    assert.equal(((await response.json()) as ActionResult).error?.kind, 'permission_denied');
  });

  test('with a token set, /mcp needs the bearer token', async () => {
    const guarded = await startHarness({ token: 'mcp-test-token' });
    try {
      await assert.rejects(overHttp('session=g1', {}, guarded.url), /Bearer/);
      const client = await overHttp(
        'session=g1',
        { authorization: 'Bearer mcp-test-token' },
        guarded.url,
      );
      assert.equal((await client.listTools()).tools[0].name, 'browser_run');
      await client.close();
    } finally {
      await guarded.close();
    }
  });
});

describe('resource mirror tools', () => {
  test('MCP_RESOURCE_TOOLS offers browser_read_resource, hidden by default', async () => {
    const plain = await overStdio(['mcp', '--session', 'r1']);
    assert.ok(!(await plain.listTools()).tools.some((t) => t.name === 'browser_read_resource'));
    const mirrored = await overStdio(
      ['mcp', '--session', 'r2'],
      process.execPath,
      childEnv({ MCP_RESOURCE_TOOLS: 'on' }),
    );
    assert.ok((await mirrored.listTools()).tools.some((t) => t.name === 'browser_read_resource'));
    const read = await mirrored.callTool({
      name: 'browser_read_resource',
      arguments: { uri: 'skill://swiftbrowse/SKILL.md' },
    });
    const text = (read.content as { type: string; text: string }[])[0].text;
    assert.match(text, /# SwiftBrowse/);
  });
});

describe('the server log as MCP logging', () => {
  test('a host hears its own session from the level it sets, not the other sessions', async () => {
    const a = await overHttp('session=lg1');
    const b = await overHttp('session=lg2');
    assert.ok(a.getServerCapabilities()?.logging, 'the logging capability is declared');
    const aLog = logOf(a);
    const bLog = logOf(b);
    await a.setLoggingLevel('info');
    await b.setLoggingLevel('info');
    assert.equal((await call(a, 'browser_open')).body.ok, true);
    const opened = await aLog.when((l) => /session "lg1" opened/.test(messageOf(l)));
    assert.equal(opened.level, 'info');
    assert.equal(opened.logger, 'swiftbrowse');
    assert.equal((opened.data as { session?: string }).session, 'lg1');
    assert.equal((await call(b, 'browser_open')).body.ok, true);
    // b's own line comes after a's on the same stream: a's would have been sent before it.
    await bLog.when((l) => /session "lg2" opened/.test(messageOf(l)));
    assert.ok(!JSON.stringify(bLog.lines).includes('lg1'), JSON.stringify(bLog.lines));
    await call(a, 'browser_close');
    await call(b, 'browser_close');
  });

  test('over stdio a host that sets debug hears the browser open', async () => {
    const client = await overStdio(['mcp', '--session', 'lg3']);
    const log = logOf(client);
    await client.setLoggingLevel('debug');
    assert.equal((await call(client, 'browser_open')).body.ok, true);
    const opened = await log.when((l) => /session "lg3" opened/.test(messageOf(l)));
    assert.equal(opened.level, 'info');
  });
});

describe('over stdio', () => {
  test('--session names the session; without it the process uses the private _stdio', async () => {
    const named = await overStdio(['mcp', '--session', 'm2']);
    const goto = await call(named, 'browser_run', {
      op: 'goto',
      args: { url: page('login.html') },
      detail: 'full',
    });
    assert.equal(goto.body.ok, true, JSON.stringify(goto.body.error));
    assert.equal(goto.body.session_id, 'm2');
    const unnamed = await overStdio(['mcp']);
    const status = await call(unnamed, 'browser_status', { detail: 'full' });
    assert.equal(status.body.session_id, '_stdio');
  });

  test('browser_run with steps runs a batch and reports each step as progress', async () => {
    const client = await overStdio(['mcp', '--session', 'm3']);
    const progress: Progress[] = [];
    const { body } = await call(
      client,
      'browser_run',
      {
        steps: [
          { op: 'goto', args: { url: page('login.html') } },
          { op: 'fill', args: { target: { label: 'Email' }, value: 'ada@example.com' } },
          { op: 'fill', args: { target: { label: 'Password' }, value: 'secret' } },
          {
            op: 'click',
            args: {
              target: { role: 'button', name: 'Sign in' },
              expect: { url_contains: 'dashboard' },
            },
          },
        ],
      },
      { onprogress: (p) => progress.push(p) },
    );
    assert.equal(body.ok, true, JSON.stringify(body.error));
    assert.equal(body.data?.ran, 4);
    const said = progress.map((p) => `${p.progress}/${p.total}: ${p.message}`).join(' | ');
    const last = progress.find((p) => p.message?.includes('step 4/4: click'));
    assert.ok(last, said);
    // Steps done of the total, rising with every notification as MCP requires.
    assert.equal(last.progress, 3, said);
    assert.equal(last.total, 4, said);
    for (const [i, p] of progress.entries())
      if (i > 0) assert.ok(p.progress > progress[i - 1].progress, said);
  });

  test('with --server it is a proxy: approval still applies and the browser outlives it', async () => {
    const proxy = await overStdio(['mcp', '--server', h.url, '--session', 'p1']);
    await call(proxy, 'browser_run', { op: 'goto', args: { url: page('delete.html') } });
    const refused = await call(proxy, 'browser_run', {
      op: 'click',
      args: { target: { role: 'button', name: 'Delete account' } },
    });
    assert.equal(refused.body.error?.kind, 'approval_required');
    await proxy.close();
    const status = await h.op('status', {}, 'p1');
    assert.equal(status.body.data?.browser, 'open');
    assert.equal(status.body.data?.last_url, page('delete.html'));
  });

  test('a proxy whose token the server refuses says so, not that no server answers', async () => {
    const guarded = await startHarness({ token: 'proxy-test-token' });
    try {
      const proxy = await overStdio([
        'mcp',
        '--server',
        guarded.url,
        '--session',
        'p2',
        '--token',
        'wrong',
      ]);
      const { body } = await call(proxy, 'browser_run', { op: 'status', args: {} });
      assert.equal(body.error?.kind, 'permission_denied', JSON.stringify(body.error));
      assert.match(body.error!.message, /refused this proxy \(HTTP 401\).*not the one/);
      await proxy.close();
    } finally {
      await guarded.close();
    }
  });
});

describe('the client configuration in docs/mcp.md', () => {
  interface ServerEntry {
    command?: string;
    args?: string[];
    url?: string;
  }
  const entries = [
    ...readFileSync(join(ROOT, 'docs/mcp.md'), 'utf8').matchAll(/```json\n([\s\S]*?)```/g),
  ].map(
    (m) => (JSON.parse(m[1]) as { mcpServers: Record<string, ServerEntry> }).mcpServers.swiftbrowse,
  );

  async function signIn(client: Client) {
    const { body } = await call(client, 'browser_run', {
      steps: [
        { op: 'goto', args: { url: `${h.url}/demo/login.html` } },
        { op: 'fill', args: { target: { label: 'Email' }, value: 'ada@example.com' } },
        { op: 'fill', args: { target: { label: 'Password' }, value: 'secret' } },
        {
          op: 'click',
          args: {
            target: { role: 'button', name: 'Sign in' },
            expect: { url_contains: 'dashboard' },
          },
        },
      ],
    });
    assert.equal(body.ok, true, JSON.stringify(body.error));
  }

  test('the stdio entry, run as written, signs in on the demo site', async () => {
    const entry = entries.find((e) => e.command);
    assert.ok(entry?.command && entry.args);
    // What `npm install -g swiftbrowse` puts on PATH: the package's bin.
    const bin = mkdtempSync(join(tmpdir(), 'swiftbrowse-bin-'));
    writeFileSync(
      join(bin, entry.command),
      `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`,
    );
    chmodSync(join(bin, entry.command), 0o755);
    try {
      const env = childEnv({ PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` });
      await signIn(await overStdio(entry.args, entry.command, env));
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test('the HTTP entry, pointed at this server, signs in on the demo site', async () => {
    const entry = entries.find((e) => e.url);
    assert.ok(entry?.url);
    const written = new URL(entry.url);
    const client = await connect(
      new StreamableHTTPClientTransport(new URL(`${written.pathname}${written.search}`, h.url)),
    );
    await signIn(client);
  });
});

describe('a local Firefox slow to start', () => {
  /** A "firefox" that opens its BiDi listener and never answers a command: a start that overruns. */
  const SILENT_FIREFOX = `#!${process.execPath}
const http = require('node:http');
const { createHash } = require('node:crypto');
if (process.argv.includes('--version')) return console.log('Mozilla Firefox 999.0');
const server = http.createServer();
server.on('upgrade', (request, socket) => {
  const accept = createHash('sha1')
    .update(request.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11')
    .digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: ' + accept + '\\r\\n\\r\\n');
  socket.on('data', () => {});
});
server.listen(0, '127.0.0.1', () =>
  process.stderr.write('WebDriver BiDi listening on ws://127.0.0.1:' + server.address().port + '\\n'),
);
`;

  test('a Firefox that does not answer its first command says so and names the setting to raise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swiftbrowse-silent-firefox-'));
    const path = join(dir, 'firefox');
    writeFileSync(path, SILENT_FIREFOX, { mode: 0o755 });
    // Long enough for the fake's listener on a busy machine; the first command then waits as long.
    const slow = await startHarness({ firefoxPath: path, firefoxStartTimeout: '5s' });
    try {
      const client = await overHttp('session=ff1', {}, slow.url);
      // A host that set no level hears warnings and above: not the Chromium opening, the failure.
      const log = logOf(client);
      assert.equal((await call(client, 'browser_open')).body.ok, true);
      await call(client, 'browser_close');
      const { body } = await call(client, 'browser_open', { browser: 'firefox' });
      assert.equal(body.error?.kind, 'backend', JSON.stringify(body));
      assert.match(
        body.error!.message,
        /started but did not answer its first WebDriver BiDi command \(session\.new\) within 5 s \(FIREFOX_START_TIMEOUT\)\. A loaded machine or a new profile/,
      );
      assert.match(body.error!.message, /raise FIREFOX_START_TIMEOUT \(e\.g\. to 10s\)/);
      assert.doesNotMatch(body.error!.message, /Request with id/);
      const failed = await log.when((l) => /could not open a browser/.test(messageOf(l)));
      assert.equal(failed.level, 'warning');
      assert.match(JSON.stringify(failed.data), /FIREFOX_START_TIMEOUT/);
      assert.deepEqual(
        log.lines.map((l) => l.level),
        ['warning'],
        'nothing below warning before the host sets a level',
      );
    } finally {
      await slow.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
