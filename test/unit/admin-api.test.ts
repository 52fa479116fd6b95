// The pure parts of the admin API's session view (issue #20): the browser record, the state the
// operator's list shows, the launch report of the local backend and the session directories.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { launchReport } from '../../src/drivers/playwright/launch-report.js';
import { adminState } from '../../src/sessions/admin-state.js';
import {
  askedOf,
  browserRecordSchema,
  endedRecord,
  openedRecord,
} from '../../src/sessions/browser-record.js';
import {
  hasSessionData,
  removeSessionData,
  sessionDirNames,
} from '../../src/sessions/session-dirs.js';
import type { SessionSettings } from '../../src/sessions/settings.js';
import { sessionRecordSchema } from '../../src/sessions/store.js';

const settings: SessionSettings = {
  backend: 'grid',
  browser: 'firefox',
  version: '142',
  headless: true,
  viewport: { width: 1280, height: 800 },
  timeoutMs: 5000,
  navigationTimeoutMs: 30000,
  record: true,
  scriptTimeoutMs: 9000,
};

const gridBrowser = {
  running: () => ({ browser: 'firefox', version: '142.0.1', node: 'http://10.0.0.7:5555' }),
  gridSession: () => ({ id: 'f00d', liveView: true }),
  sentCapabilities: () => ({
    asked: { browser: 'firefox', version: '142' },
    sent: [{ key: 'browserName', value: 'firefox', sources: ['flow'] }],
    ignored: ['moz:firefoxOptions.args[--marionette]'],
  }),
};

describe('the browser record', () => {
  test('asked is the session settings: browser, version, window, record, headless, timeouts', () => {
    assert.deepEqual(askedOf(settings), {
      browser: 'firefox',
      version: '142',
      window: { width: 1280, height: 800 },
      record: true,
      headless: true,
      timeouts: { timeout_ms: 5000, navigation_timeout_ms: 30000, script_timeout_ms: 9000 },
    });
  });

  test('an opened Grid browser records what was sent and what ran, with its Grid id and node', () => {
    const at = Date.UTC(2026, 11, 2, 5, 0, 0);
    const record = openedRecord(settings, gridBrowser, 900_000, at);
    assert.deepEqual(record.sent, {
      capabilities: [{ key: 'browserName', value: 'firefox', sources: ['flow'] }],
      ignored: ['moz:firefoxOptions.args[--marionette]'],
    });
    assert.deepEqual(record.ran, {
      backend: 'grid',
      browser: 'firefox',
      version: '142.0.1',
      grid_session_id: 'f00d',
      node: 'http://10.0.0.7:5555',
      started_at: '2026-12-02T05:00:00.000Z',
      idle_timeout_ms: 900_000,
      live_view: true,
    });
    assert.equal(record.ended, undefined);
  });

  test('a local browser has no Grid id and no live view', () => {
    const local = { running: () => ({ browser: 'chromium', version: '131.0' }) };
    const { ran } = openedRecord({ ...settings, backend: 'playwright' }, local, 0, 0);
    assert.equal(ran?.grid_session_id, undefined);
    assert.equal(ran?.live_view, false);
  });

  test('the first end stands: a later close does not rewrite who ended the browser', () => {
    const opened = openedRecord(settings, gridBrowser, 0, 0);
    const ended = endedRecord(opened, 'operator', Date.UTC(2026, 0, 1));
    assert.deepEqual(ended.ended, { at: '2026-01-01T00:00:00.000Z', by: 'operator' });
    assert.deepEqual(endedRecord(ended, 'caller', Date.now()).ended, ended.ended);
  });

  test('a stored record keeps it, and a record from an older server (none) still loads', () => {
    const record = endedRecord(openedRecord(settings, gridBrowser, 0, 0), 'idle', 0);
    const stored = {
      name: 's',
      settings,
      browserState: 'released',
      counter: 3,
      ops: 3,
      createdAt: 0,
      lastActiveAt: 0,
    };
    const parsed = sessionRecordSchema.parse(
      JSON.parse(JSON.stringify({ ...stored, browserRecord: record })),
    );
    assert.deepEqual(parsed.browserRecord, record);
    assert.equal(sessionRecordSchema.parse(stored).browserRecord, undefined);
    assert.equal(
      browserRecordSchema.safeParse({ ended: { at: 'x', by: 'someone' } }).success,
      false,
    );
  });
});

