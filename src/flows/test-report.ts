import type { FileLink } from './runner.js';
import type { StepLine } from './runner.js';

/** One flow file run as a test. */
export interface TestCase {
  name: string;
  file: string;
  /** failed: a step or assertion failed; error: the flow could not run at all (invalid, unreachable). */
  status: 'passed' | 'failed' | 'error';
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
  totals: { tests: number; passed: number; failed: number; errors: number };
  tests: TestCase[];
}

export function totalsOf(tests: TestCase[]): TestRunReport['totals'] {
  return {
    tests: tests.length,
    passed: tests.filter((t) => t.status === 'passed').length,
    failed: tests.filter((t) => t.status === 'failed').length,
    errors: tests.filter((t) => t.status === 'error').length,
  };
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

/** JUnit XML, the shape CI systems read (one suite; failures and errors counted apart). */
export function junitXml(report: TestRunReport): string {
  const { totals } = report;
  const cases = report.tests.map((t) => {
    const open = `    <testcase name="${xml(t.name)}" classname="${xml(t.file)}" time="${seconds(t.duration_ms)}">`;
    const body: string[] = [];
    if (t.status !== 'passed' && t.error) {
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
    if (t.steps.length) body.push(`      <system-out>${xml(stepText(t.steps))}</system-out>`);
    if (t.console_errors.length)
      body.push(
        `      <system-err>${xml(t.console_errors.map((e) => `console: ${e.text}`).join('\n'))}</system-err>`,
      );
    return [open, ...body, '    </testcase>'].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="swiftbrowse" tests="${totals.tests}" failures="${totals.failed}" errors="${totals.errors}" time="${seconds(report.duration_ms)}">`,
    `  <testsuite name="swiftbrowse flows" tests="${totals.tests}" failures="${totals.failed}" errors="${totals.errors}" skipped="0" time="${seconds(report.duration_ms)}" timestamp="${report.started_at}">`,
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
  return `<section class="test ${t.status}">
<h3><span class="badge">${t.status}</span> ${html(t.name)} <small>${html(t.file)} · ${seconds(t.duration_ms)} s</small></h3>
${failure}
${steps ? `<table><thead><tr><th>#</th><th>id</th><th></th><th>step</th><th>url</th></tr></thead><tbody>${steps}</tbody></table>` : ''}
${t.steps_total !== undefined && t.steps.length < t.steps_total ? `<p>${t.steps_total - t.steps.length} step(s) not run.</p>` : ''}
${list('Assertions and checks', t.assertions, (a) => `${a.passed ? '✓' : '✗'} ${a.op} <code>${html(JSON.stringify(a.condition))}</code>${a.url ? ` on ${link(a.url)}` : ''}`)}
${list('Console errors', t.console_errors, (e) => `${html(e.text)}${e.url ? ` <small>${html(e.url)}</small>` : ''}`)}
${list('Network failures', t.network_failures, (n) => `${html(n.method)} ${html(n.url)} — ${html(String(n.status ?? n.failure ?? ''))}`)}
${list('Warnings', t.warnings ?? [], (w) => html(w))}
${shot}
</section>`;
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
.test.failed,.test.error{border-left-color:#e03131}
.badge{font-size:.75rem;text-transform:uppercase;padding:.1rem .4rem;border-radius:4px;background:#2f9e44;color:#fff}
.failed .badge,.error .badge{background:#e03131}
small{color:#5c6670;font-weight:normal}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{border-bottom:1px solid #eef0f3;padding:.25rem .4rem;text-align:left;vertical-align:top}
tr.bad td{background:#fff5f5}.err{color:#c92a2a}.failure{background:#fff5f5;padding:.5rem;border-radius:4px}
img{max-width:100%;border:1px solid #d6dbe1}code{font-size:12px}
</style></head><body>
<h1>SwiftBrowse test report</h1>
<p class="summary">${totals.passed} passed, ${totals.failed} failed, ${totals.errors} errors — ${totals.tests} tests in ${seconds(report.duration_ms)} s, ${html(report.started_at)}, server ${html(report.server)}</p>
${report.tests.map(testSection).join('\n')}
</body></html>
`;
}
