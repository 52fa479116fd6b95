/**
 * Which backend this e2e run drives: SWIFTBROWSE_TEST_BACKEND=grid runs the same suite through a
 * real Selenium Grid, `firefox` on a local Firefox over WebDriver BiDi (scripts/run-tests.mjs runs
 * every arm). A test that cannot hold on one backend is skipped only with a reason from this
 * allow-list, so every skip is a known, stated gap.
 */
export type TestBackend = 'playwright' | 'grid' | 'firefox';

const ARM = process.env.SWIFTBROWSE_TEST_BACKEND;
export const BACKEND: TestBackend = ARM === 'grid' || ARM === 'firefox' ? ARM : 'playwright';

/** The browser a test's sessions run by default, as `status` names it. */
export const TEST_BROWSER = { playwright: 'chromium', grid: 'chrome', firefox: 'firefox' }[BACKEND];

/** Every reason a test may be skipped on a backend; nothing else is allowed. */
export const SKIP_REASONS = {
  'grid-only':
    'this file tests the Grid backend itself (attach, managed downloads, node refusals); the grid arm runs it',
  'firefox-html5-drag':
    "Firefox's BiDi input module moves the pointer but synthesises no HTML5 drag events (dragstart, drop), so a draggable list does not reorder; pointer-event lists do",
  'bidi-no-render-state':
    'WebDriver BiDi has no command that tells a page running script from one laying out (CDP Performance.getMetrics does), so a held page is stuck either way',
  'chromium-renderer':
    "it kills the page's renderer by its Chromium command line (--type=renderer); Firefox's forked content processes carry no site or type to tell the page's from the others",
  'firefox-file-loads':
    "Firefox's BiDi network module shows no file: load, so a file page's own links and frames could not be held to FILE_URL_DIRS: the local Firefox refuses file: pages as unsupported",
} as const;

export type SkipReason = keyof typeof SKIP_REASONS;

/** `{ skip }` for node:test: the allow-listed reason when running on `backend`, else false. */
export function skipOn(backend: TestBackend, reason: SkipReason): string | false {
  return BACKEND === backend ? `${backend}: ${SKIP_REASONS[reason]}` : false;
}

/** The environment a spawned SwiftBrowse (CLI, stdio MCP) needs to drive the same backend. */
export function backendEnv(): Record<string, string> {
  const grid = process.env.SWIFTBROWSE_TEST_GRID_URL;
  if (BACKEND === 'firefox') return { BROWSER: 'firefox' };
  return BACKEND === 'grid' && grid ? { GRID_URL: grid } : {};
}
