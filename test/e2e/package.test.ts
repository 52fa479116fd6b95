// Server surface: the npm package installs and runs.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { backendEnv } from '../helpers/backend.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { freePort } from '../helpers/ports.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'swiftbrowse-package-'));
const installDir = join(work, 'install');
const BIN = join(installDir, 'node_modules', '.bin', 'swiftbrowse');

/** An environment with none of this shell's SwiftBrowse settings, as a new user's would be. */
function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('SWIFTBROWSE_') && !k.startsWith('npm_')) env[k] = v;
  return { ...env, DATA_DIR: join(work, 'data'), ...backendEnv(), ...extra };
}

let packed: string[] = [];
let fixtures: FixtureServer;
const children: ChildProcess[] = [];

before(async () => {
  fixtures = await startFixtureServer();
  // The tree under test is already built (dist/ runs this file), so prepack's build is skipped.
  const { stdout } = await run(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', work],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  const [info] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  packed = info.files.map((f) => f.path);
  mkdirSync(installDir);
  await run('npm', ['init', '-y'], { cwd: installDir });
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--engine-strict', join(work, info.filename)],
    { cwd: installDir, timeout: 240_000, env: userEnv() },
  );
});

after(async () => {
  for (const child of children) child.kill('SIGKILL');
  await fixtures.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  test('holds what runs and no tests, benchmarks, source maps or build info', () => {
    const stray = packed.filter((p) =>
      /^dist\/(test|bench)\/|\.map$|tsbuildinfo|^test\/|^bench\//.test(p),
    );
    assert.deepEqual(stray, []);
    for (const needed of [
      'dist/src/surfaces/cli/main.js',
      'dist/page/injected.js',
      'ui/viewer/index.html',
      'demo/login.html',
      'skill/SKILL.md',
      'skill/prompts/repair_flow.md',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
    ])
      assert.ok(packed.includes(needed), `${needed} is not in the tarball`);
  });

  test('installed into an empty directory, serve answers /health and serves the demo and viewer', async () => {
    const port = await freePort();
    const child = spawn(BIN, ['serve', '--port', String(port)], {
      cwd: installDir,
      env: userEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const base = `http://127.0.0.1:${port}`;
    let health: Response | undefined;
    for (let i = 0; i < 150 && !health; i++) {
      health = await fetch(`${base}/health`).catch(() => undefined);
      if (!health) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(health, `serve never answered /health: ${stderr}`);
    const body = (await health.json()) as { ok: boolean; version: string };
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    assert.deepEqual(body, { ok: true, version });
    assert.equal((await fetch(`${base}/demo/login.html`)).status, 200);
    assert.equal((await fetch(`${base}/viewer`)).status, 200);
    const openapi = (await (await fetch(`${base}/openapi.json`)).json()) as { openapi: string };
    assert.equal(openapi.openapi, '3.1.0');
    // The reference page's assets come from the installed swagger-ui-dist, not from a CDN.
    for (const asset of ['', 'swagger-ui-bundle.js', 'swagger-ui.css', 'init.js'])
      assert.equal((await fetch(`${base}/reference/${asset}`)).status, 200, `reference/${asset}`);
    child.kill('SIGTERM');
  });

  test('mcp from an empty directory lists the tools and reads a loopback page', async () => {
    const empty = mkdtempSync(join(work, 'empty-'));
    fixtures.setContent(
      '/package-check.html',
      '<title>Packed</title><h1>Installed from the tarball</h1>',
    );
    const client = new Client({ name: 'swiftbrowse-package-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: BIN, args: ['mcp'], cwd: empty, env: userEnv() }),
    );
    try {
      const { tools } = await client.listTools();
      assert.ok(
        tools.some((t) => t.name === 'browser_run'),
        tools.map((t) => t.name).join(', '),
      );
      const result = (await client.callTool({
        name: 'browser_run',
        arguments: {
          steps: [
            { op: 'goto', args: { url: `${fixtures.PREFIX}/package-check.html` } },
            { op: 'extract', args: { target: { css: 'h1' } } },
          ],
        },
      })) as CallToolResult;
      const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
      assert.equal(result.isError, false, text);
      assert.match(text, /Installed from the tarball/);
    } finally {
      await client.close();
    }
  });
});
