// Browser behaviour: the session log's frames never show a typed secret.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { LogLine } from '../../src/logs/log-line.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pageValue } from '../helpers/page.js';

// The session log's frames come from a screencast where the backend has one; a screencast frame
// would show a secret typed into a plain field, so a tab that took a secret is captured, blanked.
const SECRET = 'WWWWWWWWWWWW';
let h: Harness;
let secretsDir: string;

before(async () => {
  secretsDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-frame-secret-'));
  mkdirSync(join(secretsDir, 'pin'));
  writeFileSync(join(secretsDir, 'pin', 'code'), `${SECRET}\n`);
  h = await startHarness({ secretsDirs: [secretsDir] });
  h.server.setContent(
    '/pin.html',
    `<title>PIN</title><body style="margin:0;background:#fff">
     <label style="display:block;height:40px">PIN</label>
     <input id=pin aria-label=PIN style="font:48px monospace;color:#000;width:900px;height:80px;border:0;padding:0 10px">
     <button id=other style="margin-top:20px">Other</button></body>`,
  );
  h.server.setContent('/blank.html', '<title>Blank</title>');
});
after(async () => {
  await h.close();
  rmSync(secretsDir, { recursive: true, force: true });
});

async function lines(session: string): Promise<LogLine[]> {
  await h.app.runtime.logs!.flush();
  const text = readFileSync(join(h.dataDir, 'logs', session, 'events.jsonl'), 'utf8').trim();
  return text.split('\n').map((l) => JSON.parse(l) as LogLine);
}

/** Dark pixels of a frame inside an element's box (inset past its edges), read by a browser. */
async function darkPixels(session: string, line: LogLine): Promise<number> {
  const jpeg = readFileSync(join(h.dataDir, 'logs', session, 'frames', line.frame!));
  const scale = 640 / line.viewport!.width;
  const box = line.box!;
  const rect = [box.x + 12, box.y + 12, box.width - 24, box.height - 24].map((n) => n * scale);
  await h.op('goto', { url: `${h.server.PREFIX}/blank.html` }, 'inspect');
  const script = `const img = new Image(); img.src = 'data:image/jpeg;base64,${jpeg.toString('base64')}';
    await img.decode(); const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
    const g = c.getContext('2d'); g.drawImage(img, 0, 0);
    const d = g.getImageData(${rect.map(Math.round).join(', ')}).data; let dark = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] + d[i + 1] + d[i + 2] < 300) dark++; return dark;`;
  return (await pageValue(h, script, 'inspect')) as number;
}

test('a field holding a secret is blank on every log frame; the same text typed plainly shows', async () => {
  const url = `${h.server.PREFIX}/pin.html`;
  for (const s of ['plain', 'secret']) {
    await h.op('goto', { url }, s);
    // A first acting op, so the tab's screencast (where there is one) is running for the fill.
    await h.op('click', { target: { css: '#other' } }, s);
  }
  const plain = await h.op('fill', { target: { label: 'PIN' }, value: SECRET }, 'plain');
  assert.equal(plain.body.ok, true, JSON.stringify(plain.body.error));
  const secret = await h.op(
    'fill',
    { target: { label: 'PIN' }, secret: { name: 'pin', key: 'code' } },
    'secret',
  );
  assert.equal(secret.body.ok, true, JSON.stringify(secret.body.error));
  for (const s of ['plain', 'secret']) await h.op('click', { target: { css: '#other' } }, s);
  const plainLines = await lines('plain');
  const secretLines = await lines('secret');
  // The fill's box is the field: the frames after the fill and after the next click.
  const field = plainLines[2].box!;
  const at = (l: LogLine): LogLine => ({ ...l, box: field });
  assert.ok((await darkPixels('plain', at(plainLines[2]))) > 200, 'typed text shows on the frame');
  assert.ok((await darkPixels('plain', at(plainLines[3]))) > 200, 'and after the next op');
  assert.equal(await darkPixels('secret', at(secretLines[2])), 0, 'the secret fill frame is blank');
  assert.equal(await darkPixels('secret', at(secretLines[3])), 0, 'so is the next op frame');
});
