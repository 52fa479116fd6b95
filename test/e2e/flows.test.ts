// Server surface: flows: save, validate, run, report.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Hono } from 'hono';
import type { ActionResult } from '../../src/core/result.js';
import { HINT_SECTIONS } from '../../src/flows/hints.js';
import { adminFlowRoutes } from '../../src/surfaces/http/admin-flows.js';
import { loadPrompts, parsePrompt, renderPrompt } from '../../src/surfaces/mcp/prompts.js';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
let admin: Hono;
before(async () => {
  h = await startHarness();
  // The lead mounts this under /admin/flows behind the operator guard; here it is called directly.
  admin = adminFlowRoutes(h.app.runtime);
});
after(() => h.close());

const page = (path: string) => `${h.server.PREFIX}/${path}`;

type Data = Record<string, unknown>;
interface RunReport {
  status: string;
  run_id: string;
  steps_run: number;
  steps_total: number;
  steps: {
    n: number;
    id?: string;
    op: string;
    ok: boolean;
    summary: string;
    url?: string;
    error?: string;
    note?: string;
    files?: unknown[];
  }[];
  url?: string;
  returns?: Record<string, ActionResult>;
  warnings?: string[];
  params?: Data;
}
const reportOf = (r: ActionResult) => r.data as unknown as RunReport;

async function save(flow: unknown, session = 'f1') {
  return h.op('flow_save', { flow }, session);
}

function loginFlow(name = 'login') {
  return {
    name,
    description: 'Sign in to the fixture app',
    urls: [`${h.server.PREFIX}/*`],
    parameters: {
      type: 'object',
      properties: {
        email: { type: 'string', description: 'Who signs in' },
        site: { type: 'string', default: h.server.PREFIX },
      },
      required: ['email'],
    },
    steps: [
      { op: 'goto', args: { url: '${site}/login.html' } },
      {
        op: 'assert',
        args: {
          visible: { label: 'Email' },
          message: 'Already signed in — you do not need this flow.',
        },
      },
      { op: 'fill', args: { target: { label: 'Email' }, value: '${email}' } },
      { op: 'fill', args: { target: { label: 'Password' }, value: 'secret-pw' } },
      {
        id: 'submit',
        op: 'click',
        args: {
          target: { role: 'button', name: 'Sign in' },
          expect: { url_contains: 'dashboard' },
        },
        note: 'The dashboard loads after a redirect',
      },
      {
        op: 'assert',
        args: {
          text_visible: 'Welcome, ${email}',
          message: 'The dashboard did not greet the user.',
        },
      },
    ],
  };
}

