// Server surface: when the server's own disk fails, the answer says so without its paths.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ActionResult } from '../../src/core/result.js';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

/** Puts a regular file where the server keeps a folder: even root cannot write beneath it. */
function block(dir: string): void {
  rmSync(join(h.dataDir, dir), { recursive: true, force: true });
  writeFileSync(join(h.dataDir, dir), 'not a folder');
}

/** The answer blames the server's storage, names the next step, and shows no server path. */
function assertStorageFailure(status: number, result: ActionResult): void {
  assert.equal(status, 503, JSON.stringify(result));
  assert.equal(result.error?.kind, 'backend');
  const message = result.error!.message;
  assert.match(message, /could not write to its storage/);
  assert.match(message, /operator/);
  assert.match(message, /DATA_DIR/);
  assert.doesNotMatch(message, /browser/i);
  assert.ok(!JSON.stringify(result).includes(h.dataDir), message);
}

describe('a DATA_DIR the server can no longer write (after start-up)', () => {
  test('PUT /flows/<name> and flow_save say the storage failed, not the browser', async () => {
    block('flows');
    const put = await h.request('/flows/blocked', {
      method: 'PUT',
      headers: { 'content-type': 'application/yaml', 'x-session-key': 'disk' },
      body: 'steps: [{op: goto, args: {url: "https://example.test/"}}]\n',
    });
    assertStorageFailure(put.status, (await put.json()) as ActionResult);
    const saved = await h.op(
      'flow_save',
      { name: 'blocked', flow: { steps: [{ op: 'goto', args: { url: 'https://x.test/' } }] } },
      'disk',
    );
    assertStorageFailure(saved.status, saved.body);
  });

  test('state_save says the storage failed, not the browser', async () => {
    const page = await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 'disk-state');
    assert.equal(page.status, 200, JSON.stringify(page.body.error));
    block('files');
    const r = await h.op('state_save', {}, 'disk-state');
    assertStorageFailure(r.status, r.body);
    await h.closeBrowsers();
  });
});
