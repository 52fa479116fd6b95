// Server surface: the OpenAPI document (issue #21 item 2) from a live server, checked by a real
// OpenAPI 3.1 validator and the way a client generator reads it, and its reference page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { chromium, type Browser } from 'playwright-core';
import { parse } from 'yaml';
import { ERROR_KINDS } from '../../src/core/errors.js';
import { CHROMIUM_ARGS, findBrowser } from '../../src/drivers/find-browser.js';
import { startHarness, type Harness } from '../helpers/harness.js';

type Json = Record<string, unknown>;
type Operation = {
  operationId?: string;
  security?: Json[];
  requestBody?: { content: Record<string, { schema: Json }> };
  responses: Record<string, unknown>;
  tags?: string[];
};

const TOKEN = 'caller-token-openapi';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

let h: Harness;
let doc: Json;
before(async () => {
  // A caller token is set: the document and its page must still open without one.
  h = await startHarness({ token: TOKEN });
  const r = await h.request('/openapi.json');
  assert.equal(r.status, 200);
  doc = (await r.json()) as Json;
});
after(() => h.close());

function operations(document: Json): [string, string, Operation][] {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((m) => m in item).map((m): [string, string, Operation] => [
      path,
      m,
      item[m] as Operation,
    ]),
  );
}

/** Every `$ref` in the document, with whether its JSON pointer names something. */
function refs(document: Json): { ref: string; found: boolean }[] {
  const out: { ref: string; found: boolean }[] = [];
  const resolve = (pointer: string): unknown =>
    pointer
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], document);
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string')
        out.push({ ref: v, found: v.startsWith('#/') && resolve(v) !== undefined });
      else walk(v);
    }
  };
  walk(document);
  return out;
}

