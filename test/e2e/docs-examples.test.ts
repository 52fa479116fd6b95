// Server surface: every shell example in the README and docs/ runs as written.
import assert from 'node:assert/strict';
import { exec } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { BACKEND } from '../helpers/backend.js';
import { startHarness, type Harness } from '../helpers/harness.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'dist/src/surfaces/cli/main.js');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

interface Block {
  lang: string;
  text: string;
  /** The block's first line, for the test's name. */
  head: string;
  /** The block's last line: what the table below names it by (first lines repeat: `sb goto`). */
  tail: string;
  line: number;
}

/** Every fenced block of a markdown file, with its language. */
function fencedBlocks(path: string): Block[] {
  const lines = readFileSync(join(ROOT, path), 'utf8').split('\n');
  const found: Block[] = [];
  let open: { lang: string; line: number; body: string[] } | undefined;
  lines.forEach((l, i) => {
    if (!open && /^```/.test(l)) open = { lang: l.slice(3).trim(), line: i + 1, body: [] };
    else if (open && l.startsWith('```')) {
      found.push({
        lang: open.lang,
        text: open.body.join('\n'),
        head: open.body[0] ?? '',
        tail: open.body.at(-1) ?? '',
        line: open.line,
      });
      open = undefined;
    } else open?.body.push(l);
  });
  return found;
}

type Expectation =
  /** Cannot run here; the reason is said. */
  | { skip: string }
  /** Runs; the answers that fail are exactly `fails` (kinds, in order); stdout+stderr match `output`. */
  | { fails?: string[]; output?: RegExp[] };

/**
 * What each shell block that does not simply succeed is expected to do, by file and last line.
 * A block not named here must answer only `ok: true`.
 */
/** The local Firefox examples: a Grid arm's server sends `firefox` to its Chromium-only Grid. */
const LOCAL_FIREFOX: Expectation =
  BACKEND === 'grid'
    ? {
        skip: 'opens the local Firefox; this arm’s server sends browsers to a Grid with Chromium nodes only',
      }
    : {};
const FIREFOX_GOTO = `swiftbrowse run goto '{"url": "http://127.0.0.1:8765/demo/"}' --session ff`;

