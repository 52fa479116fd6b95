// Server surface: the log viewer.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, afterEach, before, describe, test } from 'node:test';
import type { LogPage, LogSummary } from '../../src/logs/log-reader.js';
import { PACKAGE_ROOT } from '../../src/package-root.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pageValue } from '../helpers/page.js';

// The viewer is driven in a real browser by SwiftBrowse itself, in a session of its own.
const V = 'viewer';
const MAIN = fileURLToPath(new URL('../../src/surfaces/cli/main.js', import.meta.url));

interface RunShown {
  flow: string;
  verdict: string;
  header: string;
  rows: string[];
  outside: number;
  summary: string;
  listed: string;
}

let h: Harness;
before(async () => {
  h = await startHarness();
  h.server.setContent('/app.html', `<title>App</title><button id=noop>Nothing</button>`);
});
afterEach(() => h.closeBrowsers());
after(() => h.close());

const page = () => `${h.server.PREFIX}/app.html`;

async function ok(name: string, args: unknown, session: string) {
  const r = await h.op(name, args, session);
  assert.equal(r.body.ok, true, `${name}: ${JSON.stringify(r.body.error)}`);
  return r.body;
}

async function openViewer(query = '') {
  await h.app.runtime.logs!.flush();
  await ok('goto', { url: `${h.url}/viewer${query}` }, V);
  await ok('assert', { visible: { css: 'body[data-loaded]' }, timeout: 5000 }, V);
}

const viewerValue = (script: string) => pageValue(h, script, V);
const title = () => viewerValue("document.querySelector('#title').textContent");

/** Presses Tab until the focus is on the session's button; false when it never gets there. */
async function tabTo(session: string): Promise<boolean> {
  for (let i = 0; i < 12; i++) {
    await ok('press', { key: 'Tab' }, V);
    if ((await viewerValue('document.activeElement.dataset.session')) === session) return true;
  }
  return false;
}