describe('save, list, get, run, report', () => {
  test('a saved login flow is listed, read back and flown in one call, and report gives the verdict', async () => {
    const saved = await save(loginFlow());
    assert.equal(saved.body.ok, true, JSON.stringify(saved.body.error));
    assert.equal(saved.body.data?.created, true);
    assert.equal(saved.body.data?.library, 'f1');

    const all = await h.op('flow_list', { everywhere: true }, 'f1');
    const names = all.body.data?.flows as {
      name: string;
      parameters: { name: string; required: boolean }[];
    }[];
    const login = names.find((f) => f.name === 'login');
    assert.ok(login);
    assert.deepEqual(
      login.parameters.map((p) => [p.name, p.required]),
      [
        ['email', true],
        ['site', false],
      ],
    );

    const got = await h.op('flow_get', { name: 'login' }, 'f1');
    assert.equal((got.body.data?.flow as Data).name, 'login');
    assert.match(String(got.body.data?.yaml), /steps:/);
    assert.match(String(got.body.data?.revision), /^[0-9a-f]{16}$/);

    const run = await h.op(
      'flow_run',
      { name: 'login', params: { email: 'ada@example.com' } },
      'f1',
    );
    assert.equal(run.status, 200, JSON.stringify(run.body.error));
    const report = reportOf(run.body);
    assert.equal(report.status, 'ok');
    assert.equal(report.steps_run, 6);
    assert.equal(report.steps_total, 6);
    assert.match(report.run_id, /^f1-run-/);
    assert.equal(report.steps[0].url, page('login.html'), 'the first step says where it went');
    assert.equal(report.steps[2].url, undefined, 'a step that stayed on the page says no url');
    assert.equal(report.steps[4].id, 'submit');
    assert.equal(report.steps[4].url, page('dashboard.html'));
    assert.ok(
      !JSON.stringify(report.steps).includes('secret-pw'),
      'typed values stay out of summaries',
    );
    assert.equal(report.url, page('dashboard.html'));

    // Flows that apply here are named by status and listed without everywhere.
    const status = await h.request('/browser', { headers: { 'x-session-key': 'f1' } });
    assert.deepEqual(((await status.json()) as ActionResult).data?.flows_here, ['login']);
    await h.op('goto', { url: `${h.url}/health` }, 'f1');
    const here = await h.op('flow_list', {}, 'f1');
    assert.deepEqual(here.body.data?.flows, []);

    const verdict = await h.op('report', {}, 'f1');
    const v = verdict.body.data as Data;
    assert.equal(v.status, 'passed');
    assert.deepEqual(v.checks, { passed: 3, failed: 0 });
    assert.equal((v.runs as Data[])[0].flow, 'login');
    assert.equal((v.runs as Data[])[0].status, 'ok');
  });

  test('a parameter default is applied when not given, and a given value wins', async () => {
    const flow = {
      name: 'open-page',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', default: 'links.html' },
          wait: { type: 'integer', default: 2000 },
        },
      },
      steps: [
        { op: 'goto', args: { url: `${h.server.PREFIX}/\${path}` } },
        { op: 'wait_for', args: { url_contains: '.html', timeout: '${wait}' } },
      ],
    };
    assert.equal((await save(flow)).body.ok, true);
    const byDefault = reportOf((await h.op('flow_run', { name: 'open-page' }, 'f1')).body);
    assert.equal(byDefault.status, 'ok');
    assert.equal(byDefault.url, page('links.html'));
    assert.deepEqual(byDefault.params, { path: 'links.html', wait: 2000 });
    const given = reportOf(
      (await h.op('flow_run', { name: 'open-page', params: { path: 'dashboard.html' } }, 'f1'))
        .body,
    );
    assert.equal(given.url, page('dashboard.html'));

    const missing = await h.op('flow_run', { name: 'login' }, 'f1');
    assert.equal(missing.status, 400);
    assert.match(missing.body.error!.message, /needs the parameter "email"/);
    const unknown = await h.op(
      'flow_run',
      { name: 'login', params: { email: 'a@b.c', emial: 'x' } },
      'f1',
    );
    assert.match(unknown.body.error!.message, /no parameter "emial".*email, site/);
  });

  test('a run failing mid-way reports the step, its note, the URL, a screenshot and a hint', async () => {
    const flow = {
      name: 'sign-up',
      steps: [
        { op: 'goto', args: { url: page('login.html') } },
        { op: 'fill', args: { target: { label: 'Email' }, value: 'ada@example.com' } },
        {
          id: 'join',
          op: 'click',
          args: { target: { role: 'button', name: 'Sign up' }, timeout: 1000 },
          note: 'The sign-up button sits under the form',
        },
        { op: 'goto', args: { url: page('dashboard.html') } },
      ],
    };
    assert.equal((await save(flow)).body.ok, true);
    const run = await h.op('flow_run', { name: 'sign-up' }, 'f1');
    assert.equal(run.body.ok, false);
    assert.equal(run.status, 404, JSON.stringify(run.body.error));
    const report = reportOf(run.body);
    assert.equal(report.status, 'failed');
    assert.equal(report.steps_run, 3);
    assert.equal(report.steps[2].ok, false);
    assert.equal(report.steps[2].note, 'The sign-up button sits under the form');
    const error = run.body.error!;
    assert.equal(error.kind, 'not_found');
    assert.match(error.message, /step 3 \(id "join", click\).*login\.html/);
    assert.equal(error.details?.step, 3);
    assert.equal(error.details?.id, 'join');
    assert.equal(error.details?.note, 'The sign-up button sits under the form');
    assert.equal(error.details?.url, page('login.html'));
    assert.match(String((error.details?.screenshot as Data).name), /failure-.*\.jpg/);
    assert.equal(error.hint?.read, `skill://swiftbrowse/SKILL.md#${HINT_SECTIONS.pageChanged}`);
    assert.equal(error.hint?.prompt, 'repair_flow');
    assert.deepEqual(
      { ...error.hint?.arguments, symptom: undefined },
      { flow: 'sign-up', step: '3', symptom: undefined },
    );
    assert.ok(
      run.body.evidence?.some((e) => e.kind === 'screenshot'),
      'the screenshot is a file link',
    );
    assert.ok(!JSON.stringify(run.body).includes('base64'), 'no image bytes in a report');
  });

  test("a flow's timeout cuts the step that is running and names it, not the step after", async () => {
    h.server.setContent('/after-budget.html', '<h1>Never reached</h1>');
    const flow = (name: string, wait: Data) => ({
      name,
      timeout: 2,
      steps: [
        { op: 'goto', args: { url: page('login.html') } },
        { id: 'pause', op: 'wait_for', args: wait },
        { op: 'goto', args: { url: page('after-budget.html') } },
      ],
    });
    assert.equal((await save(flow('slow-pause', { ms: 8000 }))).body.ok, true);
    assert.equal((await save(flow('slow-text', { text_visible: 'Never shown' }))).body.ok, true);
    for (const [name, waitingFor] of [
      ['slow-pause', /wait_for \{ms: 8000\} was cut after/],
      ['slow-text', /Never shown/],
    ] as const) {
      const run = await h.op('flow_run', { name }, 'f1');
      assert.equal(run.status, 504, JSON.stringify(run.body.error));
      const error = run.body.error!;
      assert.equal(error.kind, 'timeout');
      assert.match(
        error.message,
        /ran out of its 2 s timeout during step 2 \(id "pause", wait_for\), \d+\.\d s into the run/,
      );
      assert.match(error.message, waitingFor, 'it says what the step was waiting for');
      assert.match(error.message, /raise timeout:/);
      assert.equal(error.details?.step, 2);
      assert.equal(error.details?.op, 'wait_for');
      assert.equal(error.details?.timeout_s, 2);
      const elapsed = error.details?.elapsed_ms as number;
      // Cut at the budget: the 8 s wait and the 10 s step timeout are not waited out.
      assert.ok(elapsed >= 2000 && elapsed < 6000, `elapsed ${elapsed} ms`);
      assert.equal(reportOf(run.body).steps_run, 2);
    }
    assert.ok(!h.server.requests.includes('/after-budget.html'), 'the step after never ran');
  });

  test('a fixed wait cut short by its own timeout fails instead of saying it waited', async () => {
    const r = await h.op('wait_for', { ms: 1500, timeout: 300 }, 'f1');
    assert.equal(r.status, 504);
    assert.match(
      r.body.error!.message,
      /wait_for \{ms: 1500\} was cut after \d+ ms.*timeout longer/,
    );
    assert.equal((await h.op('wait_for', { ms: 50 }, 'f1')).body.data?.waited_ms, 50);
  });

  test('on_error: continue keeps the run ok with the failed step visible', async () => {
    const flow = {
      name: 'cookie-banner',
      steps: [
        { op: 'goto', args: { url: page('login.html') } },
        {
          id: 'banner',
          op: 'click',
          args: { target: { role: 'button', name: 'Accept cookies' }, timeout: 500 },
          on_error: 'continue',
        },
        { op: 'fill', args: { target: { label: 'Email' }, value: 'x@example.com' } },
      ],
    };
    assert.equal((await save(flow, 'f2')).body.ok, true);
    const run = await h.op('flow_run', { name: 'cookie-banner' }, 'f2');
    assert.equal(run.body.ok, true);
    const report = reportOf(run.body);
    assert.equal(report.status, 'ok');
    assert.equal(report.steps_run, 3);
    assert.deepEqual(
      report.steps.map((s) => s.ok),
      [true, false, true],
    );
    assert.match(report.steps[1].error!, /Accept cookies/);
    const verdict = (await h.op('report', {}, 'f2')).body.data as Data;
    assert.equal(verdict.status, 'passed', 'a tolerated step does not fail the verdict');
    assert.equal((verdict.failed_actions as Data[])[0].tolerated, true);
  });

  test('an assert with stable_for rejects an SPA shell painted before a redirect', async () => {
    // The signed-in shell paints at once, then the auth guard sends the browser to the login page
    // (after 6 s: a Grid browser on a loaded machine can take seconds between load and first check).
    h.server.setContent(
      '/shell.html',
      `<h1>Dashboard</h1><p>Welcome back</p><script>setTimeout(() => location.replace('/login.html'), 6000)</script>`,
    );
    const flow = (stable: boolean) => ({
      name: stable ? 'guard-stable' : 'guard-racy',
      steps: [
        { op: 'goto', args: { url: page('shell.html') } },
        {
          op: 'assert',
          args: {
            text_visible: 'Welcome back',
            timeout: 10_000,
            ...(stable ? { stable_for: 8000 } : {}),
            message: 'Not signed in: run the login flow first.',
          },
        },
      ],
    });
    assert.equal((await save(flow(false), 'f3')).body.ok, true);
    assert.equal((await save(flow(true), 'f3')).body.ok, true);
    const racy = await h.op('flow_run', { name: 'guard-racy' }, 'f3');
    assert.equal(racy.body.ok, true, 'without stable_for the guard latches onto the shell');
    const stable = await h.op('flow_run', { name: 'guard-stable' }, 'f3');
    assert.equal(stable.body.ok, false);
    assert.equal(stable.body.error?.kind, 'verification_failed', stable.body.error?.message);
    assert.ok(stable.body.error?.details?.screenshot, 'a failed assert is photographed too');
    assert.match(stable.body.error!.message, /Not signed in: run the login flow first/);
    assert.equal(
      stable.body.error?.hint?.read,
      `skill://swiftbrowse/SKILL.md#${HINT_SECTIONS.assertWithMessage}`,
    );
    const verdict = (await h.op('report', {}, 'f3')).body.data as Data;
    assert.equal(verdict.status, 'failed');
    assert.ok((verdict.assertions as Data[]).some((a) => a.passed === false));
  });

  test('a JavaScript template literal is refused until written with $${, then survives the run', async () => {
    const flow = (script: string) => ({
      name: 'template',
      steps: [
        { op: 'goto', args: { url: page('links.html') } },
        { id: 'greet', op: 'evaluate', args: { script }, return: true },
      ],
    });
    const refused = await save(flow('const n = 2; return `n=${n}`;'), 'f4');
    assert.equal(refused.status, 400);
    assert.match(
      refused.body.error!.message,
      /step 2 \(id "greet", evaluate\): \$\{n\} is not a declared parameter.*\$\$\{n\}/,
    );
    assert.equal((await save(flow('const n = 2; return `n=$${n}`;'), 'f4')).body.ok, true);
    const run = reportOf((await h.op('flow_run', { name: 'template' }, 'f4')).body);
    assert.equal(run.status, 'ok');
    assert.equal(run.returns?.greet.data?.result, 'n=2');
  });
});

