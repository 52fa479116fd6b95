import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { SETTINGS } from '../../src/config.js';
import { OPS } from '../../src/ops/registry.js';
import { instructionsFor } from '../../src/surfaces/mcp/instructions.js';

const README = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');

const section = (title: string) => {
  const start = README.indexOf(`## ${title}\n`);
  assert.ok(start >= 0, `README has no "## ${title}" section`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
};

test('the README configuration table lists every setting', () => {
  const table = section('Configuration');
  const missing = Object.values(SETTINGS)
    .map((s) => s.env)
    .filter((env) => !table.includes(`| \`${env}\` |`));
  assert.deepEqual(missing, []);
});

test('the README operations table names every op', () => {
  const table = section('Operations');
  const missing = OPS.map((op) => op.name).filter((name) => !table.includes(`\`${name}\``));
  assert.deepEqual(missing, []);
});

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const doc = (path: string) => readFileSync(join(ROOT, path), 'utf8');

test('the README shows one CLI usage line, naming exactly the commands the CLI has', () => {
  const usage = README.split('\n').filter((line) => line.startsWith('swiftbrowse serve |'));
  assert.equal(usage.length, 1, usage.join('\n'));
  const documented = usage[0]
    .slice('swiftbrowse '.length)
    .split(' | ')
    .map((part) => part.split(' ')[0])
    .sort();
  const help = execFileSync(
    process.execPath,
    [join(ROOT, 'dist/src/surfaces/cli/main.js'), '--help'],
    {
      encoding: 'utf8',
    },
  );
  const commands = [...help.slice(help.indexOf('Commands:')).matchAll(/^ {2}([a-z]+)\b/gm)]
    .map((m) => m[1])
    .filter((name) => name !== 'help')
    .sort();
  assert.deepEqual(documented, commands);
});

test('docs/mcp.md states the instructions’ measured size', () => {
  const text = doc('docs/mcp.md');
  const n = (chars: number) => chars.toLocaleString('en-US');
  const compact = instructionsFor('compact').length;
  const full = instructionsFor('full').length;
  assert.match(text, new RegExp(`They are ${n(compact)} characters with the compact tool set`));
  assert.match(text, new RegExp(`\\(${n(full)} with the full\\s+set\\)`));
  const tokens = Number(/about (\d+) tokens at characters \/ 4/.exec(text)?.[1]);
  assert.ok(
    Math.abs(tokens - compact / 4) <= 10,
    `about ${tokens} tokens, measured ${compact / 4}`,
  );
});

test('the README’s MCP host lines run the published package’s own binary over npx', () => {
  const pkg = JSON.parse(doc('package.json')) as { name: string; bin: Record<string, string> };
  const section = README.slice(
    README.indexOf('### From an MCP host'),
    README.indexOf('## A first session'),
  );
  assert.match(section, new RegExp(`claude mcp add swiftbrowse -- npx -y ${pkg.name} mcp`));
  const configs = [...section.matchAll(/`(\{.*\})`/g)].map(
    (m) => JSON.parse(m[1]) as Record<string, Record<string, { command: string; args: string[] }>>,
  );
  assert.equal(configs.length, 2, 'Cursor and VS Code');
  for (const config of configs) {
    const entry = (config.mcpServers ?? config.servers).swiftbrowse;
    assert.deepEqual([entry.command, ...entry.args], ['npx', '-y', pkg.name, 'mcp']);
  }
  assert.ok(pkg.bin.swiftbrowse, 'npx -y swiftbrowse runs the bin named like the package');
});

test('docs/cli.md says down takes the same --data-dir and --port as up', () => {
  assert.match(doc('docs/cli.md'), /`down` takes the same `--data-dir` and `--port` as `up`/);
  assert.doesNotMatch(doc('docs/cli.md'), /`down` reads `DATA_DIR` from the environment only/);
});
