// Server surface: swiftbrowse test and its reports.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
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

interface CliRun {
  code: number;
  out: string;
  /** Each chunk of output with when it arrived, to tell a live line from one printed at the end. */
  chunks: { at: number; text: string }[];
  exitedAt: number;
}

/** When the chunk that completed the first `text` (after the first `after`, if given) arrived. */
function arrival(run: CliRun, text: string, after = ''): number {
  const from = run.out.indexOf(after);
  const at = from < 0 ? -1 : run.out.indexOf(text, from + after.length);
  if (at < 0) assert.fail(`"${text}" never came${after ? ` after "${after}"` : ''}:\n${run.out}`);
  let length = 0;
  for (const c of run.chunks) {
    length += c.text.length;
    if (length >= at + text.length) return c.at;
  }
  return run.exitedAt;
}

/** The flows directories below are relative to `work`, the CLI's working directory. */
function cli(args: string[]): Promise<CliRun> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('SWIFTBROWSE_')) env[k] = v;
  env.DATA_DIR = join(work, 'data');
  // `swiftbrowse test` drives the same backend as this arm of the suite.
  Object.assign(env, backendEnv());
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env,
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const chunks: CliRun['chunks'] = [];
    const take = (d: Buffer) => {
      out += String(d);
      chunks.push({ at: Date.now(), text: String(d) });
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code) => resolve({ code: code ?? -1, out, chunks, exitedAt: Date.now() }));
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
    assert.match(out, /1 passed, 1 failed, 1 errors, 0 flaky, 0 skipped/);
    assert.match(
      out,
      /^✓ passed +login \(\d+\.\d s\)$/m,
      'a live line per test: verdict, name, time',
    );
    assert.match(out, /^✗ failed +greeting \(\d+\.\d s\) — .*greet the user by time of day/m);

    const report = JSON.parse(readFileSync(join(reports, 'report.json'), 'utf8')) as TestRunReport;
    assert.deepEqual(report.totals, {
      tests: 3,
      passed: 1,
      failed: 1,
      errors: 1,
      flaky: 0,
      skipped: 0,
    });
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
            errored: [...d.querySelectorAll('testcase > error')].map(f => f.parentNode.getAttribute('name')),
            classnames: [...d.querySelectorAll('testcase')].map(c => c.getAttribute('classname')).sort(),
            out: Object.fromEntries([...d.querySelectorAll('testcase')].map(c => [c.getAttribute('name'), c.querySelector('system-out')?.textContent ?? ''])) };`,
        arg: xml,
      },
      'x1',
    );
    const junit = parsed.body.data?.result as { out: Record<string, string> } & Record<
      string,
      unknown
    >;
    const { out: systemOut, ...counts } = junit;
    assert.deepEqual(counts, {
      tests: '3',
      failures: '1',
      errors: '1',
      cases: 3,
      failed: ['greeting'],
      errored: ['broken'],
      // The path without its extension, directories as dots: Jenkins' package › class.
      classnames: ['flows.broken', 'flows.login', 'flows.more.greeting'],
    });
    const attachment = /\[\[ATTACHMENT\|([^\]]+)\]\]/.exec(systemOut.greeting);
    assert.ok(
      attachment,
      `the screenshot is an attachment CI plugins read:\n${systemOut.greeting}`,
    );
    assert.ok(isAbsolute(attachment[1]), attachment[1]);
    assert.equal(
      readFileSync(attachment[1]).subarray(0, 2).toString('hex'),
      'ffd8',
      'the attachment is the JPEG beside the report',
    );

    const html = readFileSync(join(reports, 'report.html'), 'utf8');
    assert.match(html, /1 passed, 1 failed, 1 errors/);
    assert.match(
      html,
      /<table class="totals">.*<th>Passed<\/th><td>1<\/td>.*<th>Failed<\/th><td>1<\/td>.*<th>Flaky<\/th><td>0<\/td>.*<th>Skipped<\/th><td>0<\/td>.*<th>Total time<\/th><td>[\d.]+ s<\/td>/s,
    );
    // Failures first, whatever the file order; a passed test is folded away.
    const order = ['greeting', 'broken', 'login'].map((n) => html.indexOf(`</span> ${n} <small>`));
    assert.ok(
      order.every((i) => i > 0) && order[0] < order[2] && order[1] < order[2],
      String(order),
    );
    assert.match(
      html,
      /<details class="test passed"><summary><span class="badge">passed<\/span> login /,
    );
    assert.match(
      html,
      /<section class="test failed">\n<h3><span class="badge">failed<\/span> greeting /,
    );
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

  test('prints each test as it ends and, with --verbose, each step as it ends; --grep picks the tests', async () => {
    const dir = join(work, 'live');
    mkdirSync(dir, { recursive: true });
    const goto = `  - op: goto\n    args: {url: "${h.server.PREFIX}/links.html"}\n`;
    writeFileSync(join(dir, 'a-fast.yaml'), `name: fast\nsteps:\n${goto}`);
    writeFileSync(
      join(dir, 'b-slow.yaml'),
      `name: slow\nsteps:\n${goto}  - id: pause\n    op: wait_for\n    args: {ms: 2500}\n${goto}`,
    );
    writeFileSync(join(dir, 'c-other.yaml'), `name: other\nsteps:\n${goto}`);

    const run = await cli([
      'test',
      'live',
      '--grep',
      '^(fast|slow)$',
      '--verbose',
      '--workers',
      '1',
      '--report-dir',
      'live-report',
    ]);
    assert.equal(run.code, 0, run.out);
    assert.doesNotMatch(run.out, /other/, '--grep left it out');
    assert.match(
      run.out,
      /▸ slow \(live\/b-slow\.yaml\)\n {4}✓ step 1: goto \(\d+\.\d s\)\n {4}✓ step 2 pause: wait_for \(\d+\.\d s\)\n {4}✓ step 3: goto \(\d+\.\d s\)\n✓ passed +slow \(\d+\.\d s\)/,
    );
    // Lines come as things happen, not when the run is over: the slow test waits 2.5 s.
    assert.ok(run.exitedAt - arrival(run, 'passed  fast') >= 1500, 'the first test line is live');
    // Step 2 waits 2.5 s: its line comes that much after step 1's, not with the test's line.
    const slowStart = arrival(run, 'step 1: goto', '▸ slow');
    assert.ok(
      arrival(run, 'step 2 pause', '▸ slow') - slowStart >= 1500,
      'step lines are printed as each step ends',
    );
    // Step 1's line comes before the 2.5 s wait ends, however long the test's browser took to open.
    assert.ok(
      arrival(run, 'passed  slow') - slowStart >= 1500,
      "the slow test's first step is printed before it ends",
    );
    const report = JSON.parse(
      readFileSync(join(work, 'live-report', 'report.json'), 'utf8'),
    ) as TestRunReport;
    assert.deepEqual(
      report.tests.map((t) => t.name),
      ['fast', 'slow'],
    );

    const none = await cli(['test', 'live', '--grep', 'checkout', '--report-dir', 'none-report']);
    assert.equal(none.code, 2, none.out);
    assert.match(
      none.out,
      /--grep checkout matches none of the 3 tests \(names: fast, slow, other\)/,
    );
    assert.ok(!existsSync(join(work, 'none-report')), 'no empty report pretends a run happened');
  });

  test('--retries reports a test that passes on a retry as flaky; --bail stops at the first failure', async () => {
    const visits = new Map<string, number>();
    h.server.setRoute('/visits', (req, res) => {
      const key = new URL(req.url ?? '/', 'http://x').searchParams.get('key') ?? '';
      visits.set(key, (visits.get(key) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>Visits</title><p>visit ${visits.get(key)}</p>`);
    });
    const dir = join(work, 'flaky');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'second-visit.yaml'),
      `name: second-visit\nsteps:\n  - op: goto\n    args: {url: "${h.server.PREFIX}/visits?key=${Date.now()}"}\n  - op: assert\n    args: {text_visible: visit 2, timeout: 300, message: Only the second visit passes.}\n`,
    );
    const flaky = await cli(['test', 'flaky', '--retries', '2', '--report-dir', 'flaky-report']);
    assert.equal(flaky.code, 0, `a flaky test passed in the end:\n${flaky.out}`);
    assert.match(flaky.out, /↻ second-visit: attempt 1 failed, retrying \(1\/2\)/);
    assert.match(
      flaky.out,
      /^~ flaky +second-visit \(\d+\.\d s\) — passed on attempt 2; attempt 1: .*Only the second visit passes/m,
    );
    assert.match(flaky.out, /0 passed, 0 failed, 0 errors, 1 flaky, 0 skipped/);
    const flakyReport = JSON.parse(
      readFileSync(join(work, 'flaky-report', 'report.json'), 'utf8'),
    ) as TestRunReport;
    assert.equal(flakyReport.tests[0].status, 'flaky');
    assert.equal(flakyReport.tests[0].attempts, 2);
    assert.equal(flakyReport.totals.flaky, 1);
    const junit = readFileSync(join(work, 'flaky-report', 'junit.xml'), 'utf8');
    assert.match(junit, /<flakyFailure message="[^"]*Only the second visit passes/);
    assert.doesNotMatch(junit, /<failure /, 'a flaky test is not a failure');
    assert.match(junit, /flaky: passed on attempt 2/);
    const html = readFileSync(join(work, 'flaky-report', 'report.html'), 'utf8');
    assert.match(html, /<th>Flaky<\/th><td>1<\/td>/);
    assert.match(html, /<span class="badge">flaky<\/span> second-visit/);

    const bail = join(work, 'bail');
    mkdirSync(bail, { recursive: true });
    const goto = `  - op: goto\n    args: {url: "${h.server.PREFIX}/links.html"}\n`;
    writeFileSync(
      join(bail, 'a-fails.yaml'),
      `name: fails\nsteps:\n${goto}  - op: assert\n    args: {text_visible: No such text, timeout: 200, message: Meant to fail.}\n`,
    );
    writeFileSync(join(bail, 'b-never.yaml'), `name: never\nsteps:\n${goto}`);
    writeFileSync(join(bail, 'c-never.yaml'), `name: never-either\nsteps:\n${goto}`);
    const stopped = await cli([
      'test',
      'bail',
      '--bail',
      '--workers',
      '1',
      '--report-dir',
      'bail-report',
    ]);
    assert.equal(stopped.code, 1, stopped.out);
    assert.match(
      stopped.out,
      /^- skipped +never \(0\.0 s\) — Not run: --bail stopped the run after "fails" failed\.$/m,
    );
    assert.match(stopped.out, /0 passed, 1 failed, 0 errors, 0 flaky, 2 skipped/);
    const bailReport = JSON.parse(
      readFileSync(join(work, 'bail-report', 'report.json'), 'utf8'),
    ) as TestRunReport;
    assert.deepEqual(
      bailReport.tests.map((t) => [t.name, t.status]),
      [
        ['fails', 'failed'],
        ['never', 'skipped'],
        ['never-either', 'skipped'],
      ],
    );
    const bailJunit = readFileSync(join(work, 'bail-report', 'junit.xml'), 'utf8');
    assert.match(
      bailJunit,
      /<testsuite name="swiftbrowse flows" tests="3" failures="1" errors="0" skipped="2"/,
    );
    assert.equal(bailJunit.match(/<skipped message=/g)?.length, 2);
  });

  test('a path that is not there is named, with what was expected', async () => {
    const missing = await cli(['test', 'no-such-flows', '--report-dir', 'x-report']);
    assert.equal(missing.code, 2, missing.out);
    assert.match(
      missing.out,
      /^no-such-flows: no such file or directory \(looked for .*no-such-flows\)\. swiftbrowse test takes flow files \(\.yaml, \.yml\) or directories holding them/m,
    );
    assert.doesNotMatch(missing.out, /ENOENT|at .*\.js:\d+/);
    writeFileSync(join(work, 'notes.txt'), 'hello');
    const wrong = await cli(['test', 'notes.txt']);
    assert.equal(wrong.code, 2, wrong.out);
    assert.match(
      wrong.out,
      /notes\.txt is not a flow file: swiftbrowse test takes \.yaml or \.yml files/,
    );
    mkdirSync(join(work, 'empty'), { recursive: true });
    const params = await cli(['test', 'live', '--params', 'missing-params.yaml']);
    assert.equal(params.code, 2, params.out);
    assert.match(params.out, /--params missing-params\.yaml: no such file \(looked for /);
    assert.doesNotMatch(params.out, /ENOENT/);
  });

  test('no report quotes a js assert: the run report, the report op, report.json, report.html, JUnit', async () => {
    const LITERAL = 'LITERAL-7f3a9c';
    const steps = `steps:\n  - op: goto\n    args: {url: "${h.server.PREFIX}/links.html"}\n  - op: assert\n    args: {js: "return document.title !== '${LITERAL}'", message: The title is set.}\n  - op: click\n    args: {target: {role: link, name: Dashboard}, expect: {js: "return location.href.includes('${LITERAL}')"}, timeout: 300}\n`;
    const dir = join(work, 'scripts');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'scripted.yaml'), `name: scripted\n${steps}`);
    writeFileSync(
      join(dir, 'failing-js.yaml'),
      `name: failing-js\nsteps:\n  - op: goto\n    args: {url: "${h.server.PREFIX}/links.html"}\n  - op: assert\n    args: {js: "return '${LITERAL}' === 'x'", timeout: 200, message: The widget must be ready.}\n`,
    );
    const run = await cli(['test', 'scripts', '--verbose', '--report-dir', 'scripts-report']);
    assert.equal(run.code, 1, run.out);
    assert.match(run.out, /failing-js .*The widget must be ready/, "the author's message is shown");
    assert.ok(!run.out.includes(LITERAL), run.out);
    for (const file of ['report.json', 'report.html', 'junit.xml']) {
      const text = readFileSync(join(work, 'scripts-report', file), 'utf8');
      assert.ok(!text.includes(LITERAL), `${file} quotes the script`);
    }
    const json = readFileSync(join(work, 'scripts-report', 'report.json'), 'utf8');
    assert.match(json, /"type": "js"/, 'the check is listed, without its script');
    assert.match(json, /The widget must be ready/);

    // The run report and the report op, read straight from the server.
    const session = 'js-report';
    const flowRun = await h.op('flow_run', { document: `name: scripted\n${steps}` }, session);
    assert.equal(flowRun.body.ok, false, JSON.stringify(flowRun.body).slice(0, 500));
    assert.ok(!JSON.stringify(flowRun.body).includes(LITERAL), JSON.stringify(flowRun.body));
    const verdict = await h.op('report', {}, session);
    assert.ok((verdict.body.data?.assertions as unknown[]).length >= 2);
    assert.ok(!JSON.stringify(verdict.body).includes(LITERAL), JSON.stringify(verdict.body));
  });
});
