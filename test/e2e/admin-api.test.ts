// Server surface: the admin API the operator console reads (issue #20): the browser record kept
// after the browser is gone, the session list with its files, flows and orphan directories,
// deleting a finished session's data and keeping a download.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserRecord } from '../../src/sessions/browser-record.js';
import { BACKEND, TEST_BROWSER } from '../helpers/backend.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { REPORT_CSV, serveReportDownload } from '../helpers/downloads.js';

interface Row {
  name: string;
  state: string;
  ended_by?: string;
  orphan: boolean;
  flows: number;
  files: number;
  kept_bytes: number;
}

const CSV = REPORT_CSV;
let h: Harness;

// A POST carries a JSON body, as the server asks of every POST so no web page can send one.
const admin = (path: string, method = 'GET') =>
  h.request(`/admin${path}`, {
    method,
    headers: { authorization: 'Bearer operator-secret', 'content-type': 'application/json' },
    body: method === 'POST' ? '{}' : undefined,
  });
const json = async <T>(path: string, method = 'GET') =>
  (await (await admin(path, method)).json()) as T;
const rowOf = async (name: string) =>
  (await json<{ sessions: Row[] }>('/sessions')).sessions.find((s) => s.name === name);
const recordOf = async (name: string) =>
  (await json<{ browser_record?: BrowserRecord }>(`/sessions/${name}`)).browser_record;

before(async () => {
  h = await startHarness({ adminToken: 'operator-secret' });
  serveReportDownload(h.server);
});
after(async () => {
  await h.closeBrowsers();
  await h.close();
});

describe('the browser record', () => {
  test('after its caller closes it, the session says what it asked, what was sent and what ran', async () => {
    const opened = await h.op('open', { width: 900, height: 700 }, 'asked');
    assert.equal(opened.body.ok, true, JSON.stringify(opened.body.error));
    await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 'asked');
    assert.equal((await h.op('close', {}, 'asked')).body.ok, true);

    const record = await recordOf('asked');
    assert.deepEqual(record?.asked?.window, { width: 900, height: 700 });
    assert.equal(record?.asked?.browser, BACKEND === 'firefox' ? 'firefox' : 'chromium');
    assert.equal(typeof record?.asked?.timeouts.timeout_ms, 'number');
    const keys = record?.sent?.capabilities.map((c) => c.key) ?? [];
    assert.ok(keys.includes(BACKEND === 'grid' ? 'browserName' : 'headless'), keys.join(', '));
    assert.ok(record?.sent?.capabilities.every((c) => c.sources.length > 0));
    assert.equal(record?.ran?.backend, BACKEND === 'grid' ? 'grid' : 'playwright');
    assert.equal(record?.ran?.browser, TEST_BROWSER);
    assert.ok(record?.ran?.version);
    assert.equal(typeof record?.ran?.grid_session_id, BACKEND === 'grid' ? 'string' : 'undefined');
    assert.ok(Date.parse(record?.ran?.started_at ?? '') <= Date.parse(record?.ended?.at ?? ''));
    assert.equal(record?.ended?.by, 'caller');

    const row = await rowOf('asked');
    assert.equal(row?.state, 'closed');
    assert.equal(row?.ended_by, 'caller');
  });

  test('a browser an operator ends is recorded as ended by the operator', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 'ended');
    assert.equal((await rowOf('ended'))?.state, 'open');
    assert.deepEqual(await json('/sessions/ended/browser', 'DELETE'), { ok: true, ended: true });
    const row = await rowOf('ended');
    assert.equal(row?.state, 'ended');
    assert.equal(row?.ended_by, 'operator');
    assert.equal((await recordOf('ended'))?.ended?.by, 'operator');
    // The caller's next op brings a browser back: a new record, not yet ended.
    await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 'ended');
    assert.equal((await recordOf('ended'))?.ended, undefined);
    await h.op('close', {}, 'ended');
  });
});

describe('a session’s data', () => {
  test('a download is kept by the operator, counted in the list, and deleted only once the browser is closed', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/downloads.html` }, 'data');
    const click = await h.op('click', { target: { role: 'link', name: 'Export' } }, 'data');
    assert.equal(click.body.ok, true, JSON.stringify(click.body.error));
    const saved = await h.op(
      'flow_save',
      {
        flow: {
          name: 'export',
          steps: [{ op: 'goto', args: { url: `${h.server.PREFIX}/downloads.html` } }],
        },
      },
      'data',
    );
    assert.equal(saved.body.ok, true, JSON.stringify(saved.body.error));

    const kept = await admin('/files/data/report.csv/keep', 'POST');
    const entry = (await kept.json()) as { name: string; kept: boolean; size: number };
    assert.equal(kept.status, 200, JSON.stringify(entry));
    assert.deepEqual(
      { name: entry.name, kept: entry.kept, size: entry.size },
      { name: 'report.csv', kept: true, size: CSV.length },
    );
    const missing = await admin('/files/data/nothing.csv/keep', 'POST');
    assert.equal(missing.status, 404);

    const row = await rowOf('data');
    assert.deepEqual(
      { files: row?.files, kept_bytes: row?.kept_bytes, flows: row?.flows, orphan: row?.orphan },
      { files: 1, kept_bytes: CSV.length, flows: 1, orphan: false },
    );

    const refused = await admin('/sessions/data/data', 'DELETE');
    assert.equal(refused.status, 409);
    const body = (await refused.json()) as {
      ok: boolean;
      error: { kind: string; message: string };
    };
    assert.equal(body.ok, false);
    assert.equal(body.error.kind, 'not_actionable');
    assert.match(body.error.message, /DELETE \/admin\/sessions\/data\/browser/);

    await h.op('close', {}, 'data');
    const removed = await json<{ ok: boolean; removed: { files: number; bytes: number } }>(
      '/sessions/data/data',
      'DELETE',
    );
    assert.deepEqual(removed, { ok: true, removed: { files: 1, bytes: CSV.length } });
    const emptied = await rowOf('data');
    assert.deepEqual(
      { files: emptied?.files, kept_bytes: emptied?.kept_bytes },
      { files: 0, kept_bytes: 0 },
    );
    // The flow library is the session's flows, not its data: it stays.
    assert.equal(emptied?.flows, 1);
  });

  test('a session directory no record knows is listed as an orphan, and its data can be deleted', async () => {
    mkdirSync(join(h.dataDir, 'files', 'ghost'), { recursive: true });
    writeFileSync(join(h.dataDir, 'files', 'ghost', 'left.csv'), CSV);
    assert.deepEqual(await rowOf('ghost'), {
      name: 'ghost',
      orphan: true,
      state: 'closed',
      files: 1,
      kept_bytes: CSV.length,
      flows: 0,
    });
    const removed = await json<{ removed: { files: number } }>('/sessions/ghost/data', 'DELETE');
    assert.equal(removed.removed.files, 1);
    assert.equal(await rowOf('ghost'), undefined);
    assert.equal((await admin('/sessions/ghost/data', 'DELETE')).status, 404);
  });
});
