import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DialogGate, silenceScript } from '../../src/drivers/dialog-gate.js';
import type { DialogAnswer } from '../../src/drivers/driver.js';

/** A gate whose silencer and answers are recorded instead of sent to a browser. */
function gate() {
  const silenced: string[] = [];
  const answers: DialogAnswer[] = [];
  const g = new DialogGate(async (script) => silenced.push(script));
  const open = (message: string) =>
    g.opened({ type: 'confirm', message }, async (a) => void answers.push(a));
  return { g, silenced, answers, open };
}

describe('DialogGate', () => {
  test('a dialog heard after the guard and before the script is refused, not waited behind', async () => {
    const { g, open } = gate();
    await g.guard();
    open('Delete your account?');
    let sent = false;
    await assert.rejects(
      g.script(async () => (sent = true)),
      /confirm dialog is open \("Delete your account\?"\)/,
    );
    assert.equal(sent, false);
    assert.equal(g.pending()?.message, 'Delete your account?');
  });

  test('a dialog opening under a script of ours is dismissed and reported', async () => {
    const { g, answers, open } = gate();
    await g.script(async () => open('page timer'));
    assert.deepEqual(answers, [{ accept: false }]);
    assert.equal(g.pending(), undefined);
    assert.equal(g.takeDismissed()?.count, 1);
  });

  test('the sixth dialog in the window silences the page once; the rest are dismissed', async () => {
    const { g, silenced, answers, open } = gate();
    await g.script(async () => {
      for (let i = 0; i < 8; i++) open(`burst ${i}`);
    });
    assert.deepEqual(silenced, [silenceScript(2000)]);
    assert.equal(answers.length, 8);
    assert.equal(g.takeDismissed()?.storm, true);
  });

  test('the silencer answers as a dismissal does and gives the dialogs back after a pause', () => {
    const calls: string[] = [];
    const win: Record<string, unknown> = {
      alert: () => calls.push('alert'),
      confirm: () => (calls.push('confirm'), true),
      prompt: () => (calls.push('prompt'), 'typed'),
    };
    let now = 0;
    const clock = { now: () => now };
    new Function('window', 'Date', silenceScript(2000))(win, clock);
    const call = (k: string) => (win[k] as () => unknown)();
    assert.deepEqual([call('alert'), call('confirm'), call('prompt')], [undefined, false, null]);
    now = 1900;
    assert.equal(call('confirm'), false);
    now = 4000;
    assert.equal(call('confirm'), true);
    assert.equal(call('prompt'), 'typed');
    assert.deepEqual(calls, ['confirm', 'prompt']);
  });
});
