#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig, type ConfigInput } from '../../config.js';
import type { LogPage, LogSummary } from '../../logs/log-reader.js';
import { opListing } from '../../ops/listing.js';
import { OPS } from '../../ops/registry.js';
import { createSwiftBrowse } from '../../server.js';
import { resolveSessionName } from '../../sessions/resolve.js';
import { VERSION } from '../../version.js';
import { getJson, isHealthy, postOp, type ClientOptions } from './client.js';
import { down, up } from './daemon.js';
import { doctor } from './doctor.js';

/** Exit codes: 0 ok, 1 the op (or server) failed, 2 usage. */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

class UsageError extends Error {}

function readInput(arg: string | undefined, what: string): unknown {
  if (arg === undefined) return {};
  const text = arg === '-' ? readFileSync(0, 'utf8') : arg;
  try {
    return text.trim() === '' ? {} : (JSON.parse(text) as unknown);
  } catch (e) {
    throw new UsageError(`${what}: not valid JSON (${(e as Error).message}).`);
  }
}

function serveFlags(cmd: Command): ConfigInput {
  const o = cmd.opts<{
    port?: string;
    host?: string;
    dataDir?: string;
    browserPath?: string;
    headed?: boolean;
    diff?: boolean;
  }>();
  const flags: ConfigInput = {};
  if (o.port !== undefined) flags.port = o.port;
  if (o.host !== undefined) flags.host = o.host;
  if (o.dataDir !== undefined) flags.dataDir = o.dataDir;
  if (o.browserPath !== undefined) flags.browserPath = o.browserPath;
  if (o.headed) flags.headless = false;
  if (o.diff === false) flags.diff = false;
  return flags;
}

