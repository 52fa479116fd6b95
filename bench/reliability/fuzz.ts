// The fuzzer: op calls generated from the registry's own schemas (GET /ops), valid and mutated,
// and raw HTTP routes, sent one at a time; every answer is held to the contract (DESIGN §3.2).
import { brief, op, resultOf, rng, send, type Checks, type Reply, ServerChild } from './common.js';
import { mcpInitialize } from '../../test/helpers/mcp-initialize.js';
import type { Hostile } from './hostile.js';

type Json = Record<string, unknown>;

interface OpListing {
  name: string;
  args: Json;
}

/** Kinds a 5xx may carry, each with its own status (src/core/errors.ts). */
const FIVE_XX: Record<string, number> = {
  navigation_failed: 502,
  unsupported: 501,
  backend: 503,
  timeout: 504,
};
// Text of the server's own failures; a page's own error (quoted by evaluate) is not one.
const INTERNAL =
  /Cannot read properties of (undefined|null)|undefined \(reading '|is not a function|Maximum call stack size exceeded|\n\s+at \S+ \(/;
const MARGIN_MS = 2000;
const DEFAULT_TIMEOUT_MS = 5000;
const NAVIGATION_MS = 8000;
const NAVIGATES = new Set(['goto', 'open', 'reload', 'back', 'forward', 'tab_new', 'tab_select']);

/** What a call is, so the rules know what to expect of its answer. */
type Kind = 'valid' | 'invalid' | 'odd' | 'non-web-url' | 'route';

interface Call {
  i: number;
  kind: Kind;
  mutation: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The op's own time: its timeout argument or the server's default. */
  budgetMs: number;
  /** For a route: what its documented answer is. */
  expect?: 'json' | 'any' | '4xx';
}

function nest(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

const WORDS = ['Save', 'Name', 'Count', 'Sign in', 'Item 3', 'Password', 'hello', 'Topic', 'Row 7'];
const UNICODE = [
  'ÄÖÜ ß é',
  '\u202Eevil\u202C',
  '😀👩‍👩‍👧',
  '\u0000nul',
  '\uD800',
  'a\r\nb\tc',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '${{7*7}}',
  '../../../../etc/passwd',
];

export function nonWebUrls(base: string): string[] {
  return [
    'file:///etc/passwd',
    'file:///tmp/',
    'file://127.0.0.1/etc/passwd',
    'javascript:alert(1)',
    'data:text/html,<h1>x</h1>',
    'chrome://version',
    'devtools://devtools/bundled/inspector.html',
    `view-source:${base}/rel/form.html`,
    'ftp://127.0.0.1/',
    'chrome-extension://abc/x.html',
  ];
}

/** Not URLs at all. (`${base}/%%` is one to a browser: the site answers it, 400 here.) */
function malformedUrls(): string[] {
  return ['x', '', 'http://', 'http://[::1', ' ', 'h t t p://127.0.0.1/'];
}

class Generator {
  constructor(
    readonly random: () => number,
    private readonly urls: string[],
  ) {}

  pick<T>(list: T[]): T {
    return list[Math.floor(this.random() * list.length)];
  }

  target(): Json {
    return this.pick<Json>([
      { role: 'button', name: this.pick(['Save', 'Count', 'Raise', 'Sign in']) },
      { text: this.pick(WORDS) },
      { label: this.pick(['Name', 'Password', 'User', 'PIN']) },
      { css: this.pick(['#name', 'button', 'a', '#pw', 'li:nth-child(3) a']) },
      { ref: this.pick(['AEDBa', 'B', 'Ab']) },
      { role: 'link', name: 'Item 3' },
    ]);
  }

  /** A value meant to satisfy `schema`, chosen by the key's name where that says more. */
  value(schema: Json, key: string, depth = 0): unknown {
    if (['target', 'within', 'frame', 'to', 'near_target'].includes(key)) return this.target();
    if (key === 'expect') return { url_contains: 'rel' };
    if (key === 'url' || key === 'href') return this.pick(this.urls);
    if (['timeout', 'ms', 'stable_for', 'settle_timeout', 'delay'].includes(key))
      return Math.floor(this.random() * 1500);
    if (Array.isArray(schema.enum)) return this.pick(schema.enum);
    if (schema.const !== undefined) return schema.const;
    const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
    if (branches?.length) return this.value(this.pick(branches), key, depth);
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type];
    const type = this.pick(types.filter(Boolean) as string[]) ?? 'string';
    switch (type) {
      case 'string':
        return this.pick(WORDS);
      case 'integer':
      case 'number': {
        const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
        const max =
          typeof schema.maximum === 'number' ? Math.min(schema.maximum, min + 1000) : min + 50;
        return Math.floor(min + this.random() * (max - min));
      }
      case 'boolean':
        return this.random() < 0.5;
      case 'array':
        if (depth > 2) return [];
        return Array.from({ length: Math.floor(this.random() * 3) }, () =>
          this.value((schema.items as Json) ?? {}, `${key}[]`, depth + 1),
        );
      case 'object':
        return depth > 2 ? {} : this.object(schema, depth + 1);
      case 'null':
        return null;
      default:
        return this.pick(WORDS);
    }
  }

  object(schema: Json, depth = 0): Json {
    const props = (schema.properties ?? {}) as Record<string, Json>;
    const required = new Set((schema.required ?? []) as string[]);
    const out: Json = {};
    for (const [k, s] of Object.entries(props))
      if (required.has(k) || this.random() < 0.35) out[k] = this.value(s, k, depth);
    return out;
  }
}

function typesOf(schema: Json): string[] | undefined {
  if (schema.type)
    return Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (!branches) return undefined;
  const all = branches.map(typesOf);
  return all.some((t) => !t) ? undefined : (all.flat() as string[]);
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** One op call, valid or mutated. */
function opCall(g: Generator, listing: OpListing, i: number, session: string, base: string): Call {
  const schema = listing.args;
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = (schema.required ?? []) as string[];
  const args: Json = g.object(schema);
  let kind: Kind = 'valid';
  let mutation = 'valid';
  let raw: string | undefined;
  // A quarter of calls stay valid; the rest carry one mutation each.
  const roll = g.pick([
    'valid',
    'valid',
    'valid',
    'wrong-type',
    'missing-key',
    'extra-key',
    'huge-string',
    'deep-nesting',
    'unicode',
    'numbers',
    'bad-url',
    'non-object',
  ]);
  const keys = Object.keys(props);
  switch (roll) {
    case 'wrong-type': {
      if (!keys.length) break;
      const key = g.pick(keys);
      const types = typesOf(props[key]);
      const candidate = g.pick<unknown>([42, 'text', true, [1, 2], { a: 1 }, null, -1.5]);
      args[key] = candidate;
      mutation = `${key} as ${jsonType(candidate)}`;
      const t = jsonType(candidate);
      // A scalar may be coerced on purpose (CLI and flow values arrive as strings): only a
      // structure where a scalar belongs, or the reverse, is plainly malformed.
      const structured = (x: string) => x === 'object' || x === 'array';
      kind =
        types && !types.includes(t) && (structured(t) || types.every(structured))
          ? 'invalid'
          : 'odd';
      break;
    }
    case 'missing-key':
      if (!required.length) break;
      delete args[g.pick(required)];
      mutation = 'missing required key';
      kind = 'invalid';
      break;
    case 'extra-key':
      args.zz_extra = 1;
      mutation = 'extra key zz_extra';
      kind = 'invalid';
      break;
    case 'huge-string': {
      const key = keys.find((k) => typesOf(props[k])?.includes('string')) ?? 'x';
      args[key] = 'A'.repeat(g.pick([5_000, 50_000, 300_000]));
      mutation = `${key} huge string (${(args[key] as string).length} chars)`;
      kind = key === 'x' ? 'invalid' : 'odd';
      break;
    }
    case 'deep-nesting':
      raw = g.random() < 0.5 ? `{"x":${nest(10_000)}}` : nest(10_000);
      mutation = 'JSON nested 10,000 deep';
      kind = 'invalid';
      break;
    case 'unicode': {
      const key =
        keys.find((k) => typesOf(props[k])?.includes('string')) ??
        g.pick(keys.length ? keys : ['x']);
      args[key] = g.pick(UNICODE);
      mutation = `${key} unicode ${JSON.stringify(args[key])}`;
      kind = props[key] ? 'odd' : 'invalid';
      break;
    }
    case 'numbers': {
      const key = keys.find((k) =>
        typesOf(props[k])?.some((t) => t === 'number' || t === 'integer'),
      );
      if (!key) break;
      const n = g.pick([-1, -1e9, 1e308, 2 ** 53 + 1, 0.5, 1e12]);
      args[key] = n;
      mutation = `${key} = ${n}`;
      const s = props[key];
      const outside =
        (typeof s.minimum === 'number' && n < s.minimum) ||
        (typeof s.maximum === 'number' && n > s.maximum) ||
        (typesOf(s)?.includes('integer') &&
          !typesOf(s)?.includes('number') &&
          !Number.isInteger(n));
      kind = outside ? 'invalid' : 'odd';
      // A huge wait a schema lets through is the op's own time: bounded by the client below.
      break;
    }
    case 'bad-url': {
      if (!('url' in props)) break;
      if (g.random() < 0.6) {
        args.url = g.pick(nonWebUrls(base));
        kind = 'non-web-url';
      } else {
        args.url = g.pick(malformedUrls());
        kind = 'invalid';
      }
      mutation = `url ${JSON.stringify(args.url)}`;
      break;
    }
    case 'non-object':
      raw = g.pick(['null', '"x"', '42', 'true', '{"a":', '{,}']);
      mutation = `body ${raw}`;
      kind = 'invalid';
      break;
  }
  const given = typeof args.timeout === 'number' && args.timeout >= 0 ? args.timeout : undefined;
  const own = given ?? (NAVIGATES.has(listing.name) ? NAVIGATION_MS : DEFAULT_TIMEOUT_MS);
  const ms = typeof args.ms === 'number' && args.ms > 0 ? args.ms : 0;
  const steps = Array.isArray(args.steps) ? args.steps.length : 0;
  const budgetMs =
    listing.name === 'batch' || listing.name === 'flow_run'
      ? (steps + 1) * NAVIGATION_MS
      : Math.max(own, ms) + (NAVIGATES.has(listing.name) ? NAVIGATION_MS : 0);
  return {
    i,
    kind,
    mutation,
    method: 'POST',
    path: `/browser/${listing.name}`,
    headers: { 'content-type': 'application/json', 'x-session-key': session },
    body: raw ?? JSON.stringify(args),
    budgetMs: Math.min(budgetMs, 120_000),
  };
}

/** Raw routes: every documented one, plus the wrong ways to call them. */
function routeCalls(session: string, port: number): Omit<Call, 'i'>[] {
  const json = { 'content-type': 'application/json', 'x-session-key': session };
  const r = (
    method: string,
    path: string,
    mutation: string,
    extra: Partial<Call> = {},
  ): Omit<Call, 'i'> => ({
    kind: 'route',
    mutation,
    method,
    path,
    headers: { 'x-session-key': session },
    budgetMs: DEFAULT_TIMEOUT_MS,
    expect: 'json',
    ...extra,
  });
  const evil = { host: `evil.test:${port}`, 'x-session-key': session };
  return [
    r('GET', '/health', 'health'),
    r('HEAD', '/health', 'HEAD health', { expect: 'any' }),
    r('GET', '/ready', 'ready'),
    r('GET', '/ops', 'op listing'),
    r('GET', '/browser', 'status'),
    r('GET', `/browser?session=${session}`, 'status by query'),
    r('GET', '/secrets', 'secrets'),
    r('GET', '/files', 'files'),
    r('GET', '/flows', 'flows'),
    r('GET', '/flows/no-such-flow', 'unknown flow'),
    r('PUT', '/flows/fz', 'flow put, bad JSON', { headers: json, body: '{' }),
    r('PUT', '/flows/fz', 'flow put, text/plain', {
      headers: { 'content-type': 'text/plain', 'x-session-key': session },
      body: 'steps: []',
    }),
    r('PUT', '/flows/fz', 'flow put, YAML alias bomb', {
      headers: { 'content-type': 'application/yaml', 'x-session-key': session },
      body: `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nsteps: *g\n`,
      expect: '4xx',
    }),
    r('DELETE', '/flows/no-such-flow', 'flow delete, unknown'),
    r('POST', '/flows/no-such-flow/runs', 'flow run, unknown', { headers: json, body: '{}' }),
    r('POST', '/flows/fz/runs', 'flow run as text/plain', {
      headers: { 'content-type': 'text/plain', 'x-session-key': session },
      body: '{}',
      expect: '4xx',
    }),
    r('POST', '/flows/fz/runs', 'flow run as a form', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-session-key': session },
      body: 'a=1',
      expect: '4xx',
    }),
    r('GET', '/schemas/flow', 'flow schema'),
    r('GET', '/admin/sessions', 'admin sessions'),
    r('GET', '/admin', 'admin UI', { expect: 'any' }),
    r('GET', '/admin/flows', 'admin flows'),
    r('GET', '/logs', 'logs'),
    r('GET', `/logs/${session}`, 'session log'),
    r('GET', '/logs/x/frames/..%2F..%2Fsigning.key', 'frame path traversal', { expect: '4xx' }),
    r('GET', '/viewer', 'viewer', { expect: 'any' }),
    r('GET', `/files/${session}/x.png?sig=bad&exp=1`, 'signed file, bad signature', {
      expect: '4xx',
    }),
    r('GET', '/files/..%2F..%2Fetc/passwd', 'files path traversal', { expect: '4xx' }),
    r('GET', '/mcp', 'MCP GET without a session'),
    r('POST', '/mcp', 'MCP bad JSON', {
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{',
    }),
    r('POST', '/mcp', 'MCP unknown session', {
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': 'no-such-session',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    }),
    r('POST', '/browser/no_such_op', 'unknown op', { headers: json, body: '{}' }),
    r('POST', '/browser/status', 'op as text/plain', {
      headers: { 'content-type': 'text/plain', 'x-session-key': session },
      body: '{}',
      expect: '4xx',
    }),
    r('POST', '/browser/status', 'op as a form', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-session-key': session },
      body: 'a=1',
      expect: '4xx',
    }),
    r('POST', '/browser/status', 'body over BODY_LIMIT', {
      headers: json,
      body: JSON.stringify({ x: 'A'.repeat(3 * 1024 * 1024) }),
      expect: '4xx',
    }),
    r('GET', '/browser/click', 'op with the wrong method', { expect: '4xx' }),
    r('PATCH', '/browser', 'PATCH /browser', { expect: '4xx' }),
    r('GET', '/zzz-unknown', 'unknown route', { expect: '4xx' }),
    r('GET', '/%ff%fe', 'bad percent-encoding', { expect: 'any' }),
    r('GET', `/${'a'.repeat(20_000)}`, '20,000-character path', { expect: 'any' }),
    r('DELETE', '/browser', 'close'),
    ...[
      '/admin/sessions',
      '/logs',
      `/browser?session=${session}`,
      '/files',
      '/secrets',
      '/flows',
    ].map((path) => r('GET', path, `foreign Host ${path}`, { headers: evil, expect: '4xx' })),
    r('POST', '/mcp', 'foreign Host /mcp initialize', {
      headers: {
        ...evil,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: mcpInitialize('fz'),
      expect: '4xx',
    }),
  ];
}

/** Op calls every run makes, whatever the seed: each non-web URL, and the malformed URLs. */
function fixedOpCalls(session: string, base: string): Omit<Call, 'i'>[] {
  const call = (name: string, args: Json, kind: Kind): Omit<Call, 'i'> => ({
    kind,
    mutation: `fixed: ${name} ${JSON.stringify(args)}`,
    method: 'POST',
    path: `/browser/${name}`,
    headers: { 'content-type': 'application/json', 'x-session-key': session },
    body: JSON.stringify(args),
    budgetMs: NAVIGATION_MS * 2,
  });
  return [
    ...nonWebUrls(base).map((url) => call('goto', { url }, 'non-web-url')),
    call('tab_new', { url: 'file:///etc/passwd' }, 'non-web-url'),
    call('open', { url: 'x' }, 'invalid'),
    call('tab_new', { url: 'x' }, 'invalid'),
    call('goto', { url: 'http://' }, 'invalid'),
  ];
}

function reproduce(call: Call, seed: number): string {
  const body =
    call.body === undefined
      ? ''
      : call.body.length > 300
        ? `<${call.body.length} bytes: ${call.mutation}>`
        : call.body;
  const headers = Object.entries(call.headers)
    .map(([k, v]) => `-H '${k}: ${v}'`)
    .join(' ');
  const path =
    call.path.length > 200 ? `${call.path.slice(0, 40)}…(${call.path.length} chars)` : call.path;
  return `[seed ${seed} call #${call.i}, ${call.mutation}] curl -X ${call.method} "$SB${path}" ${headers}${body ? ` --data '${body}'` : ''}`;
}

interface Violation {
  rule: string;
  call: Call;
  reply: Reply;
}

function judge(call: Call, reply: Reply): string[] {
  const broken: string[] = [];
  const late = call.budgetMs + MARGIN_MS;
  if (reply.failed || reply.ms > late) broken.push('hang');
  if (reply.failed) return broken;
  const result = resultOf(reply);
  const body = reply.json as Json | undefined;
  const error = (body?.error ?? undefined) as { kind?: string; message?: string } | undefined;
  if (call.kind !== 'route') {
    if (!result || (!result.ok && !error?.kind)) broken.push('shape');
  } else if (call.expect !== 'any' && reply.status >= 400 && body === undefined)
    broken.push('shape');
  if (reply.status >= 500) {
    const kind = error?.kind ?? '';
    if (!(kind in FIVE_XX) || FIVE_XX[kind] !== reply.status) broken.push('5xx');
  }
  if (
    (call.kind === 'invalid' || call.expect === '4xx') &&
    !(reply.status >= 400 && reply.status < 500)
  )
    broken.push(call.kind === 'invalid' ? 'malformed' : 'route-4xx');
  if (call.kind === 'non-web-url' && !(reply.status >= 400 && reply.status < 500))
    broken.push('scheme');
  if (error?.message && INTERNAL.test(error.message)) broken.push('internal');
  return broken;
}

const RULES: Record<string, string> = {
  shape: 'every answer is JSON: an ActionResult on op routes, with error.kind when not ok',
  '5xx':
    'a 5xx carries error.kind backend/timeout/navigation_failed/unsupported with its own status',
  hang: 'every call answers within its op time + 2 s',
  malformed:
    'malformed input (wrong type, missing/extra key, deep JSON, bad URL, non-object) is 4xx',
  scheme: 'a non-web URL (file:, javascript:, data:, chrome:, view-source:…) is refused 4xx',
  internal: 'no error message leaks internal text (TypeError, "Cannot read properties", stacks)',
  'route-4xx':
    'routes refuse what they must (foreign Host, text/plain flow runs, traversal…) with 4xx',
  health: '/health answers after every call (2 s, one retry)',
};

export interface FuzzFigures {
  seed: number;
  calls: number;
  seconds: number;
  byKind: Record<string, number>;
  byStatus: Record<string, number>;
  violations: Record<string, number>;
}

export async function runFuzz(options: {
  hostile: Hostile;
  checks: Checks;
  seed: number;
  count: number;
  seconds: number;
  env: Record<string, string>;
  log: (line: string) => void;
}): Promise<FuzzFigures> {
  const { hostile, checks, seed } = options;
  const server = await ServerChild.start({ env: options.env });
  const random = rng(seed);
  const urls = [
    ...hostile.pages.map((p) => `${hostile.base}${p}`),
    `${hostile.other}/rel/form.html`,
  ];
  const g = new Generator(random, urls);
  const violations: Violation[] = [];
  const byKind: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  const t0 = Date.now();
  let calls = 0;
  try {
    const listing = (await send(server.url, '/ops', { timeoutMs: 10_000 })).json as {
      ops: OpListing[];
    };
    const ops = listing.ops;
    const sessions = ['fz0', 'fz1'];
    // Each session's browser is started before the clock: a first launch is not an op hang.
    for (const s of sessions)
      await op(server.url, 'goto', { url: `${hostile.base}/rel/form.html` }, s);
    const routes = [...routeCalls('fz0', server.port), ...fixedOpCalls('fz1', hostile.base)];
    const total = routes.length + options.count;
    // Every route once first, then the counted calls: op calls, one in seven a route again.
    for (let i = 0; i < total && Date.now() - t0 < options.seconds * 1000; i++) {
      const session = sessions[i % sessions.length];
      const route = i < routes.length ? routes[i] : random() < 0.15 ? g.pick(routes) : undefined;
      const call: Call = route ? { i, ...route } : opCall(g, g.pick(ops), i, session, hostile.base);
      const reply = await send(server.url, call.path, {
        method: call.method,
        headers: call.headers,
        body: call.body,
        timeoutMs: call.budgetMs + MARGIN_MS + 20_000,
      });
      calls++;
      byKind[call.kind] = (byKind[call.kind] ?? 0) + 1;
      byStatus[String(reply.status)] = (byStatus[String(reply.status)] ?? 0) + 1;
      for (const rule of judge(call, reply)) violations.push({ rule, call, reply });
      // One retry: a single slow answer on a loaded machine is not an unhealthy server.
      const healthy = (await server.healthy()) || (await server.healthy());
      if (server.exitCode !== null || !healthy) {
        violations.push({ rule: 'health', call, reply });
        if (server.exitCode !== null) break;
      }
    }
    const healthyAfter = await server.healthy();
    const fresh = await op(
      server.url,
      'goto',
      { url: `${hostile.base}/rel/form.html` },
      'fz-after',
      30_000,
    );
    for (const [rule, sentence] of Object.entries(RULES)) {
      const hits = violations.filter((v) => v.rule === rule);
      const examples = hits
        .slice(0, 3)
        .map((v) => `${reproduce(v.call, seed)} → ${brief(v.reply)}`)
        .join('\n      ');
      checks.add(
        'fuzz',
        sentence,
        hits.length === 0,
        hits.length ? `${hits.length} of ${calls} calls:\n      ${examples}` : `${calls} calls`,
      );
    }
    checks.add(
      'fuzz',
      'the server is healthy after the run and a fresh session loads a page',
      healthyAfter && resultOf(fresh)?.ok === true,
      `/health ${healthyAfter ? 200 : 'failed'}; fresh goto ${brief(fresh)}`,
    );
  } finally {
    await server.stop();
  }
  const counted: Record<string, number> = {};
  for (const v of violations) counted[v.rule] = (counted[v.rule] ?? 0) + 1;
  return {
    seed,
    calls,
    seconds: Math.round((Date.now() - t0) / 1000),
    byKind,
    byStatus,
    violations: counted,
  };
}
