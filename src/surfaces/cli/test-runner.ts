import { fileLink } from '../../flows/runner.js';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { pino } from 'pino';
import { parse } from 'yaml';
import { loadConfig, type ConfigInput } from '../../config.js';
import type { ActionResult } from '../../core/result.js';
import type { FlowRunReport } from '../../flows/runner.js';
import {
  htmlReport,
  junitXml,
  totalsOf,
  type TestCase,
  type TestRunReport,
} from '../../flows/test-report.js';
import { createSwiftBrowse } from '../../server.js';
import { postOp, type ClientOptions } from './client.js';

export interface TestOptions {
  paths: string[];
  /** A YAML or JSON file: parameters for every test, and per flow under `flows: {name: {…}}`. */
  paramsFile?: string;
  /** `name=value` pairs for every test; they win over the file. */
  params?: Record<string, string>;
  workers: number;
  reportDir: string;
  /** A running server; without it one is started in this process. */
  server?: string;
  token?: string;
  /** Settings of the embedded server (DATA_DIR, browser path, headed). */
  serve?: ConfigInput;
  log?: (line: string) => void;
}

/** Flow files under the given paths: `.yaml`/`.yml` files, directories searched recursively. */
export function flowFiles(paths: string[]): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path).sort())
        if (!entry.startsWith('.')) walk(join(path, entry));
    } else if (/\.ya?ml$/i.test(path)) found.push(path);
  };
  for (const p of paths) walk(p);
  return found;
}

