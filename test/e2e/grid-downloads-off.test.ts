// Grid backend: a Grid as it ships, started without --enable-managed-downloads: browsers open at
// once, a download says where the file stayed and what to turn on, and /ready and doctor say so.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { doctor } from '../../src/surfaces/cli/doctor.js';
import { BACKEND } from '../helpers/backend.js';
import { startGrid, type TestGrid } from '../helpers/grid.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { serveReportDownload } from '../helpers/downloads.js';

const skip = BACKEND !== 'grid';

describe('a Grid without managed downloads', () => {
  let grid: TestGrid;
  let h: Harness;

  before(async () => {
    if (skip) return;
    grid = await startGrid(1, undefined, { managedDownloads: false });
    // Were the browser still asked for with managed downloads, goto would fail here at 60 s.
    h = await startHarness({ gridUrl: grid.url, gridQueueWaitMs: 60_000 });
    serveReportDownload(h.server);
  });
  after(async () => {
    if (skip) return;
    await h.close();
    await grid.stop();
  });

  test(
    'goto opens a browser, and a download answers unsupported naming the Grid option',
    { skip },
    async () => {
      const opened = await h.op('goto', { url: `${h.server.PREFIX}/downloads.html` });
      assert.equal(opened.body.ok, true, JSON.stringify(opened.body.error));

      const click = await h.op('click', { target: { role: 'link', name: 'Export' } });
      assert.equal(click.body.ok, true, JSON.stringify(click.body.error));
      const note = click.body.notes?.find((n) => n.startsWith('download_unsupported report.csv'));
      assert.ok(note, JSON.stringify(click.body.notes));
      assert.match(note, /stays in the remote browser's download folder on that node/);
      assert.match(note, /--enable-managed-downloads true/);
      assert.equal(click.body.evidence, undefined, 'no link to a file that is not here');

      const kept = await h.op('keep_file', { name: 'report.csv' });
      assert.equal(kept.body.error?.kind, 'unsupported', JSON.stringify(kept.body));
      assert.match(kept.body.error!.message, /--enable-managed-downloads true/);
      const listed = await h.op('files', {});
      const files = (listed.body.data as { files: { name: string }[] }).files;
      assert.deepEqual(
        files.map((f) => f.name),
        [],
      );
      assert.ok(
        listed.body.notes?.some((n) => n.startsWith('download_unsupported report.csv')),
        JSON.stringify(listed.body.notes),
      );
      await h.closeBrowsers();
    },
  );

  test(
    '/ready and doctor say downloads are off, and the option that turns them on',
    { skip },
    async () => {
      const r = await h.request('/ready');
      const body = (await r.json()) as {
        ready: boolean;
        grid: { downloads: string; nodeStates: { downloads: boolean }[] };
      };
      assert.equal(r.status, 200, JSON.stringify(body));
      assert.equal(body.grid.downloads, 'off');
      assert.deepEqual(
        body.grid.nodeStates.map((n) => n.downloads),
        [false],
      );
      const report = await doctor(loadConfig({}, { dataDir: h.dataDir }), { server: h.url });
      const line = report.lines.find((l) => l.startsWith('grid:'));
      assert.match(line ?? '', /downloads off: .*--enable-managed-downloads true/);
    },
  );
});