const EXPECTED: Record<string, Expectation> = {
  [`README.md:${FIREFOX_GOTO}`]: LOCAL_FIREFOX,
  [`docs/firefox.md:${FIREFOX_GOTO}`]: LOCAL_FIREFOX,
  'README.md:npm test': {
    skip: 'starts a server on the default port 8765 and runs the whole suite',
  },
  'README.md:SECRETS_DIRS=~/secrets swiftbrowse up': {
    skip: 'writes into the home directory and starts a detached server on port 8765; secrets.test.ts covers SECRETS_DIRS',
  },
  // The flow run signs in on the demo: its report is ok and names the filled password field.
  'README.md:curl -s -X POST localhost:8765/flows/login/runs -H \'X-Session-Key: me\' -H \'content-type: application/json\' -d \'{"params": {"email": "ada@example.com", "password": "demo"}}\'':
    {
      output: [/"status":"ok"/, /fill \\"Password\\"/, /"url":"[^"]*\/demo\/dashboard\.html"/],
    },
  'README.md:GRID_URL=http://127.0.0.1:4444 swiftbrowse serve': {
    skip: 'a foreground server needing a Selenium Grid; the Grid arm of the suite runs it',
  },
  'README.md:npm run typecheck': {
    skip: 'the build and the whole suite, which this test is part of',
  },
  'docs/cli.md:echo "exit $?"': { fails: ['verification_failed'], output: [/^exit 1$/m] },
  'docs/cli.md:# Name a session with --session NAME (or SWIFTBROWSE_SESSION).': {
    output: [
      /not valid JSON \(Unexpected token/,
      /Name a session with --session NAME \(or SWIFTBROWSE_SESSION\)\./,
    ],
  },
  'docs/cli.md:npx swiftbrowse down      # SwiftBrowse (pid 2923) stopped.': {
    skip: 'starts a detached server on the default port 8765, which another server here may hold; cli.test.ts runs up, health and down on a free port',
  },
  'docs/expect-and-assert.md:sb assert \'{"js":"document.querySelectorAll(\\"tbody tr\\").length","timeout":0}\'':
    {
      fails: ['invalid_argument'],
    },
  'docs/expect-and-assert.md:sb click \'{"target":{"role":"button","name":"Sign in"},"expect":{"url_contains":"dashboard"},"timeout":2000}\'':
    {
      fails: ['verification_failed'],
    },
  'docs/expect-and-assert.md:sb assert \'{"text_visible":"Refund issued","timeout":0,"message":"The refund banner is missing: the refund did not go through."}\'':
    {
      fails: ['verification_failed'],
    },
  'docs/expect-and-assert.md:sb wait_for \'{"text_visible":"Never shown","timeout":500}\'': {
    fails: ['timeout'],
  },
  // The flow fills its password from the `admin` secret this test writes for the server.
  'docs/flows.md:  -H \'content-type: application/json\' -d \'{"params": {"email": "ada@example.com"}}\'':
    {
      output: [/"status":"ok"/, /with secret admin\/password/],
    },
  'docs/flows.md:swiftbrowse test flows/ --params ci-params.yaml --workers 4 --report-dir test-results':
    {
      skip: 'needs a project’s flows/ directory; test-runner.test.ts runs swiftbrowse test on fixtures',
    },
  'docs/grid.md:GRID_URL=http://127.0.0.1:4444 swiftbrowse serve': {
    skip: 'a foreground server needing a Selenium Grid; the Grid arm of the suite runs it',
  },
  "docs/http-api.md:}'": { fails: ['not_actionable'] },
  'docs/sessions.md:REDIS_URL=redis://127.0.0.1:6379 swiftbrowse serve': {
    skip: 'a foreground server needing Redis; restart.test.ts runs the Redis store',
  },
  'docs/targets-and-waiting.md:sb hover \'{"target":{"text":"Shipped","within":{"xpath":"//tr[td=\\"#1003\\"]"}}}\'':
    {
      fails: ['ambiguous'],
    },
  'docs/targets-and-waiting.md:sb click \'{"target":{"text":"Sign in"}}\'': {
    fails: ['ambiguous'],
  },
  'docs/targets-and-waiting.md:sb click \'{"target":{"role":"link","name":"Docs"},"timeout":1000}\'':
    {
      fails: ['not_actionable'],
    },
};

/** The JSON values a command printed, one after another (curl adds no newline between them). */
function jsonValues(text: string): { ok?: boolean; error?: { kind?: string } }[] {
  const values: { ok?: boolean; error?: { kind?: string } }[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{' || (ch === '[' && depth > 0)) {
      if (depth++ === 0) start = i;
    } else if ((ch === '}' || ch === ']') && depth > 0 && --depth === 0) {
      values.push(JSON.parse(text.slice(start, i + 1)) as { ok?: boolean });
    }
  }
  return values;
}

const isShell = (b: Block) => b.lang === 'sh' || b.lang === 'bash';
/** A JSON block the shell block after it reads (`-d @steps.json`, `batch steps.json`). */
const STEPS_FILE = 'steps.json';

let h: Harness;
const cwd = mkdtempSync(join(tmpdir(), 'swiftbrowse-docs-'));
const secretsDir = join(cwd, 'secrets');
before(async () => {
  h = await startHarness({ secretsDirs: [secretsDir] });
  // docs/flows.md's flow signs in with the `admin` secret; secrets are read when asked for.
  mkdirSync(join(secretsDir, 'admin'), { recursive: true });
  writeFileSync(join(secretsDir, 'admin', 'password'), 'demo-password');
  writeFileSync(join(secretsDir, 'admin', '_allowed_urls'), `${h.origin}\n`);
});
after(async () => {
  await h.closeBrowsers();
  await h.op('close', {}, 'demo');
  await h.close();
  rmSync(cwd, { recursive: true, force: true });
});

/** The block as this machine runs it: the documented server 127.0.0.1:8765 is the harness's. */
function localised(text: string): string {
  const address = new URL(h.url).host;
  return text
    .replaceAll('localhost:8765', address)
    .replaceAll('127.0.0.1:8765', address)
    .replaceAll('npx swiftbrowse ', 'swiftbrowse ');
}

async function runShell(script: string): Promise<string> {
  const prelude = `swiftbrowse() { ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"; }\n${sbHelper()}\n`;
  return new Promise((resolve) => {
    exec(
      prelude + script,
      {
        cwd,
        timeout: 120_000,
        shell: '/bin/sh',
        env: { ...process.env, SWIFTBROWSE_URL: h.url, SWIFTBROWSE_SESSION: '' },
      },
      (_error, stdout, stderr) => resolve(`${stdout}\n${stderr}`),
    );
  });
}

/** The docs' own `sb` helper (docs/targets-and-waiting.md), which the other pages use too. */
function sbHelper(): string {
  const def = fencedBlocks('docs/targets-and-waiting.md').find((b) => b.text.startsWith('sb() {'));
  assert.ok(def, 'docs/targets-and-waiting.md defines sb');
  return localised(def.text);
}

for (const file of DOCS) {
  const blocks = fencedBlocks(file);
  if (!blocks.some(isShell)) continue;
  describe(`${file}: every shell example, run as written`, () => {
    before(() => h.op('close', {}, 'demo'));
    blocks.forEach((block, i) => {
      if (!isShell(block)) return;
      const key = `${file}:${block.tail}`;
      const expected = EXPECTED[key] ?? {};
      const name = `line ${block.line}: ${block.head.slice(0, 70)}`;
      if ('skip' in expected) {
        test(name, { skip: expected.skip }, () => undefined);
        return;
      }
      test(name, async () => {
        const previous = blocks[i - 1];
        if (previous?.lang === 'json' && block.text.includes(STEPS_FILE))
          writeFileSync(join(cwd, STEPS_FILE), localised(previous.text));
        const yaml = blocks
          .slice(0, i)
          .reverse()
          .find((b) => b.lang === 'yaml');
        if (yaml && block.text.includes('@login.yaml'))
          writeFileSync(join(cwd, 'login.yaml'), localised(yaml.text));
        const output = await runShell(localised(block.text));
        const answers = jsonValues(output);
        const failed = answers.filter((a) => a.ok === false).map((a) => a.error?.kind ?? '?');
        assert.deepEqual(failed, expected.fails ?? [], output);
        if (!expected.output && !block.text.startsWith('sb() {'))
          assert.ok(answers.length > 0, `no answer:\n${output}`);
        for (const pattern of expected.output ?? []) assert.match(output, pattern);
      });
    });
  });
}

test('every shell example the table names exists, once', () => {
  const keys = DOCS.flatMap((f) =>
    fencedBlocks(f)
      .filter(isShell)
      .map((b) => `${f}:${b.tail}`),
  );
  const counts = Object.keys(EXPECTED).map((k) => [k, keys.filter((x) => x === k).length]);
  assert.deepEqual(
    counts.filter(([, n]) => n !== 1),
    [],
  );
});