describe('libraries', () => {
  test('global is read-only to a session, readable and runnable by all, and your own shadows it', async () => {
    const flow = { name: 'shared', steps: [{ op: 'goto', args: { url: page('links.html') } }] };
    const asGlobal = await save(flow, 'global');
    assert.equal(asGlobal.status, 403);
    assert.match(asGlobal.body.error!.message, /Name your session/);
    assert.match(asGlobal.body.error!.message, /ask an operator/);
    const anonymous = await h.request('/flows/shared', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(flow),
    });
    assert.equal(anonymous.status, 403);

    const put = await admin.request('/global/shared', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(flow),
    });
    assert.equal(put.status, 201);
    const list = (await (await h.request('/flows')).json()) as {
      library: string;
      flows: { name: string }[];
    };
    assert.equal(list.library, 'global');
    assert.ok(list.flows.some((f) => f.name === 'shared'));
    const run = await h.op('flow_run', { name: 'shared' }, 'g1');
    assert.equal(run.body.ok, true);
    assert.equal(reportOf(run.body).url, page('links.html'));
    const del = await h.op('flow_delete', { name: 'shared' }, 'g1');
    assert.equal(del.body.error?.kind, 'not_found');
    assert.match(del.body.error!.message, /only an operator/);

    const mine = { name: 'shared', steps: [{ op: 'goto', args: { url: page('dashboard.html') } }] };
    assert.equal((await save(mine, 'g1')).body.ok, true);
    const listed = (await h.op('flow_list', { everywhere: true }, 'g1')).body.data?.flows as Data[];
    assert.deepEqual(
      listed.filter((f) => f.name === 'shared').map((f) => [f.library, f.shadows_global]),
      [['g1', true]],
    );
    assert.equal(
      reportOf((await h.op('flow_run', { name: 'shared' }, 'g1')).body).url,
      page('dashboard.html'),
    );

    // The operator moves a session's flow to global and back.
    const moved = await admin.request('/g1/shared/move', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'global', replace: true }),
    });
    assert.equal(moved.status, 200);
    assert.equal(
      reportOf((await h.op('flow_run', { name: 'shared' }, 'g2')).body).url,
      page('dashboard.html'),
    );
  });

  test('GET /flows?url= lists the flows flow_list shows on that page; a bad url or parameter is refused', async () => {
    const at = (urls: string[] | undefined, name: string) => ({
      name,
      ...(urls ? { urls } : {}),
      steps: [{ op: 'goto', args: { url: page('links.html') } }],
    });
    for (const flow of [
      at([`${h.server.PREFIX}/*`], 'on-fixtures'),
      at(['https://elsewhere.example/*'], 'on-elsewhere'),
      at(undefined, 'on-any-page'),
    ])
      assert.equal((await save(flow, 'pages')).body.ok, true);
    assert.equal((await h.op('goto', { url: page('login.html') }, 'pages')).body.ok, true);
    const here = (await h.op('flow_list', {}, 'pages')).body.data!;
    const names = (body: Data) => (body.flows as { name: string }[]).map((f) => f.name);
    const get = (query: string) =>
      h.request(`/flows${query}`, { headers: { 'x-session-key': 'pages' } });

    const r = await get(`?url=${encodeURIComponent(page('login.html'))}`);
    assert.equal(r.status, 200);
    const listed = (await r.json()) as Data;
    assert.deepEqual(listed, { library: 'pages', ...here });
    assert.ok(names(listed).includes('on-fixtures') && names(listed).includes('on-any-page'));
    assert.ok(!names(listed).includes('on-elsewhere'));
    const away = (await (await get('?url=https://elsewhere.example/a')).json()) as Data;
    assert.ok(names(away).includes('on-elsewhere') && !names(away).includes('on-fixtures'));
    assert.ok(names((await (await get('')).json()) as Data).includes('on-elsewhere'));

    for (const [query, said] of [
      [
        '?url=elsewhere.example/a',
        /url: expected the page's whole URL.*got "elsewhere\.example\/a"/,
      ],
      ['?url=', /url: expected the page's whole URL/],
      ['?page=x', /unknown argument "page" — GET \/flows takes session, url/],
    ] as const) {
      const refused = await get(query);
      const body = (await refused.json()) as ActionResult;
      assert.equal(refused.status, 400, query);
      assert.equal(body.error?.kind, 'invalid_argument');
      assert.match(body.error!.message, said);
    }
  });

  test('a hand-edited invalid file is refused at run, naming the step', async () => {
    const dir = join(h.dataDir, 'flows', 'f5');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'edited.yaml'),
      `name: edited\nsteps:\n  - op: goto\n    args: {url: "${page('links.html')}"}\n  - id: check\n    op: assert\n    args: {text_visible: Links}\n    on_error: continue\n`,
    );
    const run = await h.op('flow_run', { name: 'edited' }, 'f5');
    assert.equal(run.status, 400);
    assert.match(run.body.error!.message, /edited by hand/);
    assert.match(
      run.body.error!.message,
      /step 2 \(id "check", assert\): an assert cannot be on_error: continue/,
    );
    assert.equal(run.body.data, undefined, 'nothing ran');
  });

  test('a flow body that is not JSON says so and that YAML is taken too; nothing is saved', async () => {
    const bad = await h.request('/flows/broken', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-session-key': 'f7' },
      body: '{"name": "broken", steps: []}',
    });
    assert.equal(bad.status, 400);
    const body = (await bad.json()) as { error: { kind: string; message: string } };
    assert.equal(body.error.kind, 'invalid_argument');
    assert.match(
      body.error.message,
      /not valid JSON \(.+\)\. .*YAML text with content-type: application\/yaml/,
    );
    const read = await h.request('/flows/broken', { headers: { 'x-session-key': 'f7' } });
    assert.equal(read.status, 404);
  });

  test('YAML text keeps its comments, and two PUTs with the same If-Match: one wins, one gets 412', async () => {
    const yaml = (target: string) =>
      `# Opens the links page.\nname: edit-me\nsteps:\n  # Always start where the flow acts.\n  - op: goto\n    args: {url: "${page(target)}"}\n`;
    const headers = { 'content-type': 'application/yaml', 'x-session-key': 'f6' };
    const created = await h.request('/flows/edit-me', {
      method: 'PUT',
      headers,
      body: yaml('links.html'),
    });
    assert.equal(created.status, 201);
    const etag = created.headers.get('etag')!;
    const text = await (
      await h.request('/flows/edit-me', {
        headers: { 'x-session-key': 'f6', accept: 'application/yaml' },
      })
    ).text();
    assert.match(text, /# Always start where the flow acts\./);

    const [a, b] = await Promise.all([
      h.request('/flows/edit-me', {
        method: 'PUT',
        headers: { ...headers, 'if-match': etag },
        body: yaml('dashboard.html'),
      }),
      h.request('/flows/edit-me', {
        method: 'PUT',
        headers: { ...headers, 'if-match': etag },
        body: yaml('login.html'),
      }),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 412]);
    const loser = (await (a.status === 412 ? a : b).json()) as ActionResult;
    assert.equal(loser.error?.kind, 'conflict');
    assert.match(loser.error!.message, /changed since you read it/);
  });
});

