// The secret sweep: a secret bound to the fixture origin is filled through HTTP and MCP (also into
// pages whose cross-origin frame steals focus); then every response, every request the fixture's
// thief frame received, every file the server wrote and the Redis records are searched for the
// value in every encoding it could be written in.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectClient } from '../agents/mcp-client.js';
import { startRedis } from '../../test/helpers/redis.js';
import {
  brief,
  op,
  resultOf,
  send,
  ServerChild,
  sleep,
  type Checks,
  type Reply,
} from './common.js';
import type { Hostile } from './hostile.js';

/** A substring of base64(x) that holds whatever bytes come before and after `value`. */
function base64Forms(value: Buffer): string[] {
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const b = Buffer.concat([Buffer.alloc(k), value]);
    const start = Math.ceil((8 * k) / 6);
    const end = Math.floor((8 * b.length) / 6);
    const std = b.toString('base64').slice(start, end);
    out.push(std, b.toString('base64url').slice(start, end));
  }
  return out;
}

/** Every way the value could be written down, each with its name. */
export function encodings(value: string): { name: string; bytes: Buffer }[] {
  const utf8 = Buffer.from(value, 'utf8');
  const utf16be = Buffer.from(value, 'utf16le').swap16();
  const forms: [string, string | Buffer][] = [
    ['plain', utf8],
    ['url-encoded', encodeURIComponent(value)],
    ['form-encoded', new URLSearchParams({ v: value }).toString().slice(2)],
    ['json-escaped', JSON.stringify(value).slice(1, -1)],
    ['html-escaped', value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')],
    ['hex', utf8.toString('hex')],
    ['HEX', utf8.toString('hex').toUpperCase()],
    ['utf-16le', Buffer.from(value, 'utf16le')],
    ['utf-16be hex (PDF)', utf16be.toString('hex')],
    ['UTF-16BE HEX (PDF)', utf16be.toString('hex').toUpperCase()],
    ...base64Forms(utf8).map((f, i): [string, string] => [`base64#${i}`, f]),
  ];
  const seen = new Set<string>();
  return forms
    .map(([name, f]) => ({ name, bytes: typeof f === 'string' ? Buffer.from(f, 'utf8') : f }))
    .filter(
      (f) =>
        f.bytes.length >= 6 &&
        !seen.has(f.bytes.toString('hex')) &&
        seen.add(f.bytes.toString('hex')),
    );
}

/** The encodings of the value found in `data`. */
function found(data: Buffer, forms: { name: string; bytes: Buffer }[]): string[] {
  return forms.filter((f) => data.includes(f.bytes)).map((f) => f.name);
}

function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? filesUnder(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : [],
    );
  } catch {
    return [];
  }
}

