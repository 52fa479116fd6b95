// Server surface: flows over MCP.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ActionResult } from '../../src/core/result.js';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
let mcp: Client;
before(async () => {
  h = await startHarness();
  mcp = new Client({ name: 'swiftbrowse-flows-test', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL('/mcp?session=fm&tools=full', h.url)),
  );
  // The browser is opened first: a Grid node on a loaded machine may take longer to start one
  // than the MCP client's 60 s request limit, and these tests are about the runs.
  await mcp.callTool({ name: 'browser_open', arguments: {} }, undefined, { timeout: 300_000 });
});
after(async () => {
  await mcp.close();
  await h.close();
});

const page = (path: string) => `${h.server.PREFIX}/${path}`;
const bodyOf = (r: CallToolResult) =>
  JSON.parse((r.content[0] as { text: string }).text) as ActionResult;

describe('flows over MCP', () => {
  test('a run sends a progress notification per step', async () => {
    const flow = {
      name: 'two-pages',
      steps: [
        { op: 'goto', args: { url: page('login.html') } },
        { id: 'email', op: 'fill', args: { target: { label: 'Email' }, value: 'a@b.c' } },
        { op: 'goto', args: { url: page('links.html') } },
      ],
    };
    const saved = bodyOf(
      (await mcp.callTool({ name: 'browser_flow_save', arguments: { flow } })) as CallToolResult,
    );
    assert.equal(saved.ok, true, JSON.stringify(saved.error));
    const messages: string[] = [];
    const run = bodyOf(
      (await mcp.callTool(
        { name: 'browser_flow_run', arguments: { name: 'two-pages' } },
        undefined,
        {
          onprogress: (p) => messages.push(p.message ?? ''),
        },
      )) as CallToolResult,
    );
    assert.equal(run.ok, true);
    for (const step of ['step 1/3: goto', 'step 2/3: email (fill)', 'step 3/3: goto'])
      assert.ok(
        messages.some((m) => m.includes(step)),
        `${step} in ${messages.join(' | ')}`,
      );
  });

  test('a cancelled run stops: the step waiting lets go and no later step starts', async () => {
    h.server.setContent('/after-cancel.html', '<h1>Should never load</h1>');
    const flow = {
      name: 'long-wait',
      timeout: 600,
      steps: [
        { op: 'goto', args: { url: page('login.html') } },
        { op: 'wait_for', args: { text_visible: 'This text never appears', timeout: 300_000 } },
        { op: 'goto', args: { url: page('after-cancel.html') } },
      ],
    };
    await mcp.callTool({ name: 'browser_flow_save', arguments: { flow } });
    const controller = new AbortController();
    let waitStarted: () => void;
    const waiting = new Promise<void>((r) => (waitStarted = r));
    const running = mcp.callTool(
      { name: 'browser_flow_run', arguments: { name: 'long-wait' } },
      undefined,
      {
        signal: controller.signal,
        onprogress: (p) => {
          if (p.message?.includes('step 2/3')) waitStarted();
        },
      },
    );
    await waiting;
    controller.abort();
    await assert.rejects(running);
    // The session runs one op at a time: this answers only once the run has stopped.
    const next = bodyOf(
      (await mcp.callTool({
        name: 'browser_extract',
        // The whole result: a compact answer names the page only when it changed.
        arguments: { target: { label: 'Email' }, what: 'value', detail: 'full' },
      })) as CallToolResult,
    );
    assert.equal(next.ok, true, JSON.stringify(next.error));
    assert.equal(next.page?.url, page('login.html'));
    assert.ok(
      !h.server.requests.includes('/after-cancel.html'),
      'the step after the cancel never ran',
    );
  });

  test("the page's flows are a resource, read as flow_list reads them for that page", async () => {
    for (const [name, urls] of [
      ['fm-fixtures', [`${h.server.PREFIX}/*`]],
      ['fm-elsewhere', ['https://elsewhere.example/*']],
    ] as const) {
      const flow = { name, urls, steps: [{ op: 'goto', args: { url: page('links.html') } }] };
      await mcp.callTool({ name: 'browser_flow_save', arguments: { flow } });
    }
    await mcp.callTool({ name: 'browser_goto', arguments: { url: page('login.html') } });
    const { resources } = await mcp.listResources();
    assert.ok(resources.some((r) => r.uri === 'swiftbrowse://session/flows'));
    const read = await mcp.readResource({ uri: 'swiftbrowse://session/flows' });
    const here = JSON.parse((read.contents[0] as { text: string }).text) as {
      url: string;
      flows: { name: string }[];
    };
    assert.equal(here.url, page('login.html'));
    const names = here.flows.map((f) => f.name);
    assert.ok(names.includes('fm-fixtures'), names.join(', '));
    assert.ok(!names.includes('fm-elsewhere'), names.join(', '));
    const listed = bodyOf(
      (await mcp.callTool({
        name: 'browser_flow_list',
        arguments: { detail: 'full' },
      })) as CallToolResult,
    );
    assert.deepEqual(here, listed.data);
  });

  test('the prompts are listed and filled; the flow schema and library are resources', async () => {
    const { prompts } = await mcp.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ['build_flow', 'repair_flow']);
    const repair = prompts.find((p) => p.name === 'repair_flow')!;
    assert.deepEqual(
      repair.arguments?.map((a) => [a.name, a.required]),
      [
        ['flow', true],
        ['step', false],
        ['symptom', false],
      ],
    );
    const built = await mcp.getPrompt({
      name: 'build_flow',
      arguments: { task: 'sign in', url: page('login.html') },
    });
    const text = (built.messages[0].content as { text: string }).text;
    assert.match(text, /sign in/);
    assert.match(text, /\$\{name\}/, 'flow syntax in a prompt body is left alone');
    await assert.rejects(
      mcp.getPrompt({ name: 'build_flow', arguments: { task: 'x' } }),
      /needs url/,
    );

    const schema = await mcp.readResource({ uri: 'swiftbrowse://schemas/flow' });
    assert.match(String((schema.contents[0] as { text: string }).text), /"const":"click"/);
    const library = await mcp.readResource({ uri: 'swiftbrowse://flows' });
    assert.match(String((library.contents[0] as { text: string }).text), /"name":"two-pages"/);
    const { resources } = await mcp.listResources();
    assert.ok(!resources.some((r) => r.uri.includes('prompts/')), 'prompts are not guide pages');
  });
});
