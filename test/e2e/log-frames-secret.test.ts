// Browser behaviour: the session log's frames never show a typed secret.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { LogLine } from '../../src/logs/log-line.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { pageValue } from '../helpers/page.js';

// The session log's frames are the compositor's last paint where the backend has a screencast; a
// painted frame would show a secret typed into a plain field, so a tab that took one is captured, blanked.
const SECRET = 'WWWWWWWWWWWW';
let h: Harness;
let secretsDir: string;

before(async () => {
  secretsDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-frame-secret-'));
  mkdirSync(join(secretsDir, 'pin'));
  writeFileSync(join(secretsDir, 'pin', 'code'), `${SECRET}\n`);
  h = await startHarness({ secretsDirs: [secretsDir], logFrames: true });
  h.server.setContent(
    '/pin.html',
    `<title>PIN</title><body style="margin:0;background:#fff">
     <label style="display:block;height:40px">PIN</label>
     <input id=pin aria-label=PIN style="font:48px monospace;color:#000;width:900px;height:80px;border:0;padding:0 10px">
     <button id=other style="margin-top:20px">Other</button></body>`,
  );
  h.server.setContent(
    '/echo.html',
    `<title>Echo</title><body style="margin:0;background:#fff">
     <input id=pw aria-label=Password style="font:12px monospace;width:200px">
     <p id=echo style="font:48px monospace;color:#000;margin:20px 0;height:60px"></p>
     <script>pw.addEventListener('input', () => { echo.textContent = 'You typed ' + pw.value; });</script></body>`,
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

type Box = { x: number; y: number; width: number; height: number };

/** Dark pixels of a frame inside an element's box (inset past its edges), read by a browser. */
async function darkPixels(session: string, line: LogLine): Promise<number> {
  const jpeg = readFileSync(join(h.dataDir, 'logs', session, 'frames', line.frame!));
  return darkPixelsIn(
    `data:image/jpeg;base64,${jpeg.toString('base64')}`,
    line.box!,
    640 / line.viewport!.width,
  );
}

/** Dark pixels of an image inside a box in CSS pixels (inset past its edges), at `scale`. */
async function darkPixelsIn(image: string, box: Box, scale: number): Promise<number> {
  const rect = [box.x + 12, box.y + 12, box.width - 24, box.height - 24].map((n) => n * scale);
  await h.op('goto', { url: `${h.server.PREFIX}/blank.html` }, 'inspect');
  const script = `const img = new Image(); img.src = '${image}';
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
    // A first acting op: the fill is not the tab's first frame.
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

test('text the page echoes a typed secret into is blank in screenshots and frames; plain text shows', async () => {
  const url = `${h.server.PREFIX}/echo.html`;
  const shots: Record<string, { image: string; notes: string[]; box: Box; frame: LogLine }> = {};
  for (const s of ['echo-plain', 'echo-secret']) {
    await h.op('goto', { url }, s);
    const value = s === 'echo-plain' ? { value: SECRET } : { secret: { name: 'pin', key: 'code' } };
    const filled = await h.op('fill', { target: { label: 'Password' }, ...value }, s);
    assert.equal(filled.body.ok, true, JSON.stringify(filled.body.error));
    const box = (await pageValue(
      h,
      "const r = echo.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height, style: echo.getAttribute('style') }",
      s,
    )) as Box & { style: string };
    const shot = await h.op('screenshot', { save: false }, s);
    assert.equal(shot.body.ok, true, JSON.stringify(shot.body.error));
    const { base64 } = (shot.body.data as { image: { base64: string } }).image;
    // The page gets its own style back after the capture.
    assert.equal(await pageValue(h, "return echo.getAttribute('style')", s), box.style);
    const frames = (await lines(s)).filter((l) => l.frame);
    shots[s] = {
      image: `data:image/png;base64,${base64}`,
      notes: shot.body.notes ?? [],
      box,
      frame: frames[frames.length - 1],
    };
  }
  const plain = shots['echo-plain'];
  const secret = shots['echo-secret'];
  assert.ok(
    (await darkPixelsIn(plain.image, plain.box, 1)) > 200,
    'plain echo shows on the screenshot',
  );
  assert.ok(!plain.notes.some((n) => n.startsWith('secret_blanked')), JSON.stringify(plain.notes));
  assert.equal(await darkPixelsIn(secret.image, secret.box, 1), 0, 'the echoed secret is blank');
  assert.ok(
    secret.notes.some((n) => n.startsWith('secret_blanked: 1 element')),
    JSON.stringify(secret.notes),
  );
  assert.ok(
    (await darkPixels('echo-plain', { ...plain.frame, box: plain.box })) > 200,
    'frame shows plain',
  );
  assert.equal(
    await darkPixels('echo-secret', { ...secret.frame, box: secret.box }),
    0,
    'frame blank',
  );
});
