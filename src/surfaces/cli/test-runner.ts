import { fileLink } from '../../flows/runner.js';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { pino } from 'pino';
import { parse } from 'yaml';
import { loadConfig, type ConfigInput } from '../../config.js';
import type { ActionResult } from '../../core/result.js';
import type { FlowRunReport } from '../../flows/runner.js';
import type { LogPage } from '../../logs/log-reader.js';
import {
  htmlReport,
  junitXml,
  totalsOf,
  type FailedAttempt,
  type TestCase,
  type TestRunReport,
} from '../../flows/test-report.js';
import { createSwiftBrowse } from '../../server.js';
import { getJson, postOp, type ClientOptions } from './client.js';

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
  /** Only tests whose name (or file path) matches this regular expression. */
  grep?: string;
  /** Runs again a test that did not pass, up to this many times; a later pass is `flaky`. */
  retries?: number;
  /** Stop starting tests after the first one that fails; the rest are reported as skipped. */
  bail?: boolean;
  /** A line per step as it ends (read from the server's session log). */
  verbose?: boolean;
  /** Opens the server's session logs (operator route) for `verbose`; the embedded server needs none. */
  adminToken?: string;
  log?: (line: string) => void;
}

/** What the user gave cannot be run (a path, a pattern, a parameters file): a usage error. */
export class TestSetupError extends Error {}

const FLOW_FILE = /\.ya?ml$/i;

/** Flow files under the given paths: `.yaml`/`.yml` files, directories searched recursively. */
export function flowFiles(paths: string[]): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path).sort())
        if (!entry.startsWith('.')) walk(join(path, entry));
    } else if (FLOW_FILE.test(path)) found.push(path);
  };
  for (const p of paths) {
    const absolute = resolve(p);
    if (!existsSync(absolute))
      throw new TestSetupError(
        `${p}: no such file or directory (looked for ${absolute}). swiftbrowse test takes flow files (.yaml, .yml) or directories holding them; check the path.`,
      );
    if (!statSync(absolute).isDirectory() && !FLOW_FILE.test(absolute))
      throw new TestSetupError(
        `${p} is not a flow file: swiftbrowse test takes .yaml or .yml files, or directories holding them.`,
      );
    walk(absolute);
  }
  return found;
}

