import { isAbsolute, resolve } from 'node:path';
import type { FileLink } from './runner.js';
import type { StepLine } from './runner.js';

/** An attempt of a retried test that did not pass. */
export interface FailedAttempt {
  attempt: number;
  status: 'failed' | 'error';
  duration_ms: number;
  message: string;
}

/** One flow file run as a test. */
export interface TestCase {
  name: string;
  file: string;
  /**
   * failed: a step or assertion failed; error: the flow could not run at all (invalid, unreachable);
   * flaky: failed, then passed on a retry; skipped: not run (`--bail` stopped the run first).
   */
  status: 'passed' | 'failed' | 'error' | 'flaky' | 'skipped';
  /** Runs it took, when `--retries` ran it more than once. */
  attempts?: number;
  /** The runs before the last one, when it was retried. */
  failed_attempts?: FailedAttempt[];
  /** Why a skipped test was not run. */
  skip_reason?: string;
  duration_ms: number;
  session: string;
  run_id?: string;
  steps: StepLine[];
  steps_total?: number;
  error?: {
    kind: string;
    message: string;
    step?: number;
    id?: string;
    note?: string;
    url?: string;
    hint?: unknown;
  };
  assertions: { op: string; passed: boolean; condition: unknown; url?: string }[];
  console_errors: { text: string; url?: string }[];
  network_failures: { method: string; url: string; status?: number; failure?: string }[];
  files: FileLink[];
  /** The failure screenshot: a path relative to the report, and the image inline for the HTML. */
  screenshot?: { name: string; file?: string; url?: string; data_uri?: string };
  warnings?: string[];
}

export interface TestRunReport {
  started_at: string;
  duration_ms: number;
  server: string;
  totals: {
    tests: number;
    passed: number;
    failed: number;
    errors: number;
    flaky: number;
    skipped: number;
  };
  tests: TestCase[];
}

export function totalsOf(tests: TestCase[]): TestRunReport['totals'] {
  const count = (status: TestCase['status']) => tests.filter((t) => t.status === status).length;
  return {
    tests: tests.length,
    passed: count('passed'),
    failed: count('failed'),
    errors: count('error'),
    flaky: count('flaky'),
    skipped: count('skipped'),
  };
}

/** A run passes when nothing failed or errored: a flaky test passed in the end. */
export function runPassed(totals: TestRunReport['totals']): boolean {
  return totals.failed === 0 && totals.errors === 0 && totals.skipped === 0;
}

/** The one-line count the CLI prints and the HTML report opens with. */
export function totalsLine(totals: TestRunReport['totals']): string {
  return `${totals.passed} passed, ${totals.failed} failed, ${totals.errors} errors, ${totals.flaky} flaky, ${totals.skipped} skipped`;
}

/**
 * The JUnit classname of a flow file: its path without `.yaml`/`.yml`, directories joined by dots.
 * Jenkins splits a classname at its last dot into package and class (`flows.auth` › `login`), and
 * GitLab shows it as the suite column; a path with slashes and an extension reads as one odd class.
 */
export function classnameOf(file: string): string {
  return file
    .replace(/\.ya?ml$/i, '')
    .split(/[\\/]+/)
    .filter((part) => part && part !== '.' && part !== '..')
    .join('.');
}

const xml = (text: string) =>
  text
    // Characters XML 1.0 cannot carry at all.
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function stepText(steps: StepLine[]): string {
  return steps
    .map(
      (s) =>
        `${s.ok ? 'ok  ' : 'FAIL'} ${s.n}${s.id ? ` ${s.id}` : ''}: ${s.summary}${s.url ? ` → ${s.url}` : ''}${s.error ? `\n       ${s.error}` : ''}`,
    )
    .join('\n');
}

function attemptsText(t: TestCase): string {
  if (!t.failed_attempts?.length) return '';
  const lines = t.failed_attempts.map(
    (a) => `attempt ${a.attempt} ${a.status} (${seconds(a.duration_ms)} s): ${a.message}`,
  );
  return `${t.status === 'flaky' ? `flaky: passed on attempt ${t.attempts}` : `failed all ${t.attempts} attempts`}\n${lines.join('\n')}`;
}

/**
 * JUnit XML, the shape CI systems read (one suite; failures and errors counted apart). A failure
 * screenshot rides as `[[ATTACHMENT|/absolute/path]]` in the testcase's system-out, the line the
 * Jenkins JUnit attachments plugin and GitLab's test report turn into a link; a flaky test is a
 * passed testcase whose failed attempts are Maven Surefire's rerun `<flakyFailure>` elements
 * (readers that do not know them skip them).
 */
