import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ActionResult } from '../../src/core/result.js';
import { bound, loggableArgs, logLine, serializeLine, truncate } from '../../src/logs/log-line.js';
import { SessionLog } from '../../src/logs/session-log.js';

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

describe('SessionLog', () => {
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
      const lines = readFileSync(join(dir, 's', 'events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.equal(lines[0].frame, '000001.jpg');
      assert.equal(lines[1].frame, '000001.jpg');
      assert.equal(lines[1].frame_repeated, true);
      assert.equal(lines[2].frame, undefined);
      assert.match(String(lines[2].frame_skipped), /LOG_FRAMES_MAX_MB/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
