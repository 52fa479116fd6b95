// Server surface: the CLI.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { ActionResult } from '../../src/core/result.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { EXPECTED_OPS } from '../helpers/expected-ops.js';
import { freePort } from '../helpers/ports.js';
import { BACKEND, backendEnv } from '../helpers/backend.js';

const MAIN = fileURLToPath(new URL('../../src/surfaces/cli/main.js', import.meta.url));

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

const dataDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-cli-'));
let port = 0;

/**
 * Runs the CLI as a real process with piped stdio; resolves when the process has exited and its
 * pipes are closed, so a detached child that kept them open would show up as a timeout.
 */
function cli(
  args: string[],
  options: {
    input?: string;
    timeoutMs?: number;
    env?: NodeJS.ProcessEnv;
    /** Close our end of its stdout after the first chunk, as `| head` does. */
    closeStdoutEarly?: boolean;
  } = {},
): Promise<CliRun> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    ...backendEnv(),
  };
  for (const key of ['SWIFTBROWSE_URL', 'SWIFTBROWSE_SESSION', 'SWIFTBROWSE_TOKEN', 'HOST'])
    delete env[key];
  Object.assign(env, options.env);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (options.closeStdoutEarly) child.stdout.destroy();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `swiftbrowse ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
    child.stdin.end(options.input ?? '');
  });
}

function result(run: CliRun): ActionResult {
  return JSON.parse(run.stdout) as ActionResult;
}

const OP_NAMES = [...EXPECTED_OPS];

before(async () => {
  port = await freePort();
});

after(async () => {
  // Never leave a server behind, even when a test failed half-way.
  await cli(['down'], { timeoutMs: 15_000 }).catch(() => undefined);
  const pidFile = join(dataDir, 'server.pid');
  if (existsSync(pidFile)) {
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('without a server', () => {
  test('ops lists every op', async () => {
    const r = await cli(['ops']);
    assert.equal(r.code, 0, r.stderr);
    const listed = r.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/)[0]);
    assert.deepEqual([...listed].sort(), [...OP_NAMES].sort());
  });

  test('doctor names the browser it found', async () => {
    const r = await cli(['doctor']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const path = /^browser: (\S+)/m.exec(r.stdout)?.[1];
    assert.ok(path, r.stdout);
    assert.ok(existsSync(path), `${path} does not exist`);
    assert.match(r.stdout, /server: not running/);
  });

  test('doctor names the Firefox it found and its version, and a wrong FIREFOX_PATH', async () => {
    const found = await cli(['doctor']);
    assert.match(found.stdout, /^firefox: \S+ — Mozilla Firefox \d+/m, found.stdout);
    const wrong = await cli(['doctor'], {
      env: { FIREFOX_PATH: '/nonexistent/firefox', BROWSER: 'firefox' },
    });
    // Through a Grid a Firefox session runs on a node, so only the local arms fail.
    if (BACKEND !== 'grid') assert.equal(wrong.code, 1, wrong.stdout + wrong.stderr);
    assert.match(
      wrong.stdout,
      /^firefox: FIREFOX_PATH=\/nonexistent\/firefox is not an executable/m,
    );
  });

  test('doctor says a BROWSER_PATH that does not exist is wrong, and how to fix it', async () => {
    const r = await cli(['doctor'], { env: { BROWSER_PATH: '/nonexistent/chromium' } });
    // Through a Grid the local browser is not what opens sessions, so only the local arm fails.
    if (BACKEND === 'playwright') assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^browser: BROWSER_PATH=\/nonexistent\/chromium does not exist — point BROWSER_PATH/m,
    );
    assert.doesNotMatch(r.stdout, /browser: none/);
  });

  test('doctor checks ChromeDriver and Java, and names the fix when one is missing', async () => {
    const r = await cli(['doctor']);
    assert.match(r.stdout, /^chromedriver: (\/\S+ — \S+|not found on PATH — .*chromium-driver)/m);
    assert.match(r.stdout, /^java: (\/\S+ — \S+|not found on PATH — .*default-jre-headless)/m);
    const bare = await cli(['doctor'], { env: { PATH: '/nonexistent' } });
    assert.match(
      bare.stdout,
      /^chromedriver: not found on PATH — .*apt-get install -y chromium-driver/m,
    );
    assert.match(
      bare.stdout,
      /^java: not found on PATH — .*apt-get install -y default-jre-headless/m,
    );
  });

  test('doctor says a Grid or a Redis that does not answer is wrong, with the fix', async () => {
    const dead = await freePort();
    const r = await cli(['doctor'], {
      env: { GRID_URL: `http://127.0.0.1:${dead}`, REDIS_URL: `redis://127.0.0.1:${dead}` },
    });
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      new RegExp(`^grid: http://127.0.0.1:${dead} — not ready: .*fix GRID_URL`, 'm'),
    );
    assert.match(
      r.stdout,
      new RegExp(`^redis: .*127.0.0.1:${dead}.* — .*start redis-server, fix REDIS_URL`, 'm'),
    );
  });

  test('ops --json into a reader that stops early ends quietly (no EPIPE stack)', async () => {
    const r = await cli(['ops', '--json'], { closeStdoutEarly: true });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /EPIPE|Error/);
  });

  test('health exits 1 when nothing is running', async () => {
    const r = await cli(['health']);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /not running/);
  });

  test('run with no server exits 1 and says to start one with swiftbrowse up', async () => {
    const r = await cli(['run', 'goto', '{"url": "http://127.0.0.1/"}', '--session', 'c1']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /swiftbrowse up/);
  });

  test('run without an op is a usage error (exit 2)', async () => {
    const r = await cli(['run', '--session', 'c1']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /op/);
  });

  test('run with arguments that are not JSON is a usage error (exit 2)', async () => {
    const r = await cli(['run', 'goto', '{url: nope', '--session', 'c1']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /not valid JSON/);
  });
});