export function junitXml(report: TestRunReport, reportDir: string): string {
  const { totals } = report;
  const failures = totals.failed;
  const errors = totals.errors;
  const cases = report.tests.map((t) => {
    const open = `    <testcase name="${xml(t.name)}" classname="${xml(classnameOf(t.file))}" time="${seconds(t.duration_ms)}">`;
    const body: string[] = [];
    if (t.status === 'skipped')
      body.push(`      <skipped message="${xml(t.skip_reason ?? 'not run')}"/>`);
    if ((t.status === 'failed' || t.status === 'error') && t.error) {
      const tag = t.status === 'error' ? 'error' : 'failure';
      const detail = [
        t.error.message,
        t.error.note ? `note: ${t.error.note}` : '',
        t.error.url ? `url: ${t.error.url}` : '',
        t.screenshot?.file ? `screenshot: ${t.screenshot.file}` : '',
      ]
        .filter(Boolean)
        .join('\n');
      body.push(
        `      <${tag} message="${xml(t.error.message.slice(0, 500))}" type="${xml(t.error.kind)}">${xml(detail)}</${tag}>`,
      );
    }
    if (t.status === 'flaky')
      for (const a of t.failed_attempts ?? [])
        body.push(
          `      <flakyFailure message="${xml(a.message.slice(0, 500))}" type="${a.status}">${xml(a.message)}</flakyFailure>`,
        );
    const shot = t.screenshot?.file;
    const out = [
      attemptsText(t),
      t.steps.length ? stepText(t.steps) : '',
      shot ? `[[ATTACHMENT|${isAbsolute(shot) ? shot : resolve(reportDir, shot)}]]` : '',
    ].filter(Boolean);
    if (out.length) body.push(`      <system-out>${xml(out.join('\n'))}</system-out>`);
    if (t.console_errors.length)
      body.push(
        `      <system-err>${xml(t.console_errors.map((e) => `console: ${e.text}`).join('\n'))}</system-err>`,
      );
    return [open, ...body, '    </testcase>'].join('\n');
  });
  const counts = `tests="${totals.tests}" failures="${failures}" errors="${errors}" skipped="${totals.skipped}" time="${seconds(report.duration_ms)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="swiftbrowse" ${counts}>`,
    `  <testsuite name="swiftbrowse flows" ${counts} timestamp="${report.started_at}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

const html = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Only http(s) becomes a link: a URL from a page under test is not trusted. */
const link = (url: string, text = url) =>
  /^https?:\/\//i.test(url) ? `<a href="${html(url)}">${html(text)}</a>` : html(text);

function list<T>(title: string, items: T[], show: (item: T) => string): string {
  if (!items.length) return '';
  return `<h4>${html(title)} (${items.length})</h4><ul>${items.map((i) => `<li>${show(i)}</li>`).join('')}</ul>`;
}

function testSection(t: TestCase): string {
  const steps = t.steps
    .map(
      (s) =>
        `<tr class="${s.ok ? 'ok' : 'bad'}"><td>${s.n}</td><td>${html(s.id ?? '')}</td><td>${s.ok ? '✓' : '✗'}</td><td>${html(s.summary)}${s.error ? `<div class="err">${html(s.error)}</div>` : ''}</td><td>${s.url ? link(s.url) : ''}</td></tr>`,
    )
    .join('');
  const failure = t.error
    ? `<div class="failure"><strong>${html(t.error.kind)}</strong>: ${html(t.error.message)}${t.error.note ? `<div>Note: ${html(t.error.note)}</div>` : ''}${t.error.url ? `<div>URL: ${link(t.error.url)}</div>` : ''}</div>`
    : '';
  const shot = t.screenshot
    ? t.screenshot.data_uri
      ? `<figure><img alt="Screenshot at the failure" src="${t.screenshot.data_uri}"><figcaption>${html(t.screenshot.name)}</figcaption></figure>`
      : `<p>Screenshot: ${t.screenshot.url ? link(t.screenshot.url, t.screenshot.name) : html(t.screenshot.file ?? t.screenshot.name)}</p>`
    : '';
  const attempts = t.failed_attempts?.length
    ? `<div class="attempts">${html(t.status === 'flaky' ? `Flaky: passed on attempt ${t.attempts}.` : `Failed all ${t.attempts} attempts.`)}<ul>${t.failed_attempts.map((a) => `<li>Attempt ${a.attempt} ${html(a.status)} (${seconds(a.duration_ms)} s): ${html(a.message)}</li>`).join('')}</ul></div>`
    : '';
  const skipped = t.skip_reason ? `<p>${html(t.skip_reason)}</p>` : '';
  const heading = `<span class="badge">${t.status}</span> ${html(t.name)} <small>${html(t.file)} · ${seconds(t.duration_ms)} s</small>`;
  const body = `${failure}${attempts}${skipped}
${steps ? `<table><thead><tr><th>#</th><th>id</th><th></th><th>step</th><th>url</th></tr></thead><tbody>${steps}</tbody></table>` : ''}
${t.steps_total !== undefined && t.steps.length < t.steps_total ? `<p>${t.steps_total - t.steps.length} step(s) not run.</p>` : ''}
${list('Assertions and checks', t.assertions, (a) => `${a.passed ? '✓' : '✗'} ${a.op} <code>${html(JSON.stringify(a.condition))}</code>${a.url ? ` on ${link(a.url)}` : ''}`)}
${list('Console errors', t.console_errors, (e) => `${html(e.text)}${e.url ? ` <small>${html(e.url)}</small>` : ''}`)}
${list('Network failures', t.network_failures, (n) => `${html(n.method)} ${html(n.url)} — ${html(String(n.status ?? n.failure ?? ''))}`)}
${list('Warnings', t.warnings ?? [], (w) => html(w))}
${shot}`;
  // What needs reading is open; a passed or skipped test is one line until clicked.
  return t.status === 'passed' || t.status === 'skipped'
    ? `<details class="test ${t.status}"><summary>${heading}</summary>\n${body}\n</details>`
    : `<section class="test ${t.status}">\n<h3>${heading}</h3>\n${body}\n</section>`;
}

/** Failures first, then flaky, skipped and passed; file order within each. */
const READING_ORDER: TestCase['status'][] = ['failed', 'error', 'flaky', 'skipped', 'passed'];

function summaryTable(report: TestRunReport): string {
  const { totals } = report;
  const rows: [string, string, string][] = [
    ['passed', 'Passed', String(totals.passed)],
    ['failed', 'Failed', String(totals.failed)],
    ['error', 'Errors', String(totals.errors)],
    ['flaky', 'Flaky', String(totals.flaky)],
    ['skipped', 'Skipped', String(totals.skipped)],
    ['total', 'Total', String(totals.tests)],
    ['time', 'Total time', `${seconds(report.duration_ms)} s`],
  ];
  return `<table class="totals"><tbody>${rows.map(([k, label, v]) => `<tr class="${k}"><th>${label}</th><td>${v}</td></tr>`).join('')}</tbody></table>`;
}

/** One HTML file with everything inline (styles, screenshots), so a CI artifact opens anywhere. */
export function htmlReport(report: TestRunReport): string {
  const { totals } = report;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SwiftBrowse test report</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1d232b}
h1{margin:0 0 .3rem}.summary{margin-bottom:1.5rem}
.test{border:1px solid #d6dbe1;border-left:6px solid #2f9e44;border-radius:6px;padding:.6rem 1rem;margin:1rem 0}
.test.failed,.test.error{border-left-color:#e03131}.test.flaky{border-left-color:#f08c00}.test.skipped{border-left-color:#adb5bd}
details.test summary{cursor:pointer;font-weight:600}.totals{width:auto;margin-bottom:1rem}.totals th{padding-right:2rem}
.flaky .badge{background:#f08c00}.skipped .badge{background:#868e96}.attempts{background:#fff9db;padding:.5rem;border-radius:4px}
.badge{font-size:.75rem;text-transform:uppercase;padding:.1rem .4rem;border-radius:4px;background:#2f9e44;color:#fff}
.failed .badge,.error .badge{background:#e03131}
small{color:#5c6670;font-weight:normal}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{border-bottom:1px solid #eef0f3;padding:.25rem .4rem;text-align:left;vertical-align:top}
tr.bad td{background:#fff5f5}.err{color:#c92a2a}.failure{background:#fff5f5;padding:.5rem;border-radius:4px}
img{max-width:100%;border:1px solid #d6dbe1}code{font-size:12px}
</style></head><body>
<h1>SwiftBrowse test report</h1>
<p class="summary">${totalsLine(totals)} — ${totals.tests} tests in ${seconds(report.duration_ms)} s, ${html(report.started_at)}, server ${html(report.server)}</p>
${summaryTable(report)}
${READING_ORDER.flatMap((status) => report.tests.filter((t) => t.status === status))
  .map(testSection)
  .join('\n')}
</body></html>
`;
}
