// Browser behaviour: downloads, kept files and uploads through a real page.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FileStore } from '../../src/files/file-store.js';
import { fileAdminRoutes } from '../../src/surfaces/http/file-routes.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { REPORT_CSV, serveReportDownload } from '../helpers/downloads.js';

interface Entry {
  name: string;
  size: number;
  kept: boolean;
  url: string;
  absolute_url?: string;
  content_type: string;
  keep?: string;
}

const CSV = REPORT_CSV;
let dataDir: string;
let h: Harness;

const entries = async (harness: Harness) =>
  ((await harness.op('files', {})).body.data as { files: Entry[] }).files;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-files-e2e-'));
  h = await startHarness({ dataDir, publicUrl: 'https://browse.example.com/' });
  serveReportDownload(h.server);
});
after(async () => {
  await h.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('files that outlive the browser', () => {
  let link = '';

  test('a download lands in the session files and is kept with keep_file', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/downloads.html` });
    const click = await h.op('click', { target: { role: 'link', name: 'Export' } });
    assert.equal(click.body.ok, true, JSON.stringify(click.body.error));
    assert.ok(
      click.body.notes?.some((n) => n.startsWith('download report.csv')),
      JSON.stringify(click.body.notes),
    );
    assert.equal(click.body.evidence?.[0].kind, 'download');
    await h.op('screenshot', {});
    const listed = await entries(h);
    const report = listed.find((f) => f.name === 'report.csv')!;
    assert.deepEqual(
      { kept: report.kept, size: report.size, keep: report.keep, type: report.content_type },
      {
        kept: false,
        size: CSV.length,
        keep: 'keep_file("report.csv")',
        type: 'text/csv; charset=utf-8',
      },
    );
    assert.match(
      report.absolute_url!,
      /^https:\/\/browse\.example\.com\/files\/t\/report\.csv\?exp=\d+&sig=/,
    );
    const kept = await h.op('keep_file', { name: 'report.csv' });
    assert.equal(kept.body.ok, true, JSON.stringify(kept.body.error));
    const file = (kept.body.data as { file: Entry }).file;
    assert.equal(file.kept, true);
    assert.equal(file.keep, undefined);
    link = file.url;
  });

  test('the signed link serves the file; a tampered one is refused as altered', async () => {
    const response = await h.request(link);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), CSV);
    assert.equal(
      response.headers.get('content-disposition'),
      `attachment; filename="report.csv"; filename*=UTF-8''report.csv`,
    );
    const sig = new URL(link, 'http://x').searchParams.get('sig')!;
    const tampered = link.replace(sig, (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
    const otherFile = link.replace('report.csv', 'signing.key');
    for (const bad of [tampered, otherFile]) {
      const res = await h.request(bad);
      assert.equal(res.status, 403);
      const { error } = (await res.json()) as { error: { message: string; details: object } };
      assert.match(error.message, /altered .*or was not signed by this server/);
      assert.match(error.message, /fresh link/);
      assert.doesNotMatch(error.message, /expired/);
      assert.deepEqual(error.details, { reason: 'altered' });
    }
  });

  test('an expired link says when it expired and where a fresh one comes from', async () => {
    const signer = h.app.runtime.files.signer;
    const path = FileStore.linkPath('t', 'report.csv');
    const at = (exp: number) => `${path}?exp=${exp}&sig=${signer.sign(path, exp)}`;
    const soon = Math.floor(Date.now() / 1000) + 30;
    const past = Math.floor(Date.now() / 1000) - 1;
    assert.equal((await h.request(at(soon))).status, 200);
    const expired = await h.request(at(past));
    assert.equal(expired.status, 403);
    const { error } = (await expired.json()) as { error: { message: string; details: object } };
    const when = new Date(past * 1000).toISOString();
    assert.match(error.message, new RegExp(`expired at ${when.replace(/\./g, '\\.')}`));
    assert.match(error.message, /files op \(or GET \/admin\/files\/t\)/);
    assert.doesNotMatch(error.message, /altered/);
    assert.deepEqual(error.details, { reason: 'expired', expired_at: when });
    // A forged expiry in the past is still a bad signature, not an expiry.
    const forged = `${path}?exp=${past}&sig=${signer.sign(path, soon)}`;
    const res = await h.request(forged);
    assert.match(((await res.json()) as { error: { message: string } }).error.message, /altered/);
  });

  test('traversal is refused, and names are taken exactly as given', async () => {
    const r = await h.op('keep_file', { name: '../signing.key' });
    assert.equal(r.body.error?.kind, 'invalid_argument');
    const signer = h.app.runtime.files.signer;
    const exp = Math.floor(Date.now() / 1000) + 30;
    const sneaky = `/files/t/${encodeURIComponent('../../signing.key')}`;
    const res = await h.request(`${sneaky}?exp=${exp}&sig=${signer.sign(sneaky, exp)}`);
    assert.ok([400, 404].includes(res.status), String(res.status));
    assert.doesNotMatch(await res.text(), /^[0-9a-f]{64}$/);
  });

  test('an emoji and a quote in a file name give a valid header and the exact name back', async () => {
    const name = 'Q3 "final" 📈.pdf';
    mkdirSync(join(dataDir, 'files', 't'), { recursive: true });
    writeFileSync(join(dataDir, 'files', 't', name), '%PDF-1.4');
    const entry = (await entries(h)).find((f) => f.name === name)!;
    assert.equal(entry.kept, true);
    const res = await h.request(entry.url);
    assert.equal(res.status, 200);
    const header = res.headers.get('content-disposition')!;
    assert.match(header, /^inline; filename="Q3 _final_ _\.pdf"; filename\*=UTF-8''[\x21-\x7e]+$/);
    assert.equal(decodeURIComponent(/filename\*=UTF-8''(.+)$/.exec(header)![1]), name);
  });

  test('upload takes a kept file by name; anything else names the allowed places', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/upload.html` });
    const ok = await h.op('upload', { target: { label: 'Attachment' }, paths: ['report.csv'] });
    assert.equal(ok.body.ok, true, JSON.stringify(ok.body.error));
    const bad = await h.op('upload', { target: { label: 'Attachment' }, paths: ['/etc/hostname'] });
    assert.equal(bad.body.error?.kind, 'permission_denied');
    assert.match(bad.body.error!.message, /upload directories .*kept file/);
  });

  test('a screenshot whose save fails still returns the image, with a note', async () => {
    mkdirSync(join(dataDir, 'sessions', 'nosave'), { recursive: true });
    writeFileSync(join(dataDir, 'sessions', 'nosave', 'files'), 'a file where the folder goes');
    await h.op('goto', { url: `${h.server.PREFIX}/downloads.html` }, 'nosave');
    const r = await h.op('screenshot', {}, 'nosave');
    assert.equal(r.body.ok, true, JSON.stringify(r.body.error));
    assert.ok((r.body.data as { image?: unknown }).image);
    assert.equal((r.body.data as { file?: unknown }).file, undefined);
    assert.ok(
      r.body.notes?.some((n) => n.startsWith('not_saved:')),
      JSON.stringify(r.body.notes),
    );
    await h.op('close', {}, 'nosave');
  });

  test('close drops the browser files; kept files survive it and a server restart', async () => {
    await h.op('close', {});
    const afterClose = await entries(h);
    assert.deepEqual(
      afterClose.map((f) => [f.name, f.kept]),
      [
        ['Q3 "final" 📈.pdf', true],
        ['report.csv', true],
      ],
    );
    await h.close();
    h = await startHarness({ dataDir });
    serveReportDownload(h.server);
    const restarted = await entries(h);
    assert.ok(restarted.some((f) => f.name === 'report.csv' && f.kept));
    const old = await h.request(link);
    assert.equal(old.status, 200, 'a link signed before the restart still works');
    assert.equal(await old.text(), CSV);
  });

  test('operators delete kept files and clear downloads; a browser file is not deleted alone', async () => {
    await h.op('goto', { url: `${h.server.PREFIX}/downloads.html` });
    await h.op('screenshot', {});
    const shot = (await entries(h)).find((f) => !f.kept)!;
    const admin = fileAdminRoutes(h.app.runtime.files);
    const del = (name: string) =>
      admin.request(`/files/t/${encodeURIComponent(name)}`, { method: 'DELETE' });
    assert.deepEqual(await (await del(shot.name)).json(), {
      deleted: false,
      reason: `${shot.name} is not kept; browser files go with the browser, or all at once with clear-downloads`,
    });
    assert.deepEqual(await (await del('report.csv')).json(), { deleted: true });
    const cleared = await admin.request('/files/t/clear-downloads', { method: 'POST' });
    assert.deepEqual(await cleared.json(), { removed: [shot.name] });
    assert.deepEqual(
      (await entries(h)).map((f) => f.name),
      ['Q3 "final" 📈.pdf'],
    );
  });
});
