// Server surface: outages and bad disks: Redis going away and coming back, a DATA_DIR that cannot
// be written at start-up, and a session's files folder that cannot be written while it runs.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createSwiftBrowse } from '../../src/server.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { serveReportDownload } from '../helpers/downloads.js';

const MAIN = fileURLToPath(new URL('../../src/surfaces/cli/main.js', import.meta.url));

interface Ready {
  ready: boolean;
  browser: string | null;
  sessions: number;
  store: { kind: string; url?: string; ok: boolean; error?: string };
}

/**
 * Read-only mounts: the tests run as root, which file mode bits do not stop, so a read-only
 * tmpfs is the one place a write really fails (EROFS). Every mount is undone in `after`.
 */
const mounts: string[] = [];
function mountReadOnly(dir: string): void {
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', dir]);
  mounts.push(dir);
}
function unmount(dir: string): void {
  if (!mounts.includes(dir)) return;
  execFileSync('umount', [dir]);
  mounts.splice(mounts.indexOf(dir), 1);
}
/** Undoes the mounts made under `root`, newest first. */
function unmountUnder(root: string): void {
  for (const dir of [...mounts].reverse()) if (dir.startsWith(root)) unmount(dir);
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

describe('a Redis outage', () => {
  const password = 'r3dis-pw';
  let redis: RedisServer;
  let h: Harness;
  let scrubbed = '';
  before(async () => {
    redis = await startRedis({ password });
    scrubbed = redis.url.replace(`:${password}@`, '');
    h = await startHarness({ redisUrl: redis.url });
  });
  after(async () => {
    await h.closeBrowsers();
    await h.close();
    await redis.stop();
  });

  const ready = async () => {
    const r = await h.request('/ready');
    return { status: r.status, body: (await r.json()) as Ready };
  };

  test('/ready names the Redis store (URL without its password) and says it answers', async () => {
    const r = await ready();
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.ready, true);
    assert.equal(typeof r.body.browser, 'string');
    assert.deepEqual(r.body.store, { kind: 'redis', url: scrubbed, ok: true });
  });

  test('with Redis down, a session already open keeps working without waiting for it', async () => {
    const url = `${h.server.PREFIX}/login.html`;
    const opened = await h.op('goto', { url }, 'live');
    assert.equal(opened.body.ok, true, JSON.stringify(opened.body.error));
    await redis.stop();
    for (let i = 0; i < 3; i++) {
      const { value, ms } = await timed(() => h.op('snapshot', {}, 'live'));
      assert.equal(value.body.ok, true, JSON.stringify(value.body.error));
      // Before: every op waited 5 s for the record's save to time out.
      assert.ok(ms < 2500, `snapshot took ${ms} ms with Redis down`);
    }
  });

  test('with Redis down, a new session is backend (503) naming Redis, its URL and the cause; /ready is 503', async () => {
    const { value: r, ms } = await timed(() =>
      h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 'fresh'),
    );
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.error?.kind, 'backend');
    const message = r.body.error!.message;
    assert.ok(message.includes(scrubbed), message);
    assert.match(message, /Redis/);
    // The socket's own error, the last one seen: reset as Redis went, refused on a reconnect.
    assert.match(message, /ECONNREFUSED|ECONNRESET/);
    assert.doesNotMatch(message, new RegExp(password));
    assert.ok(ms < 2500, `the refusal took ${ms} ms`);

    const down = await ready();
    assert.equal(down.status, 503, JSON.stringify(down.body));
    assert.equal(down.body.ready, false);
    assert.equal(down.body.store.ok, false);
    assert.equal(down.body.store.url, scrubbed);
    assert.match(down.body.store.error ?? '', /ECONNREFUSED|ECONNRESET/);
  });

  test('when Redis comes back on its address, ops work again without a restart and the open session is saved', async () => {
    redis = await startRedis({ port: redis.port, password });
    let back = await ready();
    for (let i = 0; i < 100 && back.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      back = await ready();
    }
    assert.equal(back.status, 200, JSON.stringify(back.body));
    const fresh = await h.op('goto', { url: `${h.server.PREFIX}/login.html` }, 'fresh');
    assert.equal(fresh.body.ok, true, JSON.stringify(fresh.body.error));
    // The Redis that came back is empty: the live session's record is written again unasked.
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      let raw: string | null = null;
      for (let i = 0; i < 50 && !raw; i++) {
        raw = await client.get('swiftbrowse:session:live');
        if (!raw) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(raw, 'the live session was not saved when Redis came back');
      assert.equal((JSON.parse(raw) as { counter: number }).counter, 4);
    } finally {
      await client.close();
    }
  });
});