describe('validation', () => {
  const refusal = async (flow: unknown) => {
    const r = await save(flow, 'v1');
    assert.equal(r.status, 400, JSON.stringify(r.body));
    return r.body.error!.message;
  };
  const goto = { op: 'goto', args: { url: 'http://127.0.0.1/' } };

  test('a flow calling flow_run is refused at save, saying what to do instead', async () => {
    const message = await refusal({
      name: 'nested',
      steps: [goto, { id: 'inner', op: 'flow_run', args: { name: 'login' } }],
    });
    assert.match(
      message,
      /step 2 \(id "inner", flow_run\): flow_run is not a step: a flow does not call flows.*Copy the steps/,
    );
  });

  test('each refusal names the step and what to write instead', async () => {
    assert.match(
      await refusal({ name: 'a', steps: [goto, { op: 'clik', args: {} }] }),
      /step 2 \(clik\): unknown op "clik". A step calls one of: .*click/,
    );
    assert.match(
      await refusal({
        name: 'a',
        steps: [goto, { op: 'click', args: { target: { ref: 'AEDBa' } } }],
      }),
      /step 2 \(click\): ref "AEDBa" dies with the page.*role and name/,
    );
    assert.match(
      await refusal({
        name: 'a',
        steps: [goto, { op: 'click', args: { target: { role: 'button' }, expct: {} } }],
      }),
      /step 2 \(click\): click: unknown argument "expct"/,
    );
    assert.match(
      await refusal({ name: 'a', steps: [goto, { op: 'fill', args: { value: 'x' } }] }),
      /step 2 \(fill\): fill: missing target/,
    );
    assert.match(
      await refusal({ name: 'a', steps: [goto, { op: 'outline' }] }),
      /outline is for building a flow/,
    );
    assert.match(
      await refusal({ name: 'a', steps: [{ op: 'open' }, goto] }),
      /step 1 \(open\): open is not a step/,
    );
    assert.match(
      await refusal({ name: 'a', steps: [goto, { op: 'goto', args: { url: '${site}' } }] }),
      /\$\{site\} is not a declared parameter/,
    );
    assert.match(
      await refusal({
        name: 'a',
        parameters: { type: 'object', properties: { which: { type: 'string' } } },
        steps: [
          goto,
          {
            op: 'fill',
            args: { target: { label: 'Password' }, secret: { name: '${which}', key: 'password' } },
          },
        ],
      }),
      /a secret is never a parameter/,
    );
    assert.match(
      await refusal({ name: 'a', timeout: '2m', steps: [goto] }),
      /timeout "2m" is not a number of seconds: write a whole number/,
    );
    assert.match(
      await refusal({ name: 'a', urls: ['admin.example.com/*'], steps: [goto] }),
      /urls\[0\] "admin.example.com\/\*" is not a URL glob: write the whole URL with its scheme, e.g. "https:\/\/admin.example.com\/\*"/,
    );
    assert.match(
      await refusal({ name: 'a', steps: [goto, { tool: 'click' }] }),
      /unknown step key "tool"/,
    );
    assert.match(
      await refusal({ name: 'a', steps: [goto, { op: 'snapshot' }] }),
      /add return: true/,
    );
    assert.match(
      await refusal({ name: '../escape', steps: [goto] }),
      /Invalid flow name "..\/escape"/,
    );
  });

  test('save warns when the first step neither navigates nor asserts, and about a parameter no step reads', async () => {
    const r = await save(
      {
        name: 'warned',
        parameters: { type: 'object', properties: { unused: { type: 'string' } } },
        steps: [{ op: 'click', args: { target: { text: 'Go' } } }],
      },
      'v1',
    );
    assert.equal(r.body.ok, true);
    const warnings = r.body.data?.warnings as string[];
    assert.match(warnings[0], /step 1 \(click\) neither navigates nor asserts/);
    assert.match(warnings[1], /parameter "unused" is read by no step/);
  });

  test('the published flow schema is derived from the op schemas with no dangling $ref', async () => {
    const schema = (await (await h.request('/schemas/flow')).json()) as Data;
    const steps = (
      (schema.properties as Data).steps as {
        items: { oneOf: { properties: { op: { const: string } } }[] };
      }
    ).items.oneOf;
    const ops = steps.map((s) => s.properties.op.const);
    assert.ok(ops.includes('click') && ops.includes('assert') && ops.includes('goto'));
    for (const not of ['open', 'flow_run', 'batch', 'report', 'outline'])
      assert.ok(!ops.includes(not), not);
    const text = JSON.stringify(schema);
    for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) {
      const path = ref.replace(/^#\//, '').split('/');
      let node: unknown = schema;
      for (const p of path) node = (node as Data | undefined)?.[p];
      assert.ok(node, `${ref} resolves`);
    }
  });
});

