import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { OpError } from '../core/errors.js';
import type { Evidence } from '../core/result.js';
import { checkName } from '../core/names.js';
import { flag, jsonObject, looseEnum, millis, navigationUrl } from '../core/schema.js';
import type { BoundValues } from '../core/redact.js';
import { BROWSER_NAMES, type StorageState } from '../drivers/driver.js';
import { keptFilesDir } from '../files/file-store.js';
import type { FlowLibrary } from '../flows/library.js';
import { applySettings, loadTimeoutMs, settingsView } from '../sessions/settings.js';
import type { Session } from '../sessions/session.js';
import { defineOp } from './define.js';
import { checkLoaded } from './navigate.js';
import { listTabs } from './tabs.js';

/** A well-formed BCP 47 tag (`de-DE`, `pt-BR`, `fr`); `de_DE` and `german` are not. */
function isLocale(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

const viewportSide = (what: string) =>
  z.coerce.number().int().min(200).max(8000).optional().describe(what);

export const open = defineOp({
  name: 'open',
  managesBrowser: true,
  lifecycle: true,
  summary:
    'Open the browser with settings the session keeps; resumes the last URL unless fresh or url. Other ops open one on demand',
  step: false,
  args: z.strictObject({
    url: navigationUrl('Load this URL').optional(),
    fresh: flag().optional().describe('Blank page, not the last URL'),
    backend: looseEnum(['playwright', 'grid']).optional(),
    browser: looseEnum(BROWSER_NAMES).optional(),
    version: z.string().min(1).optional().describe('Grid; "latest" forgets it'),
    width: viewportSide('Viewport'),
    height: viewportSide('Viewport'),
    headless: flag().optional(),
    default_timeout: millis('Op timeout (ms) from now on').optional(),
    navigation_timeout: millis('Navigation timeout (ms) from now on').optional(),
    locale: z
      .string()
      .min(2)
      .max(35)
      .refine(isLocale, 'a BCP 47 language tag such as "de-DE" or "fr"')
      .optional()
      .describe('A BCP 47 language tag, e.g. de-DE'),
    user_agent: z.string().min(1).max(512).optional(),
    storage_state: z.string().optional().describe('A state_save file to start from; "" none'),
    profile: z.string().optional().describe('Persistent profile: logins survive; "" none'),
    insecure: flag().optional().describe('Accept invalid TLS certificates'),
    record: flag().optional().describe('Grid only'),
    page_load_timeout: millis('Page load timeout (ms); wins over navigation_timeout').optional(),
    script_timeout: millis('evaluate gives up after (ms)').optional(),
    capabilities: jsonObject(z.record(z.string(), z.unknown()))
      .optional()
      .describe('Raw WebDriver capabilities no option covers (Grid); {} forgets'),
  }),
  async run(ctx, args) {
    const s = ctx.session;
    if (args.profile) checkName('profile', args.profile);
    if (args.storage_state) checkName('file', args.storage_state);
    const url = args.url ? ctx.sessions.checkNavigation('open', args.url) : undefined;
    const { settings, relaunch } = applySettings(s.settings, {
      backend: args.backend,
      browser: args.browser,
      version: args.version,
      width: args.width,
      height: args.height,
      headless: args.headless,
      timeoutMs: args.default_timeout,
      navigationTimeoutMs: args.navigation_timeout,
      locale: args.locale,
      userAgent: args.user_agent,
      storageState: args.storage_state,
      profile: args.profile,
      insecure: args.insecure,
      record: args.record,
      pageLoadTimeoutMs: args.page_load_timeout,
      scriptTimeoutMs: args.script_timeout,
      capabilities: args.capabilities,
    });
    if (settings.storageState === '') delete settings.storageState;
    if (settings.profile === '') delete settings.profile;
    if (settings.storageState) ctx.sessions.storageStatePath(s, settings.storageState);
    // Refused before the held browser is ended (seed 004): unusable settings change nothing.
    await ctx.sessions.checkSettings(s, settings);
    if (s.hasBrowser() && relaunch.length) {
      await ctx.sessions.closeBrowser(s, 'caller');
      ctx.notes.push(
        `restarted: ${relaunch.join(', ')} changed, so the browser was restarted (cookies of the old one are gone unless a profile keeps them)`,
      );
    }
    const kept = s.settings;
    s.settings = settings;
    // A resized viewport moves everything under the pointer: from here its place is unknown.
    s.pointer = undefined;
    const resume = !args.fresh && !args.url;
    const { opened } = await ctx.sessions
      .ensureBrowser(s, { restore: resume, resume, signal: ctx.signal }, ctx.notes)
      .catch((e: unknown) => {
        // A setting the backend refused only when asked (a Grid with no such node) is not kept:
        // the next op opens a browser as before.
        if (relaunch.length) s.settings = kept;
        throw e;
      });
    if (opened) ctx.notes.push('browser_opened');
    const tab = s.activeTab();
    if (!tab) throw new OpError('backend', 'The new browser has no tab; close and open again.');
    const { width, height } = tab.viewport();
    if (width !== settings.viewport.width || height !== settings.viewport.height)
      await tab.setViewport(settings.viewport.width, settings.viewport.height);
    if (url) checkLoaded(tab, url, await tab.goto(url, loadTimeoutMs(settings)));
    const caps = s.browser?.sentCapabilities?.();
    const video = caps?.video && opened ? videoOf(caps.video, s, ctx.config.gridVideoUrl) : {};
    if (video.note) ctx.notes.push(video.note);
    return {
      evidence: video.evidence,
      data: {
        settings: settingsView(s.settings),
        running: s.browser?.running(),
        // What the backend did not apply, as status says; the full set sent is the operator's.
        ...(caps?.ignored.length ? { ignored: caps.ignored } : {}),
        tabs: await listTabs(s),
      },
    };
  },
});

/**
 * What `record` made of a Grid browser: where its recording will be (GRID_VIDEO_URL, the
 * operator's recorder storage) as evidence, or a note saying why there is none to link.
 */
function videoOf(
  video: { name: string; accepted: boolean },
  session: Session,
  template: string | undefined,
): { note?: string; evidence?: Evidence[] } {
  if (!video.accepted)
    return {
      note: `record: the Grid dropped se:recordVideo, so no video is made (asked for ${video.name}); recording needs a Grid with a recorder such as docker-selenium's`,
    };
  const gridSession = session.browser?.gridSession?.()?.id ?? '';
  if (!template)
    return {
      note: `record: the Grid accepted se:recordVideo for ${video.name}; the video exists only if the Grid runs a recorder (docker-selenium's dynamic Grid or video container), which a standalone Grid accepts the capability without. Set GRID_VIDEO_URL to link it`,
    };
  const url = template
    .replaceAll('{name}', encodeURIComponent(video.name))
    .replaceAll('{grid_session}', encodeURIComponent(gridSession));
  return {
    note: `record: the Grid accepted se:recordVideo; the recording of this browser will be at ${url} once the browser ends, if the Grid's recorder runs`,
    evidence: [{ kind: 'video', name: video.name, url, absolute_url: url }],
  };
}

export const close = defineOp({
  name: 'close',
  managesBrowser: true,
  endsBrowser: true,
  lifecycle: true,
  destructive: true,
  summary: "End the session's browser; the session, its settings and last URL remain",
  step: false,
  args: z.strictObject({}),
  async run(ctx) {
    // A close that came while an op held the session already ended its browser (closeUnder).
    const early = ctx.sessions.takeClosedEarly(ctx.session);
    const had = (await ctx.sessions.closeBrowser(ctx.session, 'caller')) || early;
    if (!had) ctx.notes.push('no_browser: the session had no browser open');
    return { data: { closed: had } };
  },
});

export const status = defineOp({
  name: 'status',
  lifecycle: true,
  summary:
    'The session: browser open or not, tabs, last URL, settings, busy; never waits behind other ops',
  browser: false,
  step: false,
  readOnly: true,
  args: z.strictObject({}),
  async run(ctx) {
    return { data: await sessionStatus(ctx.session, ctx.flows) };
  },
});

/**
 * What `status` says of a session: browser, busy, settings, tabs, last URL, flows that apply
 * there. It reads the session and changes nothing, so GET /browser answers it without an op.
 */
export async function sessionStatus(
  s: Session,
  flows: Pick<FlowLibrary, 'namesHere'>,
): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = {
    session: s.name,
    browser: s.hasBrowser() ? 'open' : s.browserState === 'open' ? 'closed' : s.browserState,
    busy: s.busy,
    settings: settingsView(s.settings),
  };
  if (s.hasBrowser()) {
    data.running = s.browser?.running();
    // What was asked and what was ignored; the full set sent is the operator's (admin API).
    const caps = s.browser?.sentCapabilities?.();
    if (caps) {
      data.asked = caps.asked;
      if (caps.ignored.length) data.ignored = caps.ignored;
    }
    data.tabs = await listTabs(s);
  }
  if (s.lastUrl) data.last_url = s.lastUrl;
  const flowsHere = await flows.namesHere(s.name, s.lastUrl);
  if (flowsHere.length) data.flows_here = flowsHere;
  return data;
}