describe('a detached server started with up', () => {
  let server: FixtureServer;
  before(async () => {
    server = await startFixtureServer();
  });
  after(() => server.close());

  test('up returns once the server is healthy, without holding the caller’s pipes', async () => {
    const r = await cli(['up'], { timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.ok(r.ms < 30_000, `up took ${r.ms} ms`);
    assert.match(r.stdout, new RegExp(`running at http://127\\.0\\.0\\.1:${port}`));
    const health = await cli(['health']);
    assert.equal(health.code, 0, health.stdout);
  });

  test('a second up says it is already running', async () => {
    const r = await cli(['up']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /already running/);
  });

  test('run goto answers with an ok ActionResult', async () => {
    // The first op launches the browser, which on a loaded CI machine can take tens of seconds.
    const r = await cli(
      ['run', 'goto', JSON.stringify({ url: `${server.PREFIX}/login.html` }), '--session', 'c1'],
      { timeoutMs: 120_000 },
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const body = result(r);
    assert.equal(body.ok, true);
    assert.equal(body.session_id, 'c1');
    assert.equal(body.page?.url, `${server.PREFIX}/login.html`);
  });

  test('run of an op that fails exits 1 and prints the error', async () => {
    const r = await cli([
      'run',
      'click',
      '{"target":{"role":"button","name":"Nope"},"timeout":300}',
      '--session',
      'c1',
    ]);
    assert.equal(r.code, 1);
    const body = result(r);
    assert.equal(body.ok, false);
    assert.equal(body.error?.kind, 'not_found');
  });

  test('batch runs the steps of a file', async () => {
    const file = join(dataDir, 'steps.json');
    writeFileSync(
      file,
      JSON.stringify([
        { op: 'goto', args: { url: `${server.PREFIX}/delete.html` } },
        { op: 'fill', args: { target: { label: 'Email' }, value: 'ada@example.com' } },
      ]),
    );
    const r = await cli(['batch', file, '--session', 'c1']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const body = result(r);
    assert.equal(body.ok, true);
    assert.deepEqual(
      (body.data?.results as ActionResult[]).map((s) => [s.op, s.ok]),
      [
        ['goto', true],
        ['fill', true],
      ],
    );
  });

  test('batch - reads the steps from stdin', async () => {
    const steps = { steps: [{ op: 'goto', args: { url: `${server.PREFIX}/ambiguous.html` } }] };
    const r = await cli(['batch', '-', '--session', 'c1'], { input: JSON.stringify(steps) });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(result(r).page?.url, `${server.PREFIX}/ambiguous.html`);
  });

  test('status shows the session’s tab URL', async () => {
    const r = await cli(['status', '--session', 'c1']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const tabs = result(r).data?.tabs as { url: string }[];
    assert.deepEqual(
      tabs.map((t) => t.url),
      [`${server.PREFIX}/ambiguous.html`],
    );
  });

  test('down stops the server and health then exits 1', async () => {
    const r = await cli(['down']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /stopped/);
    const health = await cli(['health']);
    assert.equal(health.code, 1, health.stdout);
  });
});

describe('up and down given --data-dir and --port', () => {
  test('doctor reports the Grid the server uses; down with the same flags stops it', async () => {
    const otherDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-cli-flags-'));
    const otherPort = String(await freePort());
    const flags = ['--data-dir', otherDir, '--port', otherPort];
    try {
      // A Grid that does not answer, given to the server only: doctor must report it from /ready.
      const deadGrid = `http://127.0.0.1:${await freePort()}`;
      const started = await cli(['up', ...flags], {
        timeoutMs: 60_000,
        env: { GRID_URL: deadGrid },
      });
      assert.equal(started.code, 0, started.stdout + started.stderr);
      const doctor = await cli(['doctor', '--server', `http://127.0.0.1:${otherPort}`]);
      assert.equal(doctor.code, 1, doctor.stdout);
      assert.match(doctor.stdout, /^server: running at .* — not ready$/m);
      assert.ok(
        doctor.stdout.split('\n').includes(`data dir: ${otherDir} (the server’s)`),
        `doctor shows the server's --data-dir, not this shell's DATA_DIR:\n${doctor.stdout}`,
      );
      assert.match(
        doctor.stdout,
        new RegExp(
          `^grid: ${deadGrid} — not ready: .*fix GRID_URL \\(the server’s GRID_URL\\)$`,
          'm',
        ),
      );
      const r = await cli(['down', ...flags]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /stopped/);
      const health = await cli(['health', '--server', `http://127.0.0.1:${otherPort}`]);
      assert.equal(health.code, 1, health.stdout);
    } finally {
      await cli(['down', ...flags]).catch(() => undefined);
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});

describe('doctor against a server with tokens', () => {
  test('doctor shows the server’s DATA_DIR only to its operator token', async () => {
    const otherDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-cli-tokens-'));
    const otherPort = String(await freePort());
    const flags = ['--data-dir', otherDir, '--port', otherPort];
    const tokens = {
      SWIFTBROWSE_TOKEN: 'caller-token-1234',
      SWIFTBROWSE_ADMIN_TOKEN: 'admin-token-1234',
    };
    const server = ['--server', `http://127.0.0.1:${otherPort}`];
    try {
      const started = await cli(['up', ...flags], { timeoutMs: 60_000, env: tokens });
      assert.equal(started.code, 0, started.stdout + started.stderr);
      const caller = await cli(['doctor', ...server, '--token', tokens.SWIFTBROWSE_TOKEN], {
        env: { SWIFTBROWSE_ADMIN_TOKEN: undefined },
      });
      assert.doesNotMatch(caller.stdout, new RegExp(otherDir), 'a caller does not see it');
      assert.match(
        caller.stdout,
        /^data dir: .* \(this shell’s; the server’s is unknown: .*answered 401 — set SWIFTBROWSE_ADMIN_TOKEN/m,
      );
      const operator = await cli(['doctor', ...server], { env: tokens });
      assert.ok(
        operator.stdout.split('\n').includes(`data dir: ${otherDir} (the server’s)`),
        operator.stdout,
      );
    } finally {
      await cli(['down', ...flags]).catch(() => undefined);
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});

describe('doctor against a running local server', () => {
  test(
    'doctor reports the server’s wrong BROWSER_PATH, not the browser this shell finds',
    { skip: BACKEND !== 'playwright' && 'the Grid arm opens browsers on the Grid' },
    async () => {
      const otherDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-cli-browser-'));
      const otherPort = String(await freePort());
      const flags = ['--data-dir', otherDir, '--port', otherPort];
      try {
        const started = await cli(['up', ...flags], {
          timeoutMs: 60_000,
          env: { BROWSER_PATH: '/nonexistent/chromium' },
        });
        assert.equal(started.code, 0, started.stdout + started.stderr);
        const doctor = await cli(['doctor', '--server', `http://127.0.0.1:${otherPort}`]);
        assert.equal(doctor.code, 1, doctor.stdout);
        assert.match(
          doctor.stdout,
          /^browser: BROWSER_PATH=\/nonexistent\/chromium does not exist — point BROWSER_PATH .*\(the server’s\)$/m,
        );
        assert.match(doctor.stdout, /^server: running at .* — not ready$/m);
      } finally {
        await cli(['down', ...flags]).catch(() => undefined);
        rmSync(otherDir, { recursive: true, force: true });
      }
    },
  );
});