describe('the OpenAPI document', () => {
  test('is valid OpenAPI 3.1 by a real validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
    assert.equal(validator.version, '3.1');
  });

  test('every registered op has its POST /browser/<op> path with its argument schema', () => {
    const paths = doc.paths as Record<string, { post?: Operation }>;
    for (const op of h.app.runtime.ops.values()) {
      const post = paths[`/browser/${op.name}`]?.post;
      assert.ok(post, `no path for op ${op.name}`);
      assert.equal(post.operationId, `browser_${op.name}`);
      const schema = post.requestBody?.content['application/json'].schema;
      assert.ok(schema, `op ${op.name} has no request body schema`);
      assert.equal(post.responses['200'] !== undefined, true);
    }
    const click = paths['/browser/click'].post!.requestBody!.content['application/json'].schema;
    assert.ok((click.properties as Json).target, 'click documents its target');
    assert.ok((click.properties as Json).expect, 'click documents expect');
  });

  test('an op answers the ActionResult on 200 and a Failure at every status of an error kind', () => {
    const click = (doc.paths as Record<string, { post: Operation }>)['/browser/click'].post;
    assert.deepEqual(click.responses['200'], { $ref: '#/components/responses/ActionResult' });
    for (const { http } of Object.values(ERROR_KINDS))
      assert.deepEqual(click.responses[String(http)], {
        $ref: `#/components/responses/E${http}`,
      });
    const schemas = (doc.components as Json).schemas as Record<string, Json>;
    const kind = (schemas.Error.properties as Record<string, Json>).kind;
    assert.deepEqual(kind.enum, Object.keys(ERROR_KINDS));
    assert.deepEqual((schemas.ActionResult.properties as Json).error, {
      $ref: '#/components/schemas/Error',
    });
  });

  test('documents the non-op routes with the token each needs', () => {
    const paths = doc.paths as Record<string, Record<string, Operation>>;
    assert.equal(paths['/flows/{name}/runs'].post.operationId, 'flow_run');
    assert.deepEqual(paths['/flows/{name}/runs'].post.security, [{ callerToken: [] }]);
    assert.ok(paths['/flows/{name}'].put.requestBody?.content['application/yaml']);
    const listParams = (paths['/flows'].get as Operation & { parameters: Json[] }).parameters;
    assert.ok(
      listParams.some((p) => p.name === 'url' && p.in === 'query'),
      'GET /flows documents ?url=',
    );
    assert.deepEqual(paths['/admin/sessions'].get.security, [
      { operatorToken: [] },
      { operatorCookie: [] },
    ]);
    assert.deepEqual(paths['/files/{session}/{name}'].get.security, [], 'a signed link is open');
    assert.deepEqual(paths['/health'].get.security, []);
    assert.ok(paths['/admin/files/{session}'].get);
    assert.ok(paths['/browser/batch'].post.tags?.includes('batch'));
    const schemes = (doc.components as Json).securitySchemes as Json;
    assert.deepEqual(schemes.callerToken, {
      type: 'http',
      scheme: 'bearer',
      description: (schemes.callerToken as Json).description,
    });
  });

  test('reads as a client generator needs: unique operationIds, every $ref resolves', () => {
    const ids = operations(doc).map(([path, method, o]) => {
      assert.ok(o.operationId, `${method} ${path} has no operationId`);
      assert.ok(o.tags?.length, `${method} ${path} has no tag`);
      return o.operationId;
    });
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    const broken = refs(doc).filter((r) => !r.found);
    assert.deepEqual(broken, []);
    assert.ok(refs(doc).length > 100);
  });

  test('the YAML form parses to the same document', async () => {
    const r = await h.request('/openapi.yaml');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/yaml/);
    const text = await r.text();
    assert.doesNotMatch(text, /^\s*[^#\n]*: [*&]\w/m, 'no YAML aliases or anchors');
    assert.deepEqual(parse(text), doc);
  });

  test('names the server the caller reached', () => {
    assert.deepEqual(doc.servers, [{ url: h.url }]);
  });

  test('under ROUTE_PREFIX the server URL carries the prefix and paths do not', async () => {
    const x = await startHarness({ routePrefix: '/sb' });
    try {
      assert.ok(x.url.endsWith('/sb'));
      const prefixed = (await (await x.request('/openapi.json')).json()) as Json;
      assert.deepEqual(prefixed.servers, [{ url: x.url }]);
      assert.ok((prefixed.paths as Json)['/browser/goto']);
      assert.equal(
        Object.keys(prefixed.paths as Json).some((p) => p.startsWith('/sb')),
        false,
      );
      for (const page of ['reference/', 'reference/swagger-ui-bundle.js'])
        assert.equal((await x.request(`/${page}`)).status, 200, `${page} under the prefix`);
      const r = await fetch(`${x.origin}/openapi.json`);
      assert.equal(r.status, 404, 'outside the prefix there is no document');
    } finally {
      await x.close();
    }
  });
});

describe('the reference page', () => {
  let browser: Browser;
  before(async () => {
    browser = await chromium.launch({
      executablePath: findBrowser(h.app.runtime.sessions.config.browserPath),
      args: CHROMIUM_ARGS,
    });
  });
  after(() => browser.close());

  test('is linked at /reference, relatively', async () => {
    const r = await h.request('/reference', { redirect: 'manual' });
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), 'reference/');
  });

  test('renders every operation offline, under the server CSP, without a token', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    const failed: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (req) => {
      if (!req.url().startsWith(h.origin) && !req.url().startsWith('data:'))
        elsewhere.push(req.url());
    });
    page.on('response', (res) => {
      if (res.status() !== 200) failed.push(`${res.status()} ${res.url()}`);
    });
    const response = await page.goto(`${h.url}/reference/`);
    assert.equal(response?.status(), 200);
    assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    await page.locator('.opblock').first().waitFor({ timeout: 15_000 });
    assert.equal(
      await page
        .locator('.info .title')
        .first()
        .innerText()
        .then((t) => t.startsWith('SwiftBrowse')),
      true,
    );
    const operationCount = operations(doc).length;
    assert.equal(await page.locator('.opblock').count(), operationCount);
    assert.deepEqual(problems, [], 'no script error and no CSP violation');
    assert.deepEqual(elsewhere, [], 'nothing is loaded from another origin');
    assert.deepEqual(failed, [], 'every asset loads');
    await page.close();
  });
});
