import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { TestRunReport } from '../../src/flows/test-report.js';
import { backendEnv } from '../helpers/backend.js';
import { startHarness, type Harness } from '../helpers/harness.js';

const MAIN = fileURLToPath(new URL('../../src/surfaces/cli/main.js', import.meta.url));

let h: Harness;
const work = mkdtempSync(join(tmpdir(), 'swiftbrowse-runner-'));
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h.close();
  rmSync(work, { recursive: true, force: true });
});

function cli(args: string[]): Promise<{ code: number; out: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('SWIFTBROWSE_')) env[k] = v;
  env.DATA_DIR = join(work, 'data');
  // `swiftbrowse test` drives the same backend as this arm of the suite.
  Object.assign(env, backendEnv());
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    child.on('exit', (code) => resolve({ code: code ?? -1, out }));
  });
}

describe('swiftbrowse test', () => {
  test('runs a directory of flows in parallel sessions and writes JSON, JUnit XML and HTML that count right', async () => {
    const flows = join(work, 'flows');
    mkdirSync(join(flows, 'more'), { recursive: true });
    const head = `parameters:\n  type: object\n  properties: {site: {type: string}}\n  required: [site]\n`;
    writeFileSync(
      join(flows, 'login.yaml'),
      `name: login\n${head}steps:\n  - op: goto\n    args: {url: "\${site}/login.html"}\n  - op: fill\n    args: {target: {label: Email}, value: ada@example.com}\n  - op: fill\n    args: {target: {label: Password}, value: pw}\n  - op: click\n    args: {target: {role: button, name: Sign in}, expect: {url_contains: dashboard}}\n`,
    );
    writeFileSync(
      join(flows, 'more', 'greeting.yaml'),
      `name: greeting\n${head}steps:\n  - op: goto\n    args: {url: "\${site}/dashboard.html"}\n  - id: hello\n    op: assert\n    args: {text_visible: "Good morning", timeout: 500, message: The dashboard must greet the user by time of day.}\n    note: Greeting added in release 2\n`,
    );
    writeFileSync(join(flows, 'broken.yml'), `name: broken\nsteps:\n  - op: teleport\n`);
    writeFileSync(join(work, 'params.yaml'), `site: ${h.server.PREFIX}\n`);
    const reports = join(work, 'report');

    const { code, out } = await cli([
      'test',
      flows,
      '--params',
      join(work, 'params.yaml'),
      '--workers',
      '2',
      '--report-dir',
      reports,
    ]);
    assert.equal(code, 1, out);
    assert.match(out, /1 passed, 1 failed, 1 errors/);

    const report = JSON.parse(readFileSync(join(reports, 'report.json'), 'utf8')) as TestRunReport;
    assert.deepEqual(report.totals, { tests: 3, passed: 1, failed: 1, errors: 1 });
    const byName = Object.fromEntries(report.tests.map((t) => [t.name, t]));
    assert.equal(byName.login.status, 'passed');
    assert.equal(byName.login.steps.length, 4);
    assert.ok(
      byName.login.assertions.some((a) => a.passed),
      'the expect check is in the report',
    );
    assert.equal(byName.greeting.status, 'failed');
    assert.equal(byName.greeting.error?.step, 2);
    assert.equal(byName.greeting.error?.note, 'Greeting added in release 2');
    assert.match(byName.greeting.error!.message, /greet the user by time of day/);
    assert.ok(
      byName.greeting.screenshot?.file,
      'the failure screenshot is a file beside the report',
    );
    assert.equal(byName.broken.status, 'error');
    assert.match(byName.broken.error!.message, /unknown op "teleport"/);
    assert.notEqual(byName.login.session, byName.greeting.session, 'each test has its own session');

    // The JUnit file is read by a real XML parser: the browser's.
    const xml = readFileSync(join(reports, 'junit.xml'), 'utf8');
    await h.op('goto', { url: `${h.server.PREFIX}/links.html` }, 'x1');
    const parsed = await h.op(
      'evaluate',
      {
        script: `const d = new DOMParser().parseFromString(arg, 'application/xml');
          if (d.querySelector('parsererror')) return 'parse error';
          const s = d.querySelector('testsuite');
          return { tests: s.getAttribute('tests'), failures: s.getAttribute('failures'), errors: s.getAttribute('errors'),
            cases: d.querySelectorAll('testcase').length, failed: [...d.querySelectorAll('testcase > failure')].map(f => f.parentNode.getAttribute('name')),
            errored: [...d.querySelectorAll('testcase > error')].map(f => f.parentNode.getAttribute('name')) };`,
        arg: xml,
      },
      'x1',
    );
    assert.deepEqual(parsed.body.data?.result, {
      tests: '3',
      failures: '1',
      errors: '1',
      cases: 3,
      failed: ['greeting'],
      errored: ['broken'],
    });

    const html = readFileSync(join(reports, 'report.html'), 'utf8');
    assert.match(html, /1 passed, 1 failed, 1 errors/);
    assert.match(html, /<img alt="Screenshot at the failure" src="data:image\/jpeg;base64,/);
    assert.match(html, /Greeting added in release 2/);
    assert.ok(!/<link|<script src/.test(html), 'self-contained');
  });

  test('exits 0 when every test passes', async () => {
    const dir = join(work, 'green');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'links.yaml'),
      `name: links\nsteps:\n  - op: goto\n    args: {url: "${h.server.PREFIX}/links.html"}\n`,
    );
    const { code, out } = await cli(['test', dir, '--report-dir', join(work, 'green-report')]);
    assert.equal(code, 0, out);
  });
});