function readParams(file: string | undefined): {
  shared: Record<string, unknown>;
  perFlow: Record<string, Record<string, unknown>>;
} {
  if (!file) return { shared: {}, perFlow: {} };
  if (!existsSync(file) || statSync(file).isDirectory())
    throw new TestSetupError(
      `--params ${file}: no such file (looked for ${resolve(file)}). It is a YAML or JSON file of name: value pairs (and flows: {flow: {…}}).`,
    );
  const value = parse(readFileSync(file, 'utf8')) as Record<string, unknown> | null;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TestSetupError(
      `${file}: the parameters file is a mapping of name: value (and flows: {…}).`,
    );
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

const secondsText = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const MARK: Record<TestCase['status'], string> = {
  passed: '✓',
  flaky: '~',
  failed: '✗',
  error: '✗',
  skipped: '-',
};

/** The live line of a finished test: verdict, name, time, and why when it did not pass. */
function testLine(t: TestCase): string {
  const why =
    t.status === 'skipped'
      ? ` — ${t.skip_reason}`
      : t.status === 'flaky'
        ? ` — passed on attempt ${t.attempts}; attempt 1: ${t.failed_attempts?.[0]?.message.split('\n')[0]}`
        : t.error
          ? ` — ${t.error.message.split('\n')[0]}`
          : '';
  return `${MARK[t.status]} ${t.status.padEnd(7)} ${t.name} (${secondsText(t.duration_ms)})${why}`;
}

/** A flow file read before the run: `--grep` filters on its name. */
interface PlannedTest {
  file: string;
  /** The path as the reports show it: relative to the working directory. */
  shown: string;
  name: string;
  text: string;
  doc?: Record<string, unknown>;
  /** Why the file cannot be run at all. */
  invalid?: string;
}

function planTest(file: string): PlannedTest {
  const text = readFileSync(file, 'utf8');
  const shown = relative(process.cwd(), file) || file;
  const fallback = basename(file).replace(FLOW_FILE, '');
  try {
    const doc = (parse(text) ?? {}) as Record<string, unknown>;
    return { file, shown, text, doc, name: typeof doc.name === 'string' ? doc.name : fallback };
  } catch (e) {
    return {
      file,
      shown,
      text,
      name: basename(file),
      invalid: `Not valid YAML: ${(e as Error).message.split('\n')[0]}`,
    };
  }
}

/** One step's live line under `--verbose`, from the session log: op, outcome, time, never args. */
function stepLine(event: LogPage['events'][number]): string {
  const run = event.run!;
  const error = event.error ? ` — ${event.error.message.split('\n')[0]}` : '';
  return `    ${event.ok ? '✓' : '✗'} step ${run.step}${run.step_id ? ` ${run.step_id}` : ''}: ${event.op} (${secondsText(event.duration_ms)})${error}`;
}

/**
 * Prints each step of a test as it ends by reading the session's log while `flow_run` runs: the
 * HTTP answer comes only when the flow is done. Steps already printed are not printed again.
 */
function watchSteps(
  client: ClientOptions,
  session: string,
  print: (line: string) => void,
): {
  printed: () => number;
  refused: () => string | undefined;
  stop: (steps: number) => Promise<void>;
} {
  const seen = new Set<string>();
  let refused: string | undefined;
  let stopped = false;
  const poll = async () => {
    if (refused) return;
    const r = await getJson(
      { server: client.server, token: client.token },
      `/logs/${encodeURIComponent(session)}`,
    ).catch(() => undefined);
    if (!r) return;
    if (r.status === 401 || r.status === 403) {
      refused = (r.body as { error?: { message?: string } }).error?.message ?? `HTTP ${r.status}`;
      return;
    }
    if (r.status !== 200) return;
    for (const event of (r.body as LogPage).events) {
      if (!event.run) continue;
      // A failed step's screenshot runs under the same step: the step's own line comes first.
      const key = `${event.run.id}:${event.run.step}`;
      if (seen.has(key)) continue;
      seen.add(key);
      print(stepLine(event));
    }
  };
  const loop = (async () => {
    while (!stopped) {
      await poll();
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    printed: () => seen.size,
    refused: () => refused,
    async stop(steps) {
      stopped = true;
      await loop;
      // The log is written as each op ends; the last lines can land just after the answer.
      for (let i = 0; i < 20 && !refused && seen.size < steps; i++) {
        await poll();
        if (seen.size < steps) await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

interface RunContext {
  client: ClientOptions;
  params: { shared: Record<string, unknown>; perFlow: Record<string, Record<string, unknown>> };
  flags: Record<string, string>;
  /** Set with `--verbose`: where step lines go, and the token that opens the session logs. */
  steps?: {
    print: (line: string) => void;
    adminToken?: string;
    /** Tests run side by side: each step line names its test. */
    named: boolean;
  };
}

async function runOne(ctx: RunContext, test: PlannedTest, session: string): Promise<TestCase> {
  const started = Date.now();
  if (test.invalid || !test.doc)
    return errorCase(test.shown, test.name, session, started, test.invalid ?? 'Not a flow.');
  const { doc, name, text } = test;
  // Every test gets what it declares, from the shared file, its own section and the flags.
  const declared = Object.keys(
    ((doc.parameters as { properties?: object } | undefined)?.properties ?? {}) as object,
  );
  const supplied = { ...ctx.params.shared, ...(ctx.params.perFlow[name] ?? {}), ...ctx.flags };
  const values = Object.fromEntries(Object.entries(supplied).filter(([k]) => declared.includes(k)));
  const own = { ...ctx.client, session };
  const steps = ctx.steps;
  const printStep = (line: string) =>
    steps?.print(steps.named ? line.replace(/^ {4}/, `    ${name} › `) : line);
  const watch = steps
    ? watchSteps({ ...ctx.client, token: steps.adminToken }, session, printStep)
    : undefined;
  let run: Awaited<ReturnType<typeof postOp>>;
  try {
    run = await postOp(own, 'flow_run', {
      document: typeof doc.name === 'string' ? text : { ...doc, name },
      params: values,
    });
  } catch (e) {
    await watch?.stop(0);
    throw e;
  }
  const report = (run.body.data ?? {}) as Partial<FlowRunReport>;
  if (watch) {
    await watch.stop(report.steps?.length ?? 0);
    const refused = watch.refused();
    // Without the log, the steps are still shown, once the test is done.
    if (refused || watch.printed() === 0)
      for (const s of report.steps ?? [])
        printStep(
          `    ${s.ok ? '✓' : '✗'} step ${s.n}${s.id ? ` ${s.id}` : ''}: ${s.op}${s.error ? ` — ${s.error.split('\n')[0]}` : ''}${refused && s.n === 1 ? ` (after the test: the session log is not readable: ${refused})` : ''}`,
        );
  }
  const verdict = (await postOp(own, 'report', {})).body.data as Verdict | undefined;
  const result = toCase(test.shown, name, session, started, run.body, verdict ?? {});
  if (result.screenshot?.url) {
    const inlined = await inlineImage(own, result.screenshot.url);
    if (inlined) result.screenshot.data_uri = inlined;
  }
  // A failure no acting step photographed (an assert) is photographed now, before the browser goes.
  if (result.status === 'failed' && !result.screenshot?.data_uri) {
    const shot = await postOp(own, 'screenshot', { format: 'jpeg', quality: 60 }).catch(
      () => undefined,
    );
    const image = shot?.body.data?.image as { base64?: string } | undefined;
    if (image?.base64)
      result.screenshot = {
        name: (shot?.body.data?.file as { name?: string } | undefined)?.name ?? 'failure.jpg',
        data_uri: `data:image/jpeg;base64,${image.base64}`,
      };
  }
  await postOp(own, 'close', {}).catch(() => undefined);
  return result;
}

async function runGuarded(ctx: RunContext, test: PlannedTest, session: string): Promise<TestCase> {
  try {
    return await runOne(ctx, test, session);
  } catch (e) {
    return errorCase(
      test.shown,
      test.name,
      session,
      Date.now(),
      `The server could not run it: ${(e as Error).message}`,
      'backend',
    );
  }
}

/** Runs a test up to 1 + retries times; a pass after a failure is `flaky`. */
async function runWithRetries(
  ctx: RunContext,
  test: PlannedTest,
  session: string,
  retries: number,
  log: (line: string) => void,
): Promise<TestCase> {
  const failed: FailedAttempt[] = [];
  for (let attempt = 1; ; attempt++) {
    const result = await runGuarded(
      ctx,
      test,
      attempt === 1 ? session : `${session}-r${attempt - 1}`,
    );
    // An invalid flow fails the same way every time: it is not retried.
    const final =
      result.status === 'passed' ||
      attempt > retries ||
      test.invalid !== undefined ||
      result.error?.kind === 'invalid_argument';
    if (!final) {
      failed.push({
        attempt,
        status: result.status === 'error' ? 'error' : 'failed',
        duration_ms: result.duration_ms,
        message: result.error?.message ?? result.status,
      });
      log(
        `  ↻ ${test.name}: attempt ${attempt} ${result.status}, retrying (${attempt}/${retries})`,
      );
      continue;
    }
    if (failed.length) {
      result.attempts = attempt;
      result.failed_attempts = failed;
      result.duration_ms += failed.reduce((sum, a) => sum + a.duration_ms, 0);
      if (result.status === 'passed') result.status = 'flaky';
    }
    return result;
  }
}

/** A test with nothing recorded: one that could not run, or was not run. */
function emptyCase(
  file: string,
  name: string,
  session: string,
  status: TestCase['status'],
  durationMs: number,
): TestCase {
  return {
    name,
    file,
    session,
    status,
    duration_ms: durationMs,
    steps: [],
    assertions: [],
    console_errors: [],
    network_failures: [],
    files: [],
  };
}

function errorCase(
  file: string,
  name: string,
  session: string,
  started: number,
  message: string,
  /** invalid_argument: the file itself is wrong, and a retry would fail the same way. */
  kind: 'invalid_argument' | 'backend' = 'invalid_argument',
): TestCase {
  return {
    ...emptyCase(file, name, session, 'error', Date.now() - started),
    error: { kind, message },
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
  const files = flowFiles(options.paths);
  if (files.length === 0)
    throw new TestSetupError(
      `No flow files (.yaml, .yml) under ${options.paths.join(', ')}: the directories hold none.`,
    );
  let planned = files.map(planTest);
  if (options.grep !== undefined) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(options.grep);
    } catch (e) {
      throw new TestSetupError(
        `--grep ${options.grep}: not a regular expression (${(e as Error).message}).`,
      );
    }
    const all = planned;
    planned = all.filter((t) => pattern.test(t.name) || pattern.test(t.shown));
    if (planned.length === 0)
      throw new TestSetupError(
        `--grep ${options.grep} matches none of the ${all.length} tests (names: ${all
          .map((t) => t.name)
          .slice(0, 20)
          .join(
            ', ',
          )}${all.length > 20 ? ', …' : ''}). It is a regular expression tried on each test's name and file path.`,
      );
  }
  const params = readParams(options.paramsFile);
  const retries = options.retries ?? 0;
  const startedAt = new Date();
  let server = options.server;
  let token = options.token;
  let adminToken = options.adminToken;
  let embedded: Awaited<ReturnType<typeof createSwiftBrowse>> | undefined;
  if (!server) {
    const config = loadConfig(process.env, { port: 0, host: '127.0.0.1', ...options.serve });
    embedded = await createSwiftBrowse(config, pino({ level: 'silent' }));
    server = await embedded.listen();
    token = config.token;
    adminToken = config.adminToken;
  }
  const client: ClientOptions = { server: server.replace(/\/$/, ''), token };
  const ctx: RunContext = {
    client,
    params,
    flags: options.params ?? {},
    ...(options.verbose
      ? { steps: { print: log, adminToken, named: Math.min(options.workers, planned.length) > 1 } }
      : {}),
  };
  const stamp = `test-${randomUUID().slice(0, 6)}`;
  const tests: TestCase[] = new Array(planned.length);
  let next = 0;
  let bailed: string | undefined;
  const worker = async () => {
    while (next < planned.length && !bailed) {
      const i = next++;
      const test = planned[i];
      if (options.verbose) log(`▸ ${test.name} (${test.shown})`);
      const t = await runWithRetries(ctx, test, `${stamp}-${i + 1}`, retries, log);
      tests[i] = t;
      log(testLine(t));
      if (options.bail && (t.status === 'failed' || t.status === 'error')) bailed ??= t.name;
    }
  };
  try {
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(options.workers, planned.length)) }, worker),
    );
  } finally {
    await embedded?.close();
  }
  for (const [i, test] of planned.entries()) {
    if (tests[i]) continue;
    tests[i] = {
      ...emptyCase(test.shown, test.name, `${stamp}-${i + 1}`, 'skipped', 0),
      skip_reason: `Not run: --bail stopped the run after "${bailed}" failed.`,
    };
    log(testLine(tests[i]));
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
  writeFileSync(join(options.reportDir, 'junit.xml'), junitXml(report, resolve(options.reportDir)));
  writeFileSync(join(options.reportDir, 'report.html'), htmlReport(report));
  return report;
}
