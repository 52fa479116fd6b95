// Server surface: the operator console (/admin/, issue #20) in a real Chromium against a real
// server with real sessions, files and flows. Screens whose routes come with the `api` and
// `settings` branches are probed first: their tests skip on a server without them.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findBrowser } from '../../src/drivers/find-browser.js';
import { startHarness } from '../helpers/harness.js';
import { TEST_BROWSER } from '../helpers/backend.js';

const TOKEN = 'operator-console-token';
const JS_URL = 'javascript:alert(document.cookie)';
// Set to a directory (docs/admin) to refresh the screenshots of docs/admin.md.
const SHOTS = process.env.SWIFTBROWSE_CONSOLE_SHOTS;

const secretsDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-console-secrets-'));
mkdirSync(join(secretsDir, 'vault'));
writeFileSync(join(secretsDir, 'vault', 'password'), 'never-shown-value\n');
const h = await startHarness({ adminToken: TOKEN, secretsDirs: [secretsDir] });
writeFileSync(join(secretsDir, 'vault', '_allowed_urls'), `${h.server.PREFIX}\n`);

const asOperator = { authorization: `Bearer ${TOKEN}` };
const admin = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
  const r = await h.request(`/admin/${path}`, {
    ...init,
    headers: { ...asOperator, ...(init.headers as Record<string, string>) },
  });
  return (await r.json()) as T;
};

/** Whether this server has a route (the catch-all answers "No route" to one it lacks). */
async function hasRoute(method: string, path: string): Promise<boolean> {
  const r = await h.request(`/admin/${path}`, {
    method,
    headers: { ...asOperator, 'content-type': 'application/json' },
    body: method === 'GET' || method === 'DELETE' ? undefined : '{}',
  });
  if (r.status !== 404) return true;
  const body = (await r.json()) as { error?: { message?: string } };
  return !body.error?.message?.startsWith('No route ');
}

const hasDeleteData = await hasRoute('DELETE', 'sessions/no-such-session/data');
const hasKeep = await hasRoute('POST', 'files/no-such-session/none.txt/keep');
const hasOutline = await hasRoute('GET', 'flows/global/no-such-flow/outline');
const hasSettings = await hasRoute('GET', 'settings');
const hasAudit = await hasRoute('GET', 'audit');

const CSV = 'id,total\n1,42\n';
h.server.setRoute('/export/report.csv', (_req, res) => {
  res.writeHead(200, {
    'content-type': 'text/csv',
    'content-disposition': 'attachment; filename="report.csv"',
  });
  res.end(CSV);
});
h.server.setContent(
  '/shop.html',
  '<!doctype html><title>Shop</title><a href="/export/report.csv">Export</a><label for=pw>Password</label><input id=pw type=password>',
);

// alpha: open, a download kept, a screenshot not (browser files go with the browser).
// beta: open, ended from the console. done: ended by its caller.
const ok = async (name: string, args: unknown, session: string) => {
  const r = await h.op(name, args, session);
  assert.equal(r.body.ok, true, `${name}: ${JSON.stringify(r.body.error)}`);
  return r.body;
};
await ok('goto', { url: `${h.server.PREFIX}/shop.html` }, 'alpha');
await ok('click', { target: { role: 'link', name: 'Export' } }, 'alpha');
await ok('keep_file', { name: 'report.csv' }, 'alpha');
const shot = (await ok('screenshot', {}, 'alpha')).evidence![0].name;
await ok(
  'flow_save',
  {
    flow: {
      name: 'sign-in',
      description: 'Signs in to the shop',
      parameters: {
        type: 'object',
        properties: {
          page: { type: 'string', description: 'Where the form is' },
          unused: { type: 'string', default: 'x' },
        },
      },
      steps: [
        { id: 'open', op: 'goto', args: { url: '${page}' } },
        {
          id: 'password',
          op: 'fill',
          args: { target: { label: 'Password' }, secret: { name: 'vault', key: 'password' } },
          note: 'the password comes from the vault',
        },
      ],
    },
  },
  'alpha',
);
await ok('goto', { url: `${h.server.PREFIX}/shop.html` }, 'beta');
await ok('goto', { url: `${h.server.PREFIX}/shop.html` }, 'done');
await ok('close', {}, 'done');
// A record from a page that reported a javascript: URL (an older server stored what it was told).
const doneRecord = (await h.app.runtime.sessions.store.load('done'))!;
await h.app.runtime.sessions.store.save({ ...doneRecord, name: 'jsurl', lastUrl: JS_URL });
const GLOBAL_YAML =
  '# shared by every session\nname: greet\nsteps:\n  - id: home\n    op: goto\n    args:\n      url: https://example.com/\n';