export const stateSave = defineOp({
  name: 'state_save',
  summary: 'Save cookies and local storage as a kept file; open with storage_state starts from it',
  step: false,
  args: z.strictObject({
    name: z
      .string()
      .default('storage-state.json')
      .describe('File name (default storage-state.json); saving again overwrites'),
  }),
  async run(ctx, args) {
    checkName('file', args.name);
    await ctx.tab();
    // Kept, not a browser file: a storage state exists to outlive the browser it came from.
    const dir = keptFilesDir(ctx.config.dataDir, ctx.session.name);
    await mkdir(dir, { recursive: true });
    const { state, leftOut } = withoutBoundValues(
      await ctx.session.browser!.storageState(),
      ctx.session.bound,
    );
    await writeFile(join(dir, args.name), JSON.stringify(state, null, 2));
    if (leftOut.length)
      ctx.notes.push(
        `secret_left_out: ${leftOut.join(', ')} held a value typed from a secret and ${leftOut.length === 1 ? 'was' : 'were'} not saved (the file is plain JSON on disk); a browser opened from it signs in again`,
      );
    return {
      data: {
        file: args.name,
        cookies: state.cookies.length,
        origins: state.origins.length,
        ...(leftOut.length ? { left_out: leftOut } : {}),
        next: `open with storage_state: "${args.name}" starts a browser from it`,
      },
    };
  },
});

/**
 * A storage state without the cookies and local-storage items that carry a value typed from a
 * secret (name or value, in any encoding): left out whole, since a scrubbed value would restore a
 * wrong login silently. Names what was left out.
 */
function withoutBoundValues(
  state: StorageState,
  bound: BoundValues,
): { state: StorageState; leftOut: string[] } {
  const leftOut: string[] = [];
  const carries = (item: { name: string; value: string }, where: string) => {
    const tainted = bound.taints(item.name) || bound.taints(item.value);
    if (tainted) leftOut.push(`${where} ${JSON.stringify(item.name)}`);
    return tainted;
  };
  const cookies = state.cookies.filter((c) => !carries(c, `cookie on ${c.domain}`));
  const origins = state.origins.map((o) => ({
    origin: o.origin,
    localStorage: o.localStorage.filter((i) => !carries(i, `local storage of ${o.origin}`)),
  }));
  return { state: { cookies, origins }, leftOut };
}