function readParams(file: string | undefined): {
  shared: Record<string, unknown>;
  perFlow: Record<string, Record<string, unknown>>;
} {
  if (!file) return { shared: {}, perFlow: {} };
  const value = parse(readFileSync(file, 'utf8')) as Record<string, unknown> | null;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${file}: the parameters file is a mapping of name: value (and flows: {…}).`);
  const { flows, ...shared } = value;
  return { shared, perFlow: (flows ?? {}) as Record<string, Record<string, unknown>> };
}

/** A file the server links to, fetched and inlined so the HTML report stands alone. */
async function inlineImage(client: ClientOptions, url: string): Promise<string | undefined> {
  try {
    const response = await fetch(new URL(url, `${client.server}/`));
    if (!response.ok) return undefined;
    const type = response.headers.get('content-type') ?? 'image/jpeg';
    return `data:${type};base64,${Buffer.from(await response.arrayBuffer()).toString('base64')}`;
  } catch {
    return undefined;
  }
}

interface Verdict {
  assertions?: { op: string; passed: boolean; condition: unknown; url?: string }[];
  console_errors?: { text: string; url?: string }[];
  network_failures?: { method: string; url: string; status?: number; failure?: string }[];
}

async function runOne(
  client: ClientOptions,
  file: string,
  params: { shared: Record<string, unknown>; perFlow: Record<string, Record<string, unknown>> },
  flags: Record<string, string>,
  session: string,
): Promise<TestCase> {
  const started = Date.now();
  const text = readFileSync(file, 'utf8');
  const shown = relative(process.cwd(), file) || file;
  let doc: Record<string, unknown>;
  try {
    doc = (parse(text) ?? {}) as Record<string, unknown>;
  } catch (e) {
    return errorCase(
      shown,
      basename(file),
      session,
      started,
      `Not valid YAML: ${(e as Error).message.split('\n')[0]}`,
    );
  }
  const name = typeof doc.name === 'string' ? doc.name : basename(file).replace(/\.ya?ml$/i, '');
  // Every test gets what it declares, from the shared file, its own section and the flags.
  const declared = Object.keys(
    ((doc.parameters as { properties?: object } | undefined)?.properties ?? {}) as object,
  );
  const supplied = { ...params.shared, ...(params.perFlow[name] ?? {}), ...flags };
  const values = Object.fromEntries(Object.entries(supplied).filter(([k]) => declared.includes(k)));
  const own = { ...client, session };
  const run = await postOp(own, 'flow_run', {
    document: typeof doc.name === 'string' ? text : { ...doc, name },
    params: values,
  });
  const verdict = (await postOp(own, 'report', {})).body.data as Verdict | undefined;
  const test = toCase(shown, name, session, started, run.body, verdict ?? {});
  if (test.screenshot?.url) {
    const inlined = await inlineImage(own, test.screenshot.url);
    if (inlined) test.screenshot.data_uri = inlined;
  }
  // A failure no acting step photographed (an assert) is photographed now, before the browser goes.
  if (test.status === 'failed' && !test.screenshot?.data_uri) {
    const shot = await postOp(own, 'screenshot', { format: 'jpeg', quality: 60 }).catch(
      () => undefined,
    );
    const image = shot?.body.data?.image as { base64?: string } | undefined;
    if (image?.base64)
      test.screenshot = {
        name: (shot?.body.data?.file as { name?: string } | undefined)?.name ?? 'failure.jpg',
        data_uri: `data:image/jpeg;base64,${image.base64}`,
      };
  }
  await postOp(own, 'close', {}).catch(() => undefined);
  return test;
}

function errorCase(
  file: string,
  name: string,
  session: string,
  started: number,
  message: string,
): TestCase {
  return {
    name,
    file,
    session,
    status: 'error',
    duration_ms: Date.now() - started,
    steps: [],
    error: { kind: 'invalid_argument', message },
    assertions: [],
    console_errors: [],
    network_failures: [],
    files: [],
  };
}

function toCase(
  file: string,
  name: string,
  session: string,
  started: number,
  result: ActionResult,
  verdict: Verdict,
): TestCase {
  const report = (result.data ?? {}) as Partial<FlowRunReport>;
  const details = (result.error?.details ?? {}) as Record<string, unknown>;
  const shot = details.screenshot as { name: string; url?: string } | undefined;
  const ran = (report.steps_run ?? 0) > 0;
  const test: TestCase = {
    name,
    file,
    session,
    run_id: report.run_id,
    status: result.ok ? 'passed' : ran ? 'failed' : 'error',
    duration_ms: Date.now() - started,
    steps: report.steps ?? [],
    steps_total: report.steps_total,
    assertions: verdict.assertions ?? [],
    console_errors: verdict.console_errors ?? [],
    network_failures: verdict.network_failures ?? [],
    files: (result.evidence ?? []).map(fileLink),
    ...(report.warnings?.length ? { warnings: report.warnings } : {}),
  };
  if (result.error)
    test.error = {
      kind: result.error.kind,
      message: result.error.message,
      ...(typeof details.step === 'number' ? { step: details.step } : {}),
      ...(typeof details.id === 'string' ? { id: details.id } : {}),
      ...(typeof details.note === 'string' ? { note: details.note } : {}),
      ...(typeof details.url === 'string' ? { url: details.url } : {}),
      ...(result.error.hint ? { hint: result.error.hint } : {}),
    };
  if (shot)
    test.screenshot = {
      name: shot.name,
      ...(shot.url ? { url: shot.url } : {}),
    };
  return test;
}

/**
 * `swiftbrowse test`: runs flow files as tests, each in its own session, `workers` at a time, and
 * writes report.json, junit.xml and report.html into the report directory.
 */
export async function runTests(options: TestOptions): Promise<TestRunReport> {
  const log = options.log ?? (() => undefined);
  const files = flowFiles(options.paths.map((p) => resolve(p)));
  if (files.length === 0)
    throw new Error(`No flow files (.yaml, .yml) under ${options.paths.join(', ')}.`);
  const params = readParams(options.paramsFile);
  const startedAt = new Date();
  let server = options.server;
  let token = options.token;
  let embedded: Awaited<ReturnType<typeof createSwiftBrowse>> | undefined;
  if (!server) {
    const config = loadConfig(process.env, { port: 0, host: '127.0.0.1', ...options.serve });
    embedded = await createSwiftBrowse(config, pino({ level: 'silent' }));
    server = await embedded.listen();
    token = config.token;
  }
  const client: ClientOptions = { server: server.replace(/\/$/, ''), token };
  const stamp = `test-${randomUUID().slice(0, 6)}`;
  const tests: TestCase[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      const session = `${stamp}-${i + 1}`;
      try {
        tests[i] = await runOne(client, files[i], params, options.params ?? {}, session);
      } catch (e) {
        tests[i] = errorCase(
          relative(process.cwd(), files[i]),
          basename(files[i]),
          session,
          Date.now(),
          `The server could not run it: ${(e as Error).message}`,
        );
      }
      const t = tests[i];
      log(
        `${t.status === 'passed' ? '✓' : '✗'} ${t.name} (${(t.duration_ms / 1000).toFixed(1)} s)${t.error ? ` — ${t.error.message}` : ''}`,
      );
    }
  };
  try {
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(options.workers, files.length)) }, worker),
    );
  } finally {
    await embedded?.close();
  }
  const report: TestRunReport = {
    started_at: startedAt.toISOString(),
    duration_ms: Date.now() - startedAt.getTime(),
    server: embedded ? 'embedded' : client.server,
    totals: totalsOf(tests),
    tests,
  };
  mkdirSync(options.reportDir, { recursive: true });
  for (const t of tests) {
    const uri = t.screenshot?.data_uri;
    if (!t.screenshot || !uri) continue;
    const file = join('screenshots', `${t.session}-${t.screenshot.name}`);
    mkdirSync(join(options.reportDir, 'screenshots'), { recursive: true });
    writeFileSync(
      join(options.reportDir, file),
      Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64'),
    );
    t.screenshot.file = file;
  }
  // The images are files beside the JSON; only the HTML carries them inline.
  const json = JSON.stringify(report, (k, v: unknown) => (k === 'data_uri' ? undefined : v), 2);
  writeFileSync(join(options.reportDir, 'report.json'), `${json}\n`);
  writeFileSync(join(options.reportDir, 'junit.xml'), junitXml(report));
  writeFileSync(join(options.reportDir, 'report.html'), htmlReport(report));
  return report;
}
