import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { startHarness, type Harness } from '../helpers/harness.js';

const run = promisify(execFile);
const README = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');

/** The fenced blocks of one README section, by language. */
function blocks(title: string, lang: string): string[] {
  const start = README.indexOf(`## ${title}\n`);
  assert.ok(start >= 0, `README has no "## ${title}" section`);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (m) => m[1],
  );
}

let h: Harness;
const cwd = mkdtempSync(join(tmpdir(), 'swiftbrowse-readme-'));
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h.closeBrowsers();
  await h.close();
  rmSync(cwd, { recursive: true, force: true });
});

describe('the README "Flows" example, run as written', () => {
  test('saves the login flow and its run signs in on the demo site', async () => {
    const port = new URL(h.url).port;
    const [yaml] = blocks('Flows', 'yaml');
    const [bash] = blocks('Flows', 'bash');
    assert.ok(yaml && bash, 'a yaml flow and the curl lines that save and run it');
    // The README's server is the default 127.0.0.1:8765; this one listens on a free port.
    writeFileSync(join(cwd, 'login.yaml'), yaml.replaceAll(':8765/', `:${port}/`));
    const lines = bash
      .trim()
      .split('\n')
      .map((line) => line.replaceAll('localhost:8765', `127.0.0.1:${port}`));
    assert.equal(lines.length, 2);
    const answers: { ok?: boolean; data?: { status?: string } }[] = [];
    for (const line of lines) {
      const { stdout } = await run('sh', ['-c', line], { cwd, timeout: 60_000 });
      answers.push(JSON.parse(stdout) as { ok?: boolean; data?: { status?: string } });
    }
    const [saved, ran] = answers;
    assert.notEqual(saved.ok, false, JSON.stringify(saved));
    assert.equal(ran.ok, true, JSON.stringify(ran));
    assert.equal(ran.data?.status, 'ok', JSON.stringify(ran));
    assert.match(JSON.stringify(ran.data), /fill \\"Password\\"/);
    const { body } = await h.op('status', {}, 'me');
    assert.match(JSON.stringify(body), /dashboard\.html/);
  });
});
