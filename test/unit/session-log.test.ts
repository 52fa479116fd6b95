import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ActionResult } from '../../src/core/result.js';
import {
  bound,
  countsAsError,
  loggableArgs,
  logLine,
  serializeLine,
  truncate,
} from '../../src/logs/log-line.js';
import { readLog } from '../../src/logs/log-reader.js';
import { FRAME_WAIT_MS, SessionLog } from '../../src/logs/session-log.js';
import type { BrowserTab } from '../../src/drivers/driver.js';

/** A tab with no screencast whose every capture takes `ms`, as a starved renderer's does. */
function slowTab(ms: number, captures: { done: number }): BrowserTab {
  const tab = {
    id: 't1',
    isClosed: () => false,
    crashed: () => false,
    pendingDialog: () => undefined,
    viewport: () => ({ width: 640, height: 400 }),
    captureViewport: () =>
      new Promise<Buffer>((resolve) =>
        setTimeout(() => {
          captures.done++;
          resolve(Buffer.alloc(100, captures.done));
        }, ms),
      ),
  };
  return tab as unknown as BrowserTab;
}

/** The lines session `s` wrote under `dir`, parsed. */
function eventLines(dir: string): Record<string, unknown>[] {
  return readFileSync(join(dir, 's', 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function result(over: Partial<ActionResult> = {}): ActionResult {
  return {
    ok: true,
    op: 'fill',
    action_id: 's-1',
    session_id: 's',
    verification: { status: 'not_checked' },
    timing: { started_at_ms: Date.UTC(2026, 10, 29), duration_ms: 12, timeout_ms: 10_000 },
    ...over,
  };
}

describe('log lines', () => {
  test('long strings are cut with a marker saying how much was left out', () => {
    assert.equal(truncate('abcdef', 4), 'abcd…[+2 chars]');
    assert.equal(truncate('abc', 4), 'abc');
    const big = bound({ html: 'x'.repeat(5000), rows: Array.from({ length: 50 }, (_, i) => i) });
    const text = JSON.stringify(big);
    assert.ok(text.length < 600, text);
    assert.match(text, /…\[\+4700 chars\]/);
    assert.match(text, /…\[\+30 items\]/);
  });

  test('a fill value is kept only when the control read it back', () => {
    const args = { target: { css: '#f' }, value: 'typed' };
    const readBack = result({ data: { value: 'typed' } });
    assert.deepEqual(loggableArgs('fill', args, readBack), args);
    const password = result({ data: { value: null } });
    assert.equal((loggableArgs('fill', args, password) as typeof args).value, '[withheld]');
    const failed = result({
      ok: false,
      error: { kind: 'timeout', message: 'm', recoverable: true },
    });
    assert.equal((loggableArgs('fill', args, failed) as typeof args).value, '[withheld]');
    const secret = { target: { css: '#f' }, value: 'x', secret: { name: 'admin', key: 'pw' } };
    assert.equal(
      (loggableArgs('fill', secret, result({ data: { value: 'x' } })) as typeof secret).value,
      '[withheld]',
    );
  });

  test('a batch line names its steps but keeps none of their arguments', () => {
    const args = { steps: [{ op: 'fill', args: { target: { css: '#pw' }, value: 'hunter2' } }] };
    const line = logLine({ result: result({ op: 'batch', data: { results: [], ran: 1 } }), args });
    assert.doesNotMatch(serializeLine(line), /hunter2/);
    assert.deepEqual(line.args, { steps: [{ op: 'fill' }] });
    assert.deepEqual(line.data, { ran: 1 });
  });

  test('credentials in URLs of the arguments are removed', () => {
    const line = logLine({
      result: result({ op: 'goto' }),
      args: { url: 'https://ada:s3cret@example.com/' },
    });
    assert.doesNotMatch(serializeLine(line), /s3cret/);
  });
});

describe('what counts as an error', () => {
  const run = { id: 's-run-1', flow: 'login', step: 2 };
  const cases: [string, Parameters<typeof countsAsError>[0], boolean][] = [
    ['an op that passed', { ok: true }, false],
    ['a failed op', { ok: false }, true],
    ['a failed flow step', { ok: false, run }, true],
    [
      'a failed step marked on_error: continue',
      { ok: false, run: { ...run, tolerated: true } },
      false,
    ],
    ['a passing tolerated step', { ok: true, run: { ...run, tolerated: true } }, false],
  ];
  for (const [name, line, counted] of cases)
    test(`${name}: ${counted ? 'counted' : 'not counted'}`, () =>
      assert.equal(countsAsError(line), counted));
});

describe('SessionLog', () => {
  test('keeps the flow run and step an op ran as, and serves what was written since', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swiftbrowse-log-'));
    try {
      const log = new SessionLog({
        dir,
        frames: false,
        framesMaxBytes: 0,
        logger: { error: () => undefined } as never,
      });
      const run = { id: 's-run-1', flow: 'login', step: 1, step_id: 'banner', tolerated: true };
      const failed = result({
        ok: false,
        op: 'click',
        error: { kind: 'not_found', message: 'm', recoverable: true },
      });
      log.record({ result: result({ op: 'goto' }), args: {}, acts: true });
      log.record({ result: failed, args: {}, run, acts: true });
      log.record({ result: failed, args: {}, acts: true });
      await log.flush();
      const whole = await readLog(dir, 's', {});
      assert.deepEqual(whole.events[1].run, run);
      assert.deepEqual(
        whole.events.map((e) => e.counts_as_error),
        [false, false, true],
      );
      assert.equal(whole.errors, 1);
      const since = await readLog(dir, 's', { since: 1 });
      assert.equal(since.total, 3);
      assert.deepEqual(
        since.events.map((e) => e.run?.id ?? null),
        ['s-run-1', null],
      );
      assert.equal((await readLog(dir, 's', { since: 3 })).events.length, 0);
      assert.equal((await readLog(dir, 's', { errorsOnly: true })).matched, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a log that cannot be written is reported once to the server logger, never thrown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swiftbrowse-log-'));
    try {
      writeFileSync(join(dir, 's'), 'a file where the session directory should be');
      const reported: unknown[] = [];
      const log = new SessionLog({
        dir,
        frames: true,
        framesMaxBytes: 1024,
        logger: { error: (...a: unknown[]) => reported.push(a) } as never,
      });
      log.record({ result: result({ op: 'status' }), args: {}, acts: false });
      log.record({ result: result({ op: 'status' }), args: {}, acts: false });
      await log.flush();
      assert.equal(reported.length, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('frames past the per-session cap stop, and the line says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swiftbrowse-log-'));
    try {
      const log = new SessionLog({
        dir,
        frames: true,
        framesMaxBytes: 1500,
        logger: { error: () => undefined } as never,
      });
      const screen = (fill: number) => ({
        jpeg: Buffer.alloc(1000, fill),
        viewport: { width: 1280, height: 800 },
      });
      log.record({ result: result({ op: 'click' }), args: {}, acts: true, screen: screen(1) });
      log.record({ result: result({ op: 'click' }), args: {}, acts: true, screen: screen(1) });
      log.record({ result: result({ op: 'click' }), args: {}, acts: true, screen: screen(2) });
      await log.flush();
      const lines = eventLines(dir);
      assert.equal(lines[0].frame, '000001.jpg');
      assert.equal(lines[1].frame, '000001.jpg');
      assert.equal(lines[1].frame_repeated, true);
      assert.equal(lines[2].frame, undefined);
      assert.match(String(lines[2].frame_skipped), /LOG_FRAMES_MAX_MB/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the next op waits for a slow capture only FRAME_WAIT_MS; that frame is left out and says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swiftbrowse-log-'));
    try {
      const log = new SessionLog({
        dir,
        frames: true,
        framesMaxBytes: 1_000_000,
        logger: { error: () => undefined } as never,
      });
      const quick = { done: 0 };
      log.record({
        result: result({ op: 'click' }),
        args: {},
        acts: true,
        tab: slowTab(20, quick),
      });
      await log.captured('s');
      assert.equal(quick.done, 1, 'a capture in time is waited for');
      const slow = { done: 0 };
      const tab = slowTab(FRAME_WAIT_MS + 600, slow);
      log.record({ result: result({ op: 'click' }), args: {}, acts: true, tab });
      await log.captured('s');
      assert.equal(slow.done, 0, 'the next op went on before the capture came back');
      await log.captured('s');
      log.record({ result: result({ op: 'status' }), args: {}, acts: false });
      await log.flush();
      const lines = eventLines(dir);
      assert.equal(lines[0].frame, '000001.jpg');
      assert.equal(lines[1].frame, undefined);
      assert.match(String(lines[1].frame_skipped), /the session's next op started/);
      assert.equal(slow.done, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
