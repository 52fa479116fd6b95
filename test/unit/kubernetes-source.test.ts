import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KubernetesSource } from '../../src/secrets/kubernetes-source.js';
import { SecretsCatalogue } from '../../src/secrets/catalogue.js';
import { runSecretSourceSuite } from '../helpers/secret-source-suite.js';

// Fixtures follow the Kubernetes API reference (core/v1 SecretList, Secret, Status): there is
// no cluster here to record from.
const fixture = (name: string) =>
  readFileSync(join(process.cwd(), 'test', 'fixtures', 'kubernetes', name), 'utf8');

interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  token: string;
}

let server: Server;
let api: string;
let dir: string;
let tokenPath: string;
const seen: Seen[] = [];
let forbid = false;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swiftbrowse-k8s-'));
  tokenPath = join(dir, 'token');
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      token: req.headers.authorization ?? '',
    });
    const send = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (forbid) return send(403, fixture('status-forbidden.json'));
    if (url.pathname === '/api/v1/namespaces/browsers/secrets')
      return send(200, fixture('secret-list.json'));
    if (url.pathname === '/api/v1/namespaces/browsers/secrets/admin-login')
      return send(200, fixture('secret-admin-login.json'));
    send(404, '{"kind":"Status","code":404}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const source = () => new KubernetesSource({ apiUrl: api, namespace: 'browsers', tokenPath });

describe('kubernetes source', () => {
  runSecretSourceSuite('kubernetes', async () => {
    writeFileSync(tokenPath, 'token-one');
    return {
      source: source(),
      name: 'admin-login',
      key: 'password',
      value: 's3cr3t-pass',
      origin: 'https://admin.example.com',
    };
  });

  test('one labelled list call, projected to names and keys; only GET on secrets', async () => {
    writeFileSync(tokenPath, 'token-one\n');
    seen.length = 0;
    const { entries, problems } = await source().list();
    assert.deepEqual(problems, []);
    assert.deepEqual(seen, [
      {
        method: 'GET',
        path: '/api/v1/namespaces/browsers/secrets',
        query: { labelSelector: 'swiftbrowse.io/expose=true' },
        token: 'Bearer token-one',
      },
    ]);
    assert.deepEqual(entries[0], {
      name: 'admin-login',
      keys: ['password', 'tls.crt', 'username'],
      description: 'Admin login for the staging panel',
      allowedOrigins: ['https://admin.example.com'],
      restricted: true,
      rejected: [
        'line 2: https://admin.example.com:8443 carried a path and a query; write the origin alone (scheme, host, port)',
      ],
    });
    assert.equal(entries[1].session, 'research-bot');
    assert.ok(!JSON.stringify(entries).includes('czNjcjN0'), 'no value survives the projection');
  });

  test('the token is re-read on every call and a value is read with one get', async () => {
    writeFileSync(tokenPath, 'token-one');
    const src = source();
    const [entry] = (await src.list()).entries;
    writeFileSync(tokenPath, 'token-rotated');
    seen.length = 0;
    assert.equal(await src.read(entry, 'password'), 's3cr3t-pass');
    assert.deepEqual(seen, [
      {
        method: 'GET',
        path: '/api/v1/namespaces/browsers/secrets/admin-login',
        query: {},
        token: 'Bearer token-rotated',
      },
    ]);
  });

  test('a session-scoped secret is listed to its session only', async () => {
    writeFileSync(tokenPath, 'token-one');
    const catalogue = new SecretsCatalogue([source()], 0);
    const names = async (s: string) => (await catalogue.view(s)).entries.map((e) => e.entry.name);
    assert.deepEqual(await names('research-bot'), ['admin-login', 'bot-only']);
    assert.deepEqual(await names('someone-else'), ['admin-login']);
  });

  test('a refusal from the API is a problem that names the missing permission, not a failure', async () => {
    forbid = true;
    try {
      const { entries, problems } = await source().list();
      assert.deepEqual(entries, []);
      assert.match(
        problems[0],
        /answered 403; the service account needs get and list on secrets in browsers/,
      );
    } finally {
      forbid = false;
    }
  });
});