/** Signed file links a body names (`/files/<session>/<name>?…`), to be fetched and read too. */
function linksIn(text: string, base: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/https?:\/\/127\.0\.0\.1:\d+(\/files\/[^"\s\\]+)/g)) out.add(m[1]);
  void base;
  return [...out];
}

export async function runSecretSweep(options: {
  hostile: Hostile;
  checks: Checks;
  seed: number;
  env: Record<string, string>;
  log: (line: string) => void;
}): Promise<{ files: number; responses: number; bytes: number }> {
  const { hostile, checks } = options;
  const value = `rel S3cr3t+${options.seed.toString(16)}!Zq`;
  const forms = encodings(value);
  // URL credentials are not a bound secret, but every surface must drop them as well.
  const credential = `cr3d${options.seed.toString(16)}Pw`;
  const credentialForms = encodings(credential);
  const secretsDir = mkdtempSync(join(tmpdir(), 'swiftbrowse-rel-secrets-'));
  mkdirSync(join(secretsDir, 'app'));
  writeFileSync(join(secretsDir, 'app', 'password'), `${value}\n`);
  writeFileSync(join(secretsDir, 'app', '_allowed_urls'), `${hostile.base}\n`);
  const redis = await startRedis();
  const server = await ServerChild.start({
    env: { ...options.env, SECRETS_DIRS: secretsDir, REDIS_URL: redis.url, EVALUATE: 'on' },
  });
  const responses: { surface: string; text: string }[] = [];
  const keep = (surface: string, r: Reply) => (responses.push({ surface, text: r.text }), r);
  const http = (name: string, args: unknown, s = 'sx') =>
    op(server.url, name, args, s, 60_000).then((r) => keep(`POST /browser/${name}`, r));
  const secret = { secret: { name: 'app', key: 'password' } };
  const readSurfaces = async () => {
    for (const path of [
      '/admin/sessions',
      '/admin/flows',
      '/logs',
      '/logs/sx',
      '/logs/sm',
      '/browser?session=sx',
      '/browser?session=sm',
      '/secrets',
      '/flows',
      '/files?session=sx',
      '/files?session=sm',
    ])
      keep(`GET ${path}`, await send(server.url, path, { timeoutMs: 10_000 }));
  };
  let fills: Reply[] = [];
  const thief: Record<string, Reply> = {};
  try {
    // Over HTTP: a login form (password and a text field), a GET submit that puts it in the URL.
    await http('goto', { url: `${hostile.base}/rel/login.html` });
    fills = [
      await http('fill', { target: { label: 'Password' }, ...secret }),
      await http('fill', { target: { label: 'PIN' }, ...secret }),
    ];
    for (const [name, args] of [
      ['snapshot', {}],
      ['find', { target: { role: 'textbox' } }],
      ['extract', { target: { label: 'PIN' } }],
      ['screenshot', {}],
      ['click', { target: { role: 'button', name: 'Sign in' } }],
      ['snapshot', {}],
      ['extract', { target: { css: '#echo' } }],
      ['evaluate', { script: 'return document.title + location.href' }],
      ['status', {}],
      ['tab_list', {}],
      ['network', {}],
      ['console', {}],
      ['pdf', {}],
      ['screenshot', {}],
      ['state_save', {}],
      ['files', {}],
      ['report', {}],
    ] as [string, unknown][])
      await http(name, args);
    // A page opened with credentials in its URL, left open while the surfaces are read.
    const login = new URL(`${hostile.base}/rel/form.html`);
    login.username = 'rel-user';
    login.password = credential;
    await http('goto', { url: login.href }, 'su');
    // While the session is on the page whose URL carries the value (admin tabs[].url, status).
    await readSurfaces();
    // Cross-origin focus thieves, in a session of their own: the frame calls focus() every ms.
    for (const page of ['thief.html', 'thief-move.html']) {
      const before = hostile.stolen.length;
      await http('goto', { url: `${hostile.base}/rel/${page}` }, 'st');
      thief[page] = await http('fill', { target: { label: 'Password' }, ...secret }, 'st');
      // Only the length is read back, so no answer carries the value for the sweep to find.
      thief[`${page}:held`] = await http(
        'evaluate',
        { script: "return document.getElementById('pw').value.length" },
        'st',
      );
      await sleep(1000);
      thief[`${page}:stolen`] = {
        status: 0,
        text: hostile.stolen.slice(before).join('\n'),
        ms: 0,
        contentType: '',
      };
    }

    // Over MCP: the SDK client on /mcp, the same flow in another session.
    const transport = new StreamableHTTPClientTransport(
      new URL('/mcp?session=sm&tools=full', server.url),
    );
    const client = await connectClient(transport);
    const tool = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool(
        { name: `browser_${name}`, arguments: args },
        undefined,
        {
          timeout: 60_000,
        },
      );
      responses.push({ surface: `MCP browser_${name}`, text: JSON.stringify(result) });
      return result;
    };
    try {
      await tool('goto', { url: `${hostile.base}/rel/login.html` });
      await tool('fill', { target: { label: 'PIN' }, ...secret });
      await tool('fill', { target: { label: 'Password' }, ...secret });
      await tool('click', { target: { role: 'button', name: 'Sign in' } });
      await tool('snapshot', {});
      await tool('status', {});
      await tool('goto', { url: `${hostile.base}/rel/thief.html` });
      await tool('fill', { target: { label: 'Password' }, ...secret });
      for (const uri of ['skill://guide', 'swiftbrowse://ops'])
        await client.readResource({ uri }).then(
          (r) => responses.push({ surface: `MCP resource ${uri}`, text: JSON.stringify(r) }),
          () => undefined,
        );
    } finally {
      await client.close();
    }
    await sleep(1000);

    // The read surfaces again, now the sessions are closed (a closed session's record keeps its URL).
    for (const session of ['sx', 'sm']) await http('close', {}, session);
    await readSurfaces();
    const links = new Set(responses.flatMap((r) => linksIn(r.text, server.url)));
    for (const link of links)
      keep(`GET ${link.split('?')[0]}`, await send(server.url, link, { timeoutMs: 10_000 }));
  } finally {
    await server.stop(true);
  }

  // The Redis records, as a snapshot without compression so a value reads as its bytes.
  let redisHits: string[] = [];
  let redisCredential = false;
  try {
    const port = new URL(redis.url).port;
    execFileSync('redis-cli', ['-p', port, 'CONFIG', 'SET', 'rdbcompression', 'no'], {
      stdio: 'ignore',
    });
    const rdb = join(secretsDir, 'dump.rdb');
    execFileSync('redis-cli', ['-p', port, '--rdb', rdb], { stdio: 'ignore' });
    const dump = readFileSync(rdb);
    redisHits = found(dump, forms);
    redisCredential = found(dump, credentialForms).length > 0;
  } catch (e) {
    redisHits = [`could not read Redis: ${(e as Error).message}`];
  }
  await redis.stop();

  const sanity = hostile.server.requests.some(
    (r) =>
      r.startsWith('/rel/welcome') &&
      r.includes(forms.find((f) => f.name === 'form-encoded')!.bytes.toString()),
  );
  checks.add(
    'secrets',
    'the secret reaches the field on its allowed origin (the sweep is not vacuous)',
    fills.every((f) => resultOf(f)?.ok === true) && sanity,
    `fills: ${fills.map(brief).join('; ')}; the form submit carried it: ${sanity}`,
  );
  const bySurface = new Map<string, string[]>();
  for (const r of responses) {
    const hits = found(Buffer.from(r.text, 'utf8'), forms);
    if (hits.length)
      bySurface.set(r.surface, [...new Set([...(bySurface.get(r.surface) ?? []), ...hits])]);
  }
  const httpHits = [...bySurface].filter(([s]) => !s.startsWith('MCP'));
  const mcpHits = [...bySurface].filter(([s]) => s.startsWith('MCP'));
  const show = (hits: [string, string[]][]) =>
    hits.map(([s, f]) => `${s} (${f.join(', ')})`).join('; ');
  checks.add(
    'secrets',
    'no HTTP response carries the value (plain, URL-encoded, base64, hex…)',
    httpHits.length === 0,
    httpHits.length ? show(httpHits) : `${responses.length} responses read`,
  );
  checks.add('secrets', 'no MCP response carries the value', mcpHits.length === 0, show(mcpHits));
  for (const page of ['thief.html', 'thief-move.html']) {
    const stolen = thief[`${page}:stolen`]?.text ?? '';
    const fill = thief[page];
    const held = (resultOf(thief[`${page}:held`])?.data as { result?: unknown } | undefined)
      ?.result;
    // An ok fill is honest only when the page's own field holds the whole value.
    const honest = resultOf(fill)?.ok !== true || held === value.length;
    checks.add(
      'secrets',
      `focus-stealing cross-origin frame (${page === 'thief.html' ? 'the frame steals focus' : 'the page moves focus into it'}): the frame receives nothing; fill is an error or the page's field holds the value`,
      stolen.length === 0 && honest,
      `fill ${fill ? brief(fill) : 'not run'}; the field holds ${String(held)} of ${value.length} characters; beacons to the frame's origin: ${stolen ? `${stolen.split('\n').length}, values found as ${found(Buffer.from(stolen), forms).join(', ') || 'other text'}` : 'none'}`,
    );
  }
  const files = filesUnder(server.dataDir);
  const credentialAt = [
    ...responses
      .filter((r) => found(Buffer.from(r.text, 'utf8'), credentialForms).length)
      .map((r) => r.surface),
    ...files
      .filter((f) => found(readFileSync(f), credentialForms).length)
      .map((f) => f.slice(server.dataDir.length + 1)),
    ...(redisCredential ? ['Redis'] : []),
  ];
  checks.add(
    'secrets',
    'URL credentials (user:password@) are kept nowhere: admin tabs[].url, status, logs, Redis lastUrl',
    credentialAt.length === 0,
    credentialAt.length ? [...new Set(credentialAt)].join('; ') : 'not found',
  );
  const fileHits: string[] = [];
  let bytes = 0;
  for (const file of files) {
    const data = readFileSync(file);
    bytes += data.length;
    const hits = found(data, forms);
    if (hits.length) fileHits.push(`${file.slice(server.dataDir.length + 1)} (${hits.join(', ')})`);
  }
  checks.add(
    'secrets',
    'no file under DATA_DIR (logs, frames, files, state, PDFs, profiles) holds the value',
    fileHits.length === 0,
    fileHits.length
      ? fileHits.join('; ')
      : `${files.length} files, ${Math.round(bytes / 1024)} KB read`,
  );
  checks.add(
    'secrets',
    'no Redis record holds the value (lastUrl, tabs)',
    redisHits.length === 0,
    redisHits.length ? redisHits.join(', ') : 'RDB snapshot read',
  );
  rmSync(secretsDir, { recursive: true, force: true });
  rmSync(server.dataDir, { recursive: true, force: true });
  return { files: files.length, responses: responses.length, bytes };
}