await h.request('/admin/flows/global/greet', {
  method: 'PUT',
  headers: { ...asOperator, 'content-type': 'application/yaml' },
  body: GLOBAL_YAML,
});

// ghost: a kept file on disk and no session record (an orphan).
mkdirSync(join(h.dataDir, 'files', 'ghost'), { recursive: true });
writeFileSync(join(h.dataDir, 'files', 'ghost', 'notes.txt'), 'left behind\n');
const hasOrphans = (await admin<{ sessions: { name: string }[] }>('sessions')).sessions.some(
  (s) => s.name === 'ghost',
);
const hasBrowserRecord = 'browser_record' in (await admin<object>('sessions/alpha'));

const browser: Browser = await chromium.launch({
  executablePath: findBrowser(h.app.runtime.sessions.config.browserPath),
  args: CHROMIUM_ARGS,
});
const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
const page: Page = await context.newPage();
const consoleUrl = `${h.url}/admin/`;

after(async () => {
  await browser.close();
  await h.closeBrowsers();
  await h.close();
  rmSync(secretsDir, { recursive: true, force: true });
});

async function open(hash: string): Promise<void> {
  // A load, not a hash change: the screen is drawn from scratch and `aria-busy` is set at once.
  await page.goto('about:blank');
  await page.goto(`${consoleUrl}${hash}`);
  await page.locator('main:not([aria-busy])').waitFor();
  await page.locator('main h1').waitFor();
}

async function screenshot(name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Presses Tab until the focused element has this accessible text; fails after 60 presses. */
async function tabTo(text: string | RegExp): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(
      () =>
        (document.activeElement?.getAttribute('aria-label') ||
          document.activeElement?.textContent ||
          '') as string,
    );
    if (typeof text === 'string' ? focused.trim() === text : text.test(focused)) return;
  }
  assert.fail(`No element named ${String(text)} is reachable with Tab`);
}

const focusedInDialog = () =>
  page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]'));
const focusedText = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');

const axeSource = (() => {
  try {
    return readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  } catch {
    return undefined;
  }
})();