describe('prompts and hints', () => {
  test('every shipped prompt loads, and an undeclared placeholder is an error', () => {
    const prompts = loadPrompts();
    assert.deepEqual([...prompts.keys()].sort(), ['build_flow', 'repair_flow']);
    const repair = renderPrompt(prompts.get('repair_flow')!, { flow: 'login', step: '3' });
    const text = (repair.messages[0].content as { text: string }).text;
    assert.match(text, /"login" fails at step 3/);
    const bare = renderPrompt(prompts.get('repair_flow')!, { flow: 'login' });
    const bareText = (bare.messages[0].content as { text: string }).text;
    assert.match(
      bareText,
      /"login" fails at step \(the one the last run stopped at: see its report\)\./,
    );
    assert.doesNotMatch(bareText, /step the step/);
    assert.throws(() => renderPrompt(prompts.get('build_flow')!, { task: 'x' }), /needs url/);
    assert.throws(
      () =>
        parsePrompt(
          'bad.md',
          '---\nname: bad\ndescription: d\narguments: []\n---\nHello {{ who }} and ${flow}',
        ),
      /\{\{ who \}\} is not a declared argument/,
    );
  });

  test('every hint points at a section the guide has', () => {
    const guide = readFileSync(
      fileURLToPath(new URL('../../../skill/SKILL.md', import.meta.url)),
      'utf8',
    );
    const slugs = [...guide.matchAll(/^#+ (.+)$/gm)].map(([, t]) =>
      t
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .trim()
        .replace(/ +/g, '-'),
    );
    for (const section of Object.values(HINT_SECTIONS)) assert.ok(slugs.includes(section), section);
  });
});
