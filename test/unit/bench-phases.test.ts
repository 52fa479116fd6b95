import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { phaseFigures, renderPhases } from '../../bench/sections/phases.js';

const dir = mkdtempSync(join(tmpdir(), 'swiftbrowse-phases-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function logOf(name: string, lines: object[]): string {
  const dataDir = join(dir, name);
  mkdirSync(join(dataDir, 'logs', 'bench'), { recursive: true });
  const text = lines.map((l) => JSON.stringify(l)).join('\n');
  writeFileSync(join(dataDir, 'logs', 'bench', 'events.jsonl'), `${text}\n`);
  return dataDir;
}

const measured = {
  'click diff:false': { roundTrip: [100, 120, 110], duration: [90, 100, 95] },
};

test('phase medians come from the session log lines, per op and diff setting', () => {
  const click = (settle: number, lookup: number) => ({
    op: 'click',
    args: { diff: false },
    duration_ms: 90,
    phases: { prepare: 1, run: 30, settle },
    spans: { 'locate+probe': lookup },
  });
  const dataDir = logOf('with', [
    { op: 'goto', args: {}, duration_ms: 500, phases: { prepare: 400 } },
    click(50, 20),
    click(70, 24),
    click(60, 22),
    { op: 'click', args: { diff: true }, duration_ms: 300, phases: { settle: 999 } },
  ]);
  const figures = phaseFigures(dataDir, 'bench', measured)['click diff:false'];
  assert.equal(figures.ops, 3);
  assert.deepEqual(figures.phases, { prepare: 1, run: 30, settle: 60 });
  assert.deepEqual(figures.lookup, { 'locate+probe': 22 });
  assert.equal(figures.roundTripMs, 110);
  assert.equal(figures.outsideMs, 15);
  assert.match(renderPhases({ 'click diff:false': figures })[0], /phases: prepare 1, run 30/);
});

test('a log without phases says they were not recorded', () => {
  const dataDir = logOf('without', [{ op: 'click', args: { diff: false }, duration_ms: 90 }]);
  const figures = phaseFigures(dataDir, 'bench', measured);
  assert.equal(figures['click diff:false'].phases, undefined);
  assert.match(renderPhases(figures)[0], /phases: not recorded/);
});