describe('the viewer', () => {
  test('opens a session from the keyboard alone, with the focus visible', async () => {
    await ok('goto', { url: page() }, 'kb-one');
    await ok('goto', { url: page() }, 'kb-two');
    await openViewer();
    assert.equal(await tabTo('kb-one'), true, 'Tab never reached the session kb-one');
    const ring = (await viewerValue(
      `(() => { const s = getComputedStyle(document.activeElement);
        return { tag: document.activeElement.tagName, style: s.outlineStyle, width: s.outlineWidth }; })()`,
    )) as { tag: string; style: string; width: string };
    assert.equal(ring.tag, 'BUTTON');
    assert.notEqual(ring.style, 'none', 'the focused session shows no focus ring');
    assert.equal(ring.width, '3px');
    await ok('press', { key: 'Enter' }, V);
    await ok('assert', { url_contains: 'session=kb-one', timeout: 5000 }, V);
    assert.equal(await title(), 'kb-one');
    await ok('press', { key: 'ArrowUp' }, V);
    await ok('press', { key: 'Space' }, V);
    await ok('assert', { url_contains: 'session=kb-two', timeout: 5000 }, V);
    assert.equal(await title(), 'kb-two');
  });

  test('groups a flow run under a header with its verdict; a tolerated failure is no error', async () => {
    const s = 'flowed';
    const flow = {
      name: 'tolerant',
      description: 'Clicks a button that may be missing',
      urls: [`${h.server.PREFIX}/*`],
      steps: [
        { id: 'open', op: 'goto', args: { url: page() } },
        {
          id: 'banner',
          op: 'click',
          args: { target: { css: '#cookie-banner' }, timeout: 300 },
          on_error: 'continue',
        },
        { id: 'press', op: 'click', args: { target: { css: '#noop' } } },
      ],
    };
    const run = await ok('flow_run', { document: flow }, s);
    assert.equal((run.data as { status: string }).status, 'ok');
    await openViewer(`?session=${s}`);
    await ok('assert', { visible: { css: 'li.run summary' }, timeout: 5000 }, V);
    const shown = (await viewerValue(
      `(() => {
        const run = document.querySelector('#timeline li.run');
        return {
          flow: run.dataset.flow,
          verdict: run.dataset.verdict,
          header: run.querySelector('summary').textContent,
          rows: [...run.querySelectorAll('li.row')].map((r) => r.dataset.op + ':' + r.className),
          outside: document.querySelectorAll('#timeline > li.row').length,
          summary: document.querySelector('#summary').textContent,
          listed: document.querySelector('#sessions [aria-current=true]').textContent,
        };
      })()`,
    )) as RunShown;
    assert.equal(shown.flow, 'tolerant');
    assert.equal(shown.verdict, 'passed');
    assert.match(shown.header, /Flow tolerant · passed · 3 steps · 0 errors · 1 tolerated/);
    assert.deepEqual(shown.rows, ['goto:row', 'click:row tolerated', 'click:row', 'flow_run:row']);
    assert.equal(shown.outside, 0, 'every line of the run sits under its header');
    assert.match(shown.summary, /^4 ops · 0 errors · 1 tolerated/);
    assert.match(shown.listed, /0 errors/);

    await ok('click', { target: { css: 'li.run summary' } }, V);
    const hidden = await h.op('assert', { hidden: { css: 'li.run li.row' }, timeout: 2000 }, V);
    assert.equal(hidden.body.ok, true, 'collapsing the run hides its steps');

    // The server counts by the same rule: the summary, the page and the CLI.
    const listed = (await (await h.request('/logs')).json()) as { sessions: LogSummary[] };
    assert.equal(listed.sessions.find((x) => x.session === s)?.errors, 0);
    const logPage = (await (await h.request(`/logs/${s}`)).json()) as LogPage;
    assert.equal(logPage.errors, 0);
    assert.deepEqual(logPage.events[1].run, {
      id: (run.data as { run_id: string }).run_id,
      flow: 'tolerant',
      step: 2,
      step_id: 'banner',
      tolerated: true,
    });
    const errorsOnly = (await (await h.request(`/logs/${s}?errors_only=true`)).json()) as LogPage;
    assert.equal(errorsOnly.matched, 0);
    const cli = await promisify(execFile)(process.execPath, [MAIN, '--server', h.url, 'logs', s]);
    assert.match(cli.stdout, /click FAIL not_found \(tolerated\) \[tolerant step banner\]/);
  });

  test('shows a new op without a reload, asking only for the lines after those it has', async () => {
    const s = 'live';
    await ok('goto', { url: page() }, s);
    await openViewer(`?session=${s}`);
    await ok('assert', { count: { css: '#timeline li.row' }, equals: 1, timeout: 5000 }, V);
    await viewerValue('window.sameDocument = true');
    await ok('click', { target: { css: '#noop' } }, s);
    const grown = await h.op(
      'assert',
      { count: { css: '#timeline li.row' }, equals: 2, timeout: 10000 },
      V,
    );
    assert.equal(grown.body.ok, true, JSON.stringify(grown.body.error));
    assert.equal(await viewerValue('window.sameDocument'), true, 'the viewer reloaded');
    const asked = (await viewerValue(
      "performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('since='))",
    )) as string[];
    assert.ok(
      asked.some((u) => /\/logs\/live\?since=1&/.test(u)),
      `no poll asked for lines after the first: ${asked.join(', ')}`,
    );
  });

  test('keeps every path relative, and /viewer/ goes to /viewer with its query', async () => {
    const moved = await h.request('/viewer/?session=live', { redirect: 'manual' });
    assert.equal(moved.status, 302);
    assert.equal(moved.headers.get('location'), '../viewer?session=live');
    const script = await h.request('/viewer/viewer.js');
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    for (const name of ['index.html', 'viewer.js']) {
      const text = readFileSync(join(PACKAGE_ROOT, 'ui', 'viewer', name), 'utf8');
      assert.doesNotMatch(text, /["'`(]\/(logs|viewer)/, `${name} names a path from the root`);
    }
    const bad = await h.request('/logs/live?since=-1');
    assert.equal(bad.status, 400);
  });
});