describe('a DATA_DIR that cannot be written', () => {
  const root = mkdtempSync(join(tmpdir(), 'swiftbrowse-outages-'));
  after(() => {
    unmountUnder(root);
    rmSync(root, { recursive: true, force: true });
  });

  test('stops `swiftbrowse serve` at start-up naming DATA_DIR, the path and the cause', async () => {
    const dataDir = join(root, 'readonly');
    mountReadOnly(dataDir);
    const child = spawn(process.execPath, [MAIN, 'serve'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    // A server that started anyway is stopped, and the test fails on its exit code.
    const timer = setTimeout(() => child.kill('SIGTERM'), 20_000);
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    clearTimeout(timer);
    assert.notEqual(code, 0, stderr);
    assert.match(stderr, /DATA_DIR/);
    assert.ok(stderr.includes(dataDir), stderr);
    assert.match(stderr, /EROFS/);
    assert.doesNotMatch(stderr, /ENOENT/);
  });

  test('one that turned read-only after a first run (its signing key there) stops start-up too', async () => {
    const dataDir = join(root, 'turned');
    mkdirSync(dataDir, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dataDir]);
    mounts.push(dataDir);
    writeFileSync(join(dataDir, 'signing.key'), 'ab'.repeat(32), { mode: 0o600 });
    execFileSync('mount', ['-o', 'remount,ro', dataDir]);
    const config = loadConfig({}, { dataDir, port: 0 });
    await assert.rejects(createSwiftBrowse(config), (e: Error) => {
      assert.ok(e instanceof ConfigError, e.message);
      assert.match(e.message, /DATA_DIR/);
      assert.ok(e.message.includes(dataDir), e.message);
      assert.match(e.message, /EROFS/);
      return true;
    });
  });
});

describe('a session whose files cannot be written', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    serveReportDownload(h.server);
  });
  after(async () => {
    // Before the browser closes: closing removes its files folder, the mount point.
    unmountUnder(h.dataDir);
    await h.closeBrowsers();
    await h.close();
  });

  test('a download that could not be saved is reported failed, with why, by the click and by files', async () => {
    const goto = await h.op('goto', { url: `${h.server.PREFIX}/downloads.html` }, 'dl');
    assert.equal(goto.body.ok, true, JSON.stringify(goto.body.error));
    // The disk turns read-only under a browser already running.
    mountReadOnly(join(h.dataDir, 'sessions', 'dl', 'files'));
    const click = await h.op('click', { target: { role: 'link', name: 'Export' } }, 'dl');
    assert.equal(click.body.error, undefined, JSON.stringify(click.body.error));
    const notes = click.body.notes ?? [];
    const failed = notes.find((n) => n.startsWith('download_failed report.csv'));
    assert.ok(failed, JSON.stringify(notes));
    assert.match(failed, /EROFS/);
    assert.ok(!notes.some((n) => n.startsWith('download report.csv')), JSON.stringify(notes));
    assert.ok(!click.body.evidence?.some((e) => e.kind === 'download'), 'no link to a lost file');

    const listed = await h.op('files', {}, 'dl');
    const files = (listed.body.data as { files: { name: string }[] }).files;
    assert.ok(!files.some((f) => f.name === 'report.csv'), JSON.stringify(files));
    const again = listed.body.notes?.find((n) => n.startsWith('download_failed report.csv'));
    assert.ok(again, JSON.stringify(listed.body.notes));
    assert.match(again, /EROFS/);
    unmount(join(h.dataDir, 'sessions', 'dl', 'files'));
  });
});
