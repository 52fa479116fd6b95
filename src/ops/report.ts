import { z } from 'zod';
import { flag } from '../core/schema.js';
import { requestFailed } from '../drivers/driver.js';
import { resetVerdict, verdictOf } from '../flows/verdict.js';
import { defineOp } from './define.js';

/** Entries of each kind a report shows at most; the counts stay exact. */
const SHOWN = 100;

const newest = <T>(list: T[]) => list.slice(-SHOWN);

export const report = defineOp({
  name: 'report',
  summary:
    "The session's verdict: assertions and expect checks, failed actions, flow runs, console errors, network failures, files",
  browser: false,
  step: false,
  readOnly: true,
  args: z.strictObject({
    reset: flag().optional().describe('Start a new verdict after this one (between two tests)'),
  }),
  async run(ctx, args) {
    const verdict = verdictOf(ctx.session);
    const consoleErrors = [];
    const networkFailures = [];
    // Read from the tabs as they are now: a report never opens a browser.
    for (const tab of ctx.session.hasBrowser() ? (ctx.session.browser?.tabs() ?? []) : []) {
      for (const e of tab.consoleEntries().entries)
        if (e.level === 'error')
          consoleErrors.push({
            tab: tab.id,
            text: e.text.slice(0, 500),
            ...(e.url ? { url: e.url } : {}),
          });
      for (const e of tab.networkEntries().entries)
        if (requestFailed(e))
          networkFailures.push({
            tab: tab.id,
            method: e.method,
            url: e.url.slice(0, 500),
            ...(e.status !== undefined ? { status: e.status } : {}),
            ...(e.failure !== undefined ? { failure: e.failure } : {}),
          });
    }
    const data = {
      status: verdict.passed ? 'passed' : 'failed',
      since_ms: verdict.since,
      actions: verdict.actions,
      checks: { passed: verdict.checksPassed, failed: verdict.checksFailed },
      assertions: newest(verdict.checks),
      failed_actions: newest(verdict.failures),
      runs: newest(verdict.runs),
      console_errors: newest(consoleErrors),
      network_failures: newest(networkFailures),
      evidence: newest(verdict.evidence),
    };
    if (args.reset) resetVerdict(ctx.session);
    return { data };
  },
});