/** The accessibility scan: serious and critical axe-core violations on the screen shown. */
async function axeViolations(): Promise<string[]> {
  await page.evaluate(axeSource!);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: () => Promise<{
            violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe;
    const { violations } = await axe.run();
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

describe('the operator console', () => {
  test('runs under a mount prefix: every page, API and link path is relative', async () => {
    // A proxy serving the server under /sb/, as ROUTE_PREFIX or a reverse proxy would.
    const target = new URL(h.url);
    const proxy: Server = createServer((req, res) => {
      if (!req.url?.startsWith('/sb/')) {
        res.writeHead(404).end('outside the prefix');
        return;
      }
      const upstream = forward(
        {
          host: target.hostname,
          port: target.port,
          path: req.url.slice(3),
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/sb`;
    try {
      // The cookie is the host's, whatever the port: one sign-in serves both.
      await page.goto(`${consoleUrl}?token=${TOKEN}`);
      await page.goto(`${base}/admin/#/sessions`);
      await page.locator('tr[data-session="alpha"]').waitFor();
      await page.goto('about:blank');
      await page.goto(`${base}/admin/#/sessions/alpha/files`);
      const openLink = page.getByRole('link', { name: /^Open / }).first();
      assert.match((await openLink.getAttribute('href'))!, new RegExp(`^${base}/files/alpha/`));
      await page.goto('about:blank');
      await page.goto(`${base}/admin/#/sessions/alpha`);
      const viewer = page.getByRole('link', { name: 'Open in log viewer' });
      assert.equal(await viewer.getAttribute('href'), `${base}/viewer#session=alpha`);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  test('refuses a browser without the operator token', async () => {
    const stranger = await browser.newContext();
    const p = await stranger.newPage();
    const response = await p.goto(consoleUrl);
    assert.equal(response?.status(), 401);
    assert.match(await p.locator('body').innerText(), /permission_denied/);
    assert.equal(await p.locator('nav').count(), 0, 'no console is served');
    await stranger.close();
  });

  test('a write to /admin from a page of another origin is still refused', async () => {
    const r = await h.request('/admin/files/alpha/clear-downloads', {
      method: 'POST',
      headers: { ...asOperator, 'content-type': 'application/json', origin: h.server.PREFIX },
      body: '{}',
    });
    assert.equal(r.status, 403);
    assert.ok(
      (await admin<{ files: unknown[] }>('files/alpha')).files.length > 0,
      'nothing removed',
    );
  });

  test('opens with ?token= once, then keeps it in a cookie and drops it from the address', async () => {
    await page.goto(`${consoleUrl}?token=${TOKEN}`);
    assert.equal(new URL(page.url()).search, '');
    const bare = await h.request('/admin', { headers: asOperator, redirect: 'manual' });
    assert.equal(bare.headers.get('location'), 'admin/', '/admin goes to the console, relatively');
    await page.locator('tr[data-session="alpha"]').waitFor();
    assert.equal(new URL(page.url()).pathname, '/admin/');
  });

  test('lists every session with its state, last page and counts', async () => {
    await open('#/sessions');
    const row = (name: string) => page.locator(`tr[data-session="${name}"]`);
    assert.equal(await row('beta').getAttribute('data-state'), 'open');
    assert.match((await row('done').getAttribute('data-state'))!, /^(closed|ended)$/);
    assert.equal(
      await row('beta')
        .getByRole('link', { name: `${h.server.PREFIX}/shop.html` })
        .count(),
      1,
    );
    assert.match(await row('alpha').innerText(), /playwright|grid|webdriver/);
    await screenshot('sessions');
  });

  test('an orphan directory is listed with its files', { skip: !hasOrphans }, async () => {
    await open('#/sessions');
    const row = page.locator('tr[data-session="ghost"]');
    assert.match(await row.innerText(), /orphan/);
    await row.getByRole('link', { name: 'Files of ghost' }).click();
    await page.locator('li.tile', { hasText: 'notes.txt' }).waitFor();
  });

  test('a javascript: last URL is shown as text, never as a link', async () => {
    await open('#/sessions');
    const row = page.locator('tr[data-session="jsurl"]');
    assert.match(await row.innerText(), /javascript:alert/);
    assert.equal(await page.locator('a[href^="javascript"]').count(), 0);
    await open('#/sessions/jsurl');
    const last = page.getByTestId('last-page');
    assert.equal(await last.innerText(), JS_URL);
    assert.equal(await last.locator('a').count(), 0);
    assert.equal(await page.locator('a[href^="javascript"]').count(), 0);
  });

  test('a session page shows its Session and Browser cards, capabilities collapsed, and a viewer link', async () => {
    await open('#/sessions/beta');
    const sessionCard = page.getByRole('region', { name: 'Session', exact: true });
    const browserCard = page.getByRole('region', { name: 'Browser', exact: true });
    assert.match(await sessionCard.innerText(), /Timeouts/);
    assert.match(
      await browserCard.innerText(),
      new RegExp(TEST_BROWSER === 'firefox' ? 'firefox' : 'chrom', 'i'),
      'the browser that ran',
    );
    const details = page.locator('details.capabilities');
    if (await details.count()) assert.equal(await details.getAttribute('open'), null);
    const viewer = page.getByRole('link', { name: 'Open in log viewer' });
    assert.equal(
      new URL((await viewer.getAttribute('href'))!, page.url()).href,
      `${h.url}/viewer#session=beta`,
    );
    await screenshot('session');
  });

  test(
    'the Browser card says when and by whom a browser ended, after it is gone',
    { skip: !hasBrowserRecord },
    async () => {
      await open('#/sessions/done');
      const browserCard = page.getByRole('region', { name: 'Browser', exact: true });
      assert.match(await browserCard.innerText(), /Ended\s+.+ by the caller/);
      assert.match(await browserCard.innerText(), /Version\s+\d+/, 'what ran is kept');
    },
  );

  test(
    'capabilities open by keyboard, each with its source pills, vendor blocks summarised',
    { skip: !hasBrowserRecord },
    async () => {
      await open('#/sessions/alpha');
      const details = page.locator('details.capabilities');
      assert.equal(await details.getAttribute('open'), null, 'collapsed by default');
      await tabTo(/^Capabilities sent/);
      await page.keyboard.press('Enter');
      assert.notEqual(await details.getAttribute('open'), null);
      const entries = details.locator('li.capability');
      assert.ok((await entries.count()) > 0);
      for (const text of await entries.allInnerTexts())
        assert.match(
          text,
          /\b(flow|server|client|option|config|raw)\b/,
          `a source pill on ${text}`,
        );
      const vendor = details.locator('details.vendor summary');
      if (await vendor.count())
        assert.match(await vendor.first().innerText(), /^args \d+ · prefs \d+/);
    },
  );

  test('ends a browser by keyboard alone: Esc cancels and returns focus, Enter confirms', async () => {
    await open('#/sessions/beta');
    await tabTo('End browser');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    assert.equal(await focusedInDialog(), true, 'focus moves into the modal');
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      assert.equal(await focusedInDialog(), true, 'Tab stays in the modal');
    }
    await page.keyboard.press('Shift+Tab');
    assert.equal(await focusedInDialog(), true, 'Shift+Tab stays in the modal');
    await page.keyboard.press('Escape');
    assert.equal(await dialog.count(), 0, 'Esc closes it');
    assert.equal(await focusedText(), 'End browser', 'focus returns to the opener');
    const before = await admin<{ browser: string }>('sessions/beta');
    assert.equal(before.browser, 'open', 'Esc ended nothing');

    await page.keyboard.press('Space');
    await dialog.waitFor();
    await tabTo('End browser');
    assert.equal(await focusedInDialog(), true);
    await page.keyboard.press('Enter');
    await page.locator('#status', { hasText: 'Ended the browser of beta' }).waitFor();
    const after = await admin<{ browser: string }>('sessions/beta');
    assert.notEqual(after.browser, 'open');
    await page.getByRole('button', { name: 'End browser' }).waitFor({ state: 'detached' });
  });

  test('files: tiles with the total, clear downloads lists the names before removing them', async () => {
    await open('#/sessions/alpha/files');
    const tiles = page.locator('li.tile');
    assert.equal(await tiles.count(), 2);
    const list = await admin<{ files: { name: string; kept: boolean }[]; total_bytes: number }>(
      'files/alpha',
    );
    assert.match(await page.getByTestId('total').innerText(), /2 files/);
    assert.equal(
      await tiles.filter({ hasText: 'report.csv' }).locator('.pill').innerText(),
      'kept',
    );
    await screenshot('files');

    await page.getByRole('button', { name: 'Clear downloads' }).click();
    const dialog = page.getByRole('dialog');
    assert.deepEqual(await dialog.locator('ul.names li').allInnerTexts(), [shot]);
    const still = await admin<{ files: { name: string }[] }>('files/alpha');
    assert.ok(
      still.files.some((f) => f.name === shot),
      'nothing is removed before the confirm',
    );
    await dialog.getByRole('button', { name: 'Remove 1 file' }).click();
    // The browser's own copy of the kept report.csv goes too; the kept one stays.
    await page.locator('#status', { hasText: /Removed \d+ downloads? of alpha/ }).waitFor();
    const left = await admin<{ files: { name: string }[] }>('files/alpha');
    assert.deepEqual(
      left.files.map((f) => f.name),
      list.files.filter((f) => f.kept).map((f) => f.name),
    );
    await page.locator('li.tile', { hasText: shot }).waitFor({ state: 'detached' });
    assert.equal(await page.locator('li.tile').count(), 1);
  });

  test('files: deleting a kept file is confirmed, then it is gone', async () => {
    await open('#/sessions/alpha/files');
    await tabTo('Delete report.csv');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.locator('#status', { hasText: 'Deleted report.csv' }).waitFor();
    const left = await admin<{ files: unknown[] }>('files/alpha');
    assert.equal(left.files.length, 0);
    await page.getByText('No files').waitFor();
  });

  test('files: a download is kept with its Keep button', { skip: !hasKeep }, async () => {
    const name = (await ok('screenshot', {}, 'alpha')).evidence![0].name;
    await open('#/sessions/alpha/files');
    await page.getByRole('button', { name: `Keep ${name}` }).click();
    await page.locator('#status', { hasText: `Kept ${name}` }).waitFor();
    const list = await admin<{ files: { name: string; kept: boolean }[] }>('files/alpha');
    assert.equal(list.files.find((f) => f.name === name)?.kept, true);
  });

  test('flows: the list badges shared flows, the outline shows steps as icons, a pick shows its detail', async () => {
    await open('#/flows?session=alpha&library=alpha&name=sign-in');
    const list = page.getByRole('region', { name: 'Flow list' });
    assert.match(await list.getByRole('button', { name: /greet/ }).innerText(), /shared/);
    assert.match(await list.innerText(), /global is shared/);
    const outline = page.getByRole('region', { name: 'Outline' });
    assert.equal(await outline.getByRole('img', { name: 'goto' }).count(), 1);
    assert.equal(await outline.getByRole('img', { name: 'fill' }).count(), 1);
    await outline.getByRole('button', { name: /^Step password/ }).click();
    const detail = page.getByRole('region', { name: 'Detail' });
    assert.match(await detail.innerText(), /the password comes from the vault/);
    assert.match(await detail.innerText(), /"secret"/);
    await screenshot('flows');
  });

  test('flows: a flow and a step are picked by keyboard alone', async () => {
    await open('#/flows');
    await tabTo(/^greet/);
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'Outline' }).getByText('home').waitFor();
    await tabTo(/^Step home/);
    await page.keyboard.press('Space');
    const detail = page.getByRole('region', { name: 'Detail' });
    await detail.getByText('goto · home').waitFor();
    assert.match(await detail.innerText(), /https:\/\/example\.com\//);
    assert.match(await focusedText(), /home/, 'focus stays on the picked step');
  });

  test(
    'flows: the computed outline calls out an unread parameter and a secret bind',
    { skip: !hasOutline },
    async () => {
      await open('#/flows?library=alpha&name=sign-in');
      const outline = page.getByRole('region', { name: 'Outline' });
      assert.equal(await outline.getByRole('img', { name: 'binds a secret' }).count(), 1);
      await outline.getByRole('button', { name: /^Parameter unused/ }).click();
      assert.match(
        await page.getByRole('region', { name: 'Detail' }).innerText(),
        /No step reads unused/,
      );
      await outline.getByRole('button', { name: /^Parameter page/ }).click();
      assert.match(await page.getByRole('region', { name: 'Detail' }).innerText(), /open/);
    },
  );

  test('flows: the YAML edit is saved with If-Match, comments kept', async () => {
    await open('#/flows?library=global&name=greet');
    await tabTo('Edit YAML');
    await page.keyboard.press('Enter');
    const editor = page.getByRole('textbox', { name: 'YAML of greet' });
    assert.match(await editor.inputValue(), /^# shared by every session\n/);
    await editor.fill(GLOBAL_YAML.replace('example.com/', 'example.com/home'));
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.locator('#status', { hasText: 'Saved global/greet' }).waitFor();
    const stored = await admin<{ yaml: string }>('flows/global/greet');
    assert.match(stored.yaml, /^# shared by every session/);
    assert.match(stored.yaml, /example\.com\/home/);
  });

  test("flows: a save over someone else's shows both versions' heads", async () => {
    await open('#/flows?library=global&name=greet');
    await page.getByRole('button', { name: 'Edit YAML' }).click();
    const theirs =
      '# changed by another operator\nname: greet\nsteps:\n  - op: goto\n    args:\n      url: https://example.org/\n';
    await h.request('/admin/flows/global/greet', {
      method: 'PUT',
      headers: { ...asOperator, 'content-type': 'application/yaml' },
      body: theirs,
    });
    const editor = page.getByRole('textbox', { name: 'YAML of greet' });
    await editor.fill(
      '# mine\nname: greet\nsteps:\n  - op: goto\n    args:\n      url: https://example.net/\n',
    );
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('theirs').waitFor();
    assert.match(await page.getByTestId('theirs').innerText(), /changed by another operator/);
    assert.match(await page.getByTestId('yours').innerText(), /# mine/);
    await screenshot('flow-conflict');
    const stored = await admin<{ yaml: string }>('flows/global/greet');
    assert.equal(stored.yaml, theirs, 'the refused save changed nothing');
    await page.getByRole('button', { name: 'Keep mine, save over it' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.locator('#status', { hasText: 'Saved global/greet' }).waitFor();
    assert.match((await admin<{ yaml: string }>('flows/global/greet')).yaml, /# mine/);
  });

  test('flows: moves a flow to global and back to the session, and deletes it confirmed', async () => {
    await open('#/flows?session=alpha&library=alpha&name=sign-in');
    await page.getByRole('button', { name: 'Move to global' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Move to global' }).click();
    await page.locator('#status', { hasText: 'Moved sign-in to global' }).waitFor();
    const libraries = async () =>
      (
        await admin<{ libraries: { library: string; flows: { name: string }[] }[] }>('flows')
      ).libraries
        .filter((l) => l.flows.some((f) => f.name === 'sign-in'))
        .map((l) => l.library);
    assert.deepEqual(await libraries(), ['global']);

    await page.getByRole('button', { name: 'Move to session alpha' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Move' }).click();
    await page.locator('#status', { hasText: 'Moved sign-in to alpha' }).waitFor();
    assert.deepEqual(await libraries(), ['alpha']);

    await page.getByRole('button', { name: 'Delete sign-in' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.locator('#status', { hasText: 'Deleted alpha/sign-in' }).waitFor();
    assert.deepEqual(await libraries(), []);
  });

  test('settings: a server without the settings view says so', { skip: hasSettings }, async () => {
    await open('#/settings');
    assert.match(await page.locator('main').innerText(), /not available on this server/);
    await screenshot('settings');
    await open('#/audit');
    assert.match(await page.locator('main').innerText(), /not available on this server/);
    await screenshot('audit');
  });

  test(
    'settings: every setting with its source, tokens masked',
    { skip: !hasSettings },
    async () => {
      await open('#/settings');
      const text = await page.locator('main').innerText();
      assert.ok(!text.includes(TOKEN), 'the operator token is never shown');
      assert.match(text, /••••/);
      assert.ok((await page.locator('tr[data-setting]').count()) > 10);
      await screenshot('settings');
    },
  );

  test('audit: a bind and a refusal appear live, refusals first', { skip: !hasAudit }, async () => {
    await open('#/audit');
    await page.getByText('Live:').waitFor();
    await ok('goto', { url: `${h.server.PREFIX}/shop.html` }, 'gamma');
    await ok(
      'fill',
      { target: { label: 'Password' }, secret: { name: 'vault', key: 'password' } },
      'gamma',
    );
    await page.locator('tr[data-allowed="true"]', { hasText: 'gamma' }).waitFor();
    // A real field and a key the secret lacks: the bind itself refuses (a non-field target fails
    // before any bind, so nothing would be audited).
    const refused = await h.op(
      'fill',
      { target: { label: 'Password' }, secret: { name: 'vault', key: 'pin' } },
      'gamma',
    );
    assert.equal(refused.body.ok, false);
    await page.locator('tr[data-allowed="false"]', { hasText: 'gamma' }).waitFor();
    const first = page.locator('tbody tr').first();
    assert.equal(await first.getAttribute('data-allowed'), 'false');
    assert.ok(!(await page.locator('main').innerText()).includes('never-shown-value'));
    await screenshot('audit');
  });

  test(
    "sessions: a finished session's data is deleted after a confirm",
    { skip: !hasDeleteData },
    async () => {
      await open('#/sessions');
      await page.getByRole('button', { name: 'Delete data of done' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete data' }).click();
      await page.locator('#status', { hasText: 'Deleted the data of done' }).waitFor();
      const list = await admin<{ sessions: { name: string; files?: number }[] }>('sessions');
      assert.ok(!list.sessions.some((s) => s.name === 'done' && (s.files ?? 0) > 0));
    },
  );

  test(
    'an accessibility scan finds no serious or critical violation on any screen',
    { skip: axeSource ? false : 'axe-core is not installed (add it as a dev dependency)' },
    async () => {
      const found: string[] = [];
      for (const hash of [
        '#/sessions',
        '#/sessions/beta',
        '#/sessions/alpha/files',
        '#/flows?library=global&name=greet',
        '#/settings',
        '#/audit',
      ]) {
        await open(hash);
        found.push(...(await axeViolations()).map((v) => `${hash}: ${v}`));
      }
      await open('#/flows?library=global&name=greet');
      await page.getByRole('button', { name: 'Edit YAML' }).click();
      found.push(...(await axeViolations()).map((v) => `edit modal: ${v}`));
      assert.deepEqual(found, []);
    },
  );
});