describe('the state the operator list shows', () => {
  const rows: [string, Parameters<typeof adminState>[0], string][] = [
    ['an op running', { busy: true, hasBrowser: true, browserState: 'open' }, 'busy'],
    ['a browser that answers', { busy: false, hasBrowser: true, browserState: 'open' }, 'open'],
    [
      'closed by its caller',
      { busy: false, hasBrowser: false, browserState: 'closed', endedBy: 'caller' },
      'closed',
    ],
    ['never opened', { busy: false, hasBrowser: false, browserState: 'closed' }, 'closed'],
    [
      'ended by an operator',
      { busy: false, hasBrowser: false, browserState: 'closed', endedBy: 'operator' },
      'ended',
    ],
    [
      'released for idling',
      { busy: false, hasBrowser: false, browserState: 'released', endedBy: 'idle' },
      'ended',
    ],
    ['lost', { busy: false, hasBrowser: false, browserState: 'lost', endedBy: 'crashed' }, 'ended'],
    [
      'open in a server that stopped',
      { busy: false, hasBrowser: false, browserState: 'open' },
      'closed',
    ],
  ];
  for (const [name, facts, state] of rows) {
    test(`${name} is ${state}`, () => assert.equal(adminState(facts), state));
  }
});

describe('the local backend launch report', () => {
  const options = {
    session: 's',
    browser: 'chromium' as const,
    headless: false,
    viewport: { width: 800, height: 600 },
    downloadsDir: '/tmp/x',
    locale: 'de-DE',
  };

  test('names each launch option with where it came from', () => {
    const report = launchReport({
      executablePath: '/usr/bin/chromium',
      executableFromConfig: true,
      flowArgs: ['--no-sandbox'],
      configArgs: ['--host-resolver-rules=MAP 169.254.169.254 ~NOTFOUND'],
      options,
    });
    const by = Object.fromEntries(report.sent.map((c) => [c.key, c]));
    assert.deepEqual(report.asked, { browser: 'chromium', version: 'latest' });
    assert.deepEqual(by.executablePath?.sources, ['config']);
    assert.deepEqual(by.headless, { key: 'headless', value: false, sources: ['option'] });
    assert.deepEqual(by.args?.sources, ['flow', 'config']);
    assert.equal((by.args?.value as string[]).length, 2);
    assert.deepEqual(by.locale?.value, 'de-DE');
    assert.equal(by.userAgent, undefined);
  });

  test('a browser found on this machine and no blocked hosts are SwiftBrowse’s own', () => {
    const report = launchReport({
      executablePath: '/usr/bin/chromium',
      executableFromConfig: false,
      flowArgs: ['--no-sandbox'],
      configArgs: [],
      options,
    });
    const by = Object.fromEntries(report.sent.map((c) => [c.key, c]));
    assert.deepEqual(by.executablePath?.sources, ['flow']);
    assert.deepEqual(by.args?.sources, ['flow']);
  });
});

describe('session directories on disk', () => {
  test('lists every session with a directory, counts and removes its files and kept files', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-dirs-'));
    try {
      mkdirSync(join(dataDir, 'sessions', 'alpha', 'files'), { recursive: true });
      writeFileSync(join(dataDir, 'sessions', 'alpha', 'files', 'a.csv'), '12345');
      mkdirSync(join(dataDir, 'files', 'alpha'), { recursive: true });
      writeFileSync(join(dataDir, 'files', 'alpha', 'a.csv'), '12345');
      mkdirSync(join(dataDir, 'files', 'beta'), { recursive: true });
      mkdirSync(join(dataDir, 'sessions', '.hidden'), { recursive: true });
      mkdirSync(join(dataDir, 'flows', 'alpha'), { recursive: true });
      writeFileSync(join(dataDir, 'flows', 'alpha', 'f.yaml'), 'steps: []');
      assert.deepEqual(await sessionDirNames(dataDir), ['alpha', 'beta']);
      assert.deepEqual(await removeSessionData(dataDir, 'alpha'), { files: 2, bytes: 10 });
      assert.equal(await hasSessionData(dataDir, 'alpha'), false);
      assert.deepEqual(await sessionDirNames(dataDir), ['beta']);
      // The flow library is the flow library's, not the session's data.
      assert.ok(existsSync(join(dataDir, 'flows', 'alpha', 'f.yaml')));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a name that could leave DATA_DIR is refused', async () => {
    await assert.rejects(() => removeSessionData('/tmp', '..'), /Invalid session name/);
  });
});