function client(program: Command): ClientOptions {
  const o = program.opts<{ server?: string; session?: string; token?: string }>();
  const port = process.env.PORT ?? '8765';
  // A server started from the same environment is mounted under its ROUTE_PREFIX.
  const prefix = (process.env.ROUTE_PREFIX ?? '').trim().replace(/\/+$/, '');
  const session = o.session ?? process.env.SWIFTBROWSE_SESSION;
  if (session) {
    try {
      resolveSessionName({ flag: session });
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  return {
    server: (
      o.server ??
      process.env.SWIFTBROWSE_URL ??
      `http://127.0.0.1:${port}${prefix}`
    ).replace(/\/$/, ''),
    session,
    token: o.token ?? process.env.SWIFTBROWSE_TOKEN,
  };
}

function print(value: unknown, compact: boolean): void {
  process.stdout.write(`${JSON.stringify(value, null, compact ? undefined : 2)}\n`);
}

async function callServer(program: Command, op: string, args: unknown): Promise<number> {
  const options = client(program);
  if (!options.session)
    throw new UsageError('Name a session with --session NAME (or SWIFTBROWSE_SESSION).');
  const compact = program.opts<{ compact?: boolean }>().compact ?? false;
  let result;
  try {
    result = await postOp(options, op, args, compact ? 'compact' : undefined);
  } catch {
    process.stderr.write(
      `No SwiftBrowse server answers at ${options.server}. Start one with: swiftbrowse up\n`,
    );
    return EXIT.failed;
  }
  print(result.body, compact);
  return result.body.ok ? EXIT.ok : EXIT.failed;
}

function addServeFlags(cmd: Command): Command {
  return cmd
    .option('--port <port>', 'HTTP port (PORT, default 8765)')
    .option('--host <host>', 'address to bind (HOST, default 127.0.0.1)')
    .option('--data-dir <dir>', 'data directory (DATA_DIR, default ~/.swiftbrowse)')
    .option('--browser-path <path>', 'Chromium executable (BROWSER_PATH)')
    .option('--headed', 'show browser windows (HEADLESS=false)')
    .option('--no-diff', 'leave data.changes out of every result (DIFF=off)');
}

export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('swiftbrowse')
    .description('Browser automation for AI agents and test engineers')
    .version(VERSION)
    .option(
      '--server <url>',
      'server to talk to (SWIFTBROWSE_URL, default http://127.0.0.1:$PORT$ROUTE_PREFIX)',
    )
    .option('--session <name>', 'session name (SWIFTBROWSE_SESSION)')
    .option('--token <token>', 'bearer token (SWIFTBROWSE_TOKEN)')
    .option(
      '--compact',
      'print JSON on one line; run and batch print the compact answer a model reads',
    )
    .exitOverride()
    .showHelpAfterError();

  addServeFlags(program.command('serve').description('Run the server in the foreground')).action(
    async (_o, cmd: Command) => {
      const config = loadConfig(process.env, serveFlags(cmd));
      const app = await createSwiftBrowse(config);
      await app.listen();
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await app.close();
    },
  );

  addServeFlags(
    program.command('up').description('Start a detached server; returns when it is healthy'),
  ).action(async (_o, cmd: Command) => {
    const flags = serveFlags(cmd);
    const config = loadConfig(process.env, flags);
    const argv = cmd.args.length ? cmd.args : process.argv.slice(process.argv.indexOf('up') + 1);
    const r = await up(
      config,
      `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`,
      argv,
    );
    process.stdout.write(`${r.message}\n`);
  });

  addServeFlags(
    program
      .command('down')
      .description('Stop the server started by up (give the same --data-dir and --port)'),
  ).action(async (_o, cmd: Command) => {
    const flags = serveFlags(cmd);
    const config = loadConfig(process.env, flags);
    const server =
      flags.port !== undefined ? `http://127.0.0.1:${config.port}` : client(program).server;
    process.stdout.write(`${await down(config, server)}\n`);
  });

  program
    .command('health')
    .description('Is the server up?')
    .action(async () => {
      const { server } = client(program);
      const ok = await isHealthy(server);
      process.stdout.write(
        ok ? `healthy: ${server}\n` : `not running: nothing healthy answers at ${server}\n`,
      );
      setExit(ok ? EXIT.ok : EXIT.failed);
    });

  program
    .command('status')
    .description(
      "The session's browser, tabs and settings (or the server's readiness without --session)",
    )
    .action(async () => {
      const options = client(program);
      try {
        const r = await getJson(options, options.session ? '/browser' : '/ready');
        print(r.body, program.opts<{ compact?: boolean }>().compact ?? false);
        setExit(r.status === 200 ? EXIT.ok : EXIT.failed);
      } catch {
        process.stderr.write(
          `No SwiftBrowse server answers at ${options.server}. Start one with: swiftbrowse up\n`,
        );
        setExit(EXIT.failed);
      }
    });

  program
    .command('logs [session]')
    .description(
      "List the sessions that have a log, or print one session's ops, one line each (from the running server)",
    )
    .option('--op <op>', 'only this op')
    .option('--errors-only', 'only failed ops that count as errors (not on_error: continue steps)')
    .option('--tab <tab>', 'only ops in this tab')
    .option('--limit <n>', 'the latest n ops (default 500)')
    .option('--json', "print the server's JSON")
    .action(
      async (
        session: string | undefined,
        o: { op?: string; errorsOnly?: boolean; tab?: string; limit?: string; json?: boolean },
      ) => {
        const options = client(program);
        if (!session && (o.op || o.errorsOnly || o.tab || o.limit))
          throw new UsageError('Filters need a session: swiftbrowse logs NAME --errors-only.');
        const query = new URLSearchParams();
        if (o.op) query.set('op', o.op);
        if (o.errorsOnly) query.set('errors_only', 'true');
        if (o.tab) query.set('tab', o.tab);
        if (o.limit) query.set('limit', o.limit);
        const path = session
          ? `/logs/${encodeURIComponent(session)}${query.size ? `?${query}` : ''}`
          : '/logs';
        let r;
        try {
          // Logs are an operator route: the callers' token does not open them.
          const token = process.env.SWIFTBROWSE_ADMIN_TOKEN ?? options.token;
          r = await getJson({ ...options, token, session: undefined }, path);
        } catch {
          process.stderr.write(
            `No SwiftBrowse server answers at ${options.server}. Start one with: swiftbrowse up\n`,
          );
          setExit(EXIT.failed);
          return;
        }
        if (o.json || r.status !== 200)
          print(r.body, program.opts<{ compact?: boolean }>().compact ?? false);
        else
          process.stdout.write(
            session
              ? logLines(r.body as LogPage)
              : sessionLines(r.body as { sessions: LogSummary[] }),
          );
        setExit(r.status === 200 ? EXIT.ok : EXIT.failed);
      },
    );

  program
    .command('mcp')
    .description(
      'Serve MCP on stdio: the browser in this process, or with --server a proxy to a running server',
    )
    .option(
      '--tools <set>',
      'full (a tool per op) or compact (browser_run plus lifecycle); MCP_TOOLS',
    )
    .option('--data-dir <dir>', 'data directory (DATA_DIR, default ~/.swiftbrowse)')
    .option('--browser-path <path>', 'Chromium executable (BROWSER_PATH)')
    .option('--headed', 'show browser windows (HEADLESS=false)')
    .action(async (o: { tools?: string }, cmd: Command) => {
      const flags: ConfigInput = serveFlags(cmd);
      if (o.tools !== undefined) flags.mcpTools = o.tools;
      const config = loadConfig(process.env, flags);
      const g = program.opts<{ server?: string; session?: string; token?: string }>();
      const session = g.session ?? process.env.SWIFTBROWSE_SESSION;
      // Only an explicit --server proxies: SWIFTBROWSE_URL, exported for the CLI, must not quietly
      // move the browser out of this process.
      if (g.server === undefined) {
        // Loaded by the command that uses it: `serve` never waits for the MCP client or the test runner.
        const { runStdioMcp } = await import('../mcp/stdio.js');
        await runStdioMcp({ config, session, tools: config.mcpTools });
        return;
      }
      if (!session)
        throw new UsageError(
          'swiftbrowse mcp --server URL needs --session NAME: the server keeps browsers by session name.',
        );
      const { runProxyMcp } = await import('../mcp/proxy.js');
      await runProxyMcp({
        server: g.server,
        session: resolveSessionName({ flag: session }),
        token: g.token ?? process.env.SWIFTBROWSE_TOKEN,
        tools: config.mcpTools,
      });
    });

  program
    .command('ops')
    .description('List the operations (with --json, their argument schemas)')
    .option('--json', 'print the JSON schemas')
    .action((o: { json?: boolean }) => {
      if (o.json) {
        print(opListing(OPS), false);
        return;
      }
      const width = Math.max(...OPS.map((op) => op.name.length));
      for (const op of OPS) process.stdout.write(`${op.name.padEnd(width)}  ${op.summary}\n`);
    });

  program
    .command('run <op> [json]')
    .description("Run one op; json is its arguments ('-' reads stdin)")
    .action(async (op: string, json: string | undefined) =>
      setExit(await callServer(program, op, readInput(json, 'The arguments'))),
    );

  program
    .command('batch <file>')
    .description(
      "Run a list of ops from a JSON file ('-' reads stdin): [{op, args}, …] or {steps, continue_on_error}",
    )
    .action(async (file: string) => {
      const text = file === '-' ? readFileSync(0, 'utf8') : readFileOrUsage(file);
      const body = readInput(text, file);
      setExit(await callServer(program, 'batch', Array.isArray(body) ? { steps: body } : body));
    });

  program
    .command('test <paths...>')
    .description(
      'Run flow files (.yaml, directories searched) as tests in parallel sessions; writes report.json, junit.xml and report.html; exit 0 only when all pass',
    )
    .option(
      '--params <file>',
      'parameters (YAML or JSON): name: value for every test, flows: {flow: {…}} per flow',
    )
    .option('--param <name=value...>', 'a parameter for every test (wins over --params)')
    .option('--workers <n>', 'tests run at once, each in its own session', '2')
    .option('--grep <pattern>', 'only tests whose name or file path matches (a regular expression)')
    .option(
      '--retries <n>',
      'run a test that did not pass again up to n times; a later pass is flaky',
      '0',
    )
    .option('--bail', 'stop after the first failing test; the rest are reported as skipped')
    .option('--verbose', 'a line per step as it ends')
    .option('--report-dir <dir>', 'where the reports go', 'swiftbrowse-report')
    .option('--data-dir <dir>', 'data directory of the embedded server (DATA_DIR)')
    .option('--browser-path <path>', 'Chromium executable of the embedded server (BROWSER_PATH)')
    .option('--headed', 'show browser windows (HEADLESS=false)')
    .action(
      async (
        paths: string[],
        o: {
          params?: string;
          param?: string[];
          workers: string;
          reportDir: string;
          grep?: string;
          retries: string;
          bail?: boolean;
          verbose?: boolean;
        },
        cmd: Command,
      ) => {
        const workers = Number(o.workers);
        if (!Number.isInteger(workers) || workers < 1)
          throw new UsageError(`--workers takes a whole number of at least 1 (got ${o.workers}).`);
        const retries = Number(o.retries);
        if (!Number.isInteger(retries) || retries < 0)
          throw new UsageError(`--retries takes a whole number, 0 or more (got ${o.retries}).`);
        const params: Record<string, string> = {};
        for (const pair of o.param ?? []) {
          const at = pair.indexOf('=');
          if (at < 1) throw new UsageError(`--param takes name=value (got ${pair}).`);
          params[pair.slice(0, at)] = pair.slice(at + 1);
        }
        const g = program.opts<{ server?: string; token?: string }>();
        const { runTests, TestSetupError } = await import('./test-runner.js');
        const { runPassed, totalsLine } = await import('../../flows/test-report.js');
        const report = await runTests({
          paths,
          paramsFile: o.params,
          params,
          workers,
          grep: o.grep,
          retries,
          bail: o.bail,
          verbose: o.verbose,
          reportDir: o.reportDir,
          server: g.server,
          token: g.token ?? process.env.SWIFTBROWSE_TOKEN,
          adminToken: process.env.SWIFTBROWSE_ADMIN_TOKEN,
          serve: serveFlags(cmd),
          log: (line) => process.stdout.write(`${line}\n`),
        }).catch((e: unknown) => {
          throw e instanceof TestSetupError ? new UsageError(e.message) : e;
        });
        const { totals } = report;
        process.stdout.write(
          `${totalsLine(totals)} — ${totals.tests} tests in ${(report.duration_ms / 1000).toFixed(1)} s; reports in ${o.reportDir}\n`,
        );
        setExit(runPassed(totals) ? EXIT.ok : EXIT.failed);
      },
    );

  program
    .command('doctor')
    .description(
      'What the server uses: browser, ChromeDriver, Java, Grid, Redis — and what is wrong',
    )
    .action(async () => {
      const report = await doctor(loadConfig(process.env), client(program));
      process.stdout.write(`${report.lines.join('\n')}\n`);
      setExit(report.ok ? EXIT.ok : EXIT.failed);
    });

  return program;
}

function sessionLines(body: { sessions: LogSummary[] }): string {
  if (body.sessions.length === 0) return 'No session has a log yet.\n';
  const width = Math.max(...body.sessions.map((s) => s.session.length));
  return body.sessions
    .map(
      (s) =>
        `${s.session.padEnd(width)}  ${String(s.ops).padStart(5)} ops  ${String(s.errors).padStart(4)} errors  last ${s.last_at ?? '-'}\n`,
    )
    .join('');
}

/** One compact line per op: time, id, op, outcome, what it acted on or why it failed, where. */
function logLines(page: LogPage): string {
  const lines = page.events.map((e) => {
    const el = e.target?.element;
    const parts = [
      e.at.slice(11, 19),
      e.action_id,
      e.op,
      e.ok ? 'ok' : `FAIL ${e.error?.kind ?? ''}${e.counts_as_error ? '' : ' (tolerated)'}`,
      e.run ? `[${e.run.flow} step ${e.run.step_id ?? e.run.step}]` : '',
      el ? `${el.role ?? el.tag}${el.name ? ` "${el.name}"` : ''}` : '',
      e.error ? `— ${e.error.message.slice(0, 140)}` : '',
      e.tab ?? '',
      e.url ?? '',
      `${e.duration_ms}ms`,
      e.frame ? `[${e.frame}]` : '',
    ];
    return `${parts.filter(Boolean).join(' ')}\n`;
  });
  const shown =
    page.matched > page.events.length ? `(latest ${page.events.length} of ${page.matched})\n` : '';
  return `${shown}${lines.join('')}` || 'No op matches.\n';
}

function readFileOrUsage(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`Cannot read ${file}.`);
  }
}

async function main(): Promise<void> {
  let code: number = EXIT.ok;
  // A reader that stops early (`ops --json | head`) closes the pipe: the output is done, not failed.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(code);
  });
  const program = buildProgram((c) => (code = c));
  try {
    await program.parseAsync(process.argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      code = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    } else if (e instanceof UsageError || e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      code = EXIT.usage;
    } else {
      process.stderr.write(`${(e as Error).message}\n`);
      code = EXIT.failed;
    }
  }
  process.exitCode = code;
}

await main();
