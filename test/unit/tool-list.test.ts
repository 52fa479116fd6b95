import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OP_MAP, OPS } from '../../src/ops/registry.js';
import { instructionsFor } from '../../src/surfaces/mcp/instructions.js';
import { listTools } from '../../src/surfaces/mcp/tools.js';

// Playwright MCP 0.0.83's default tools/list, measured by the bench (issue #10's targets).
const PLAYWRIGHT_MCP_TOOLS_CHARS = 20_286;

const size = (set: 'full' | 'compact') => JSON.stringify({ tools: listTools(OP_MAP, set) }).length;

test('the full tools list is no larger than Playwright MCP’s, the compact one a quarter of it', () => {
  assert.ok(size('full') <= PLAYWRIGHT_MCP_TOOLS_CHARS, `full list: ${size('full')} characters`);
  assert.ok(
    size('compact') <= PLAYWRIGHT_MCP_TOOLS_CHARS / 4,
    `compact list: ${size('compact')} characters`,
  );
});

test('every argument of every op is listed, named in its tool’s description, or in the instructions', () => {
  const tools = new Map(listTools(OP_MAP, 'full').map((t) => [t.name, t]));
  const instructions = instructionsFor('full');
  for (const op of OPS) {
    const tool = tools.get(`browser_${op.name}`);
    assert.ok(tool, `browser_${op.name} is listed`);
    const listed = Object.keys(tool.inputSchema.properties ?? {});
    const also = /Also: (.*)$/.exec(tool.description ?? '')?.[1].split(', ') ?? [];
    for (const arg of Object.keys(op.args.shape)) {
      const said =
        listed.includes(arg) ||
        also.includes(arg) ||
        (op.common.includes(arg) && instructions.includes(arg));
      assert.ok(said, `${op.name}.${arg} is nowhere a model would read it`);
    }
  }
});

test('a description is said once across the list, and the target and condition forms in full once', () => {
  const text = JSON.stringify(listTools(OP_MAP, 'full'));
  const count = (s: string) => text.split(s).length - 1;
  assert.equal(count('exactly one of ref, role, text, label'), 1, 'the target form');
  assert.equal(count('The URL matches this glob'), 1, 'url_matches, described on assert only');
  assert.ok(count('"expect"') > 10, 'every acting op lists expect');
});
