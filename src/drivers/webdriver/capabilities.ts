import { randomUUID } from 'node:crypto';
/**
 * The capabilities a WebDriver session is opened with (seed 004): the one place their precedence
 * lives. A pure function with no Selenium import, so every rule is unit-tested without a Grid.
 *
 * Layers, lowest first: flow (what SwiftBrowse always sends), option (the named options), config
 * (SESSION_CAPABILITIES), raw (the caller's `capabilities` object, the escape hatch). The browser
 * browser and its version have two layers under the option: server (BROWSER, SESSION_VERSION),
 * then client (the HTTP caller's X-Browser and X-Version headers, or `?browser=` and `?version=`).
 */
import { OpError } from '../../core/errors.js';
import type { BrowserName } from '../driver.js';

export const CAPABILITY_SOURCES = ['flow', 'server', 'client', 'option', 'config', 'raw'] as const;
export type CapabilitySource = (typeof CAPABILITY_SOURCES)[number];

/** A browser as a Grid knows it. */
export type GridBrowser = 'chrome' | 'MicrosoftEdge' | 'firefox';

/** One top-level key sent, with every layer that fed it. */
export interface SentCapability {
  key: string;
  value: unknown;
  sources: CapabilitySource[];
}

export interface CapabilityInputs {
  /** The session name, carried as `se:swiftbrowseSession`. */
  session: string;
  browser: BrowserName;
  /** Undefined or `latest` sends no version: any the Grid has. */
  version?: string;
  /** The HTTP caller's version (X-Version or `?version=`), under `version`. */
  clientVersion?: string;
  /** Who chose `browser`: BROWSER (server), X-Browser (client) or `open` (option, the default). */
  browserFrom?: 'server' | 'client' | 'option';
  /** SESSION_VERSION, under every other version layer. */
  serverVersion?: string;
  headless: boolean;
  /** Always sent, true or false (seed 004 ruling 23). */
  insecure: boolean;
  record?: boolean;
  locale?: string;
  userAgent?: string;
  /** SESSION_CAPABILITIES: the operator's default under every request. */
  config?: Record<string, unknown>;
  /** The caller's raw object. */
  raw?: Record<string, unknown>;
  /**
   * False leaves out `se:downloadsEnabled`: no node that would take the browser offers managed
   * downloads, and asking would queue it for a node that never comes. Default true.
   */
  downloads?: boolean;
}

export interface BuiltCapabilities {
  /** Exactly what is sent as alwaysMatch. */
  capabilities: Record<string, unknown>;
  sent: SentCapability[];
  /** Vendor entries where ours beat the caller's or the config's: `<block>.prefs.<name>`. */
  ignored: string[];
  /** Raw keys sent (a node refusing them is the caller's to fix). */
  rawKeys: string[];
  /** The version asked for, when one was sent. */
  version?: string;
  /** A headed browser was asked for: a node without a display cannot start one. */
  headed: boolean;
}

/** The word that means "whatever version the Grid has"; never sent. */
export const LATEST = 'latest';

const GRID_BROWSER: Record<BrowserName, GridBrowser> = {
  chromium: 'chrome',
  chrome: 'chrome',
  edge: 'MicrosoftEdge',
  firefox: 'firefox',
};

/** The vendor block each browser reads; a block for another browser is sent untouched. */
export const VENDOR_BLOCK: Record<GridBrowser, string> = {
  chrome: 'goog:chromeOptions',
  MicrosoftEdge: 'ms:edgeOptions',
  firefox: 'moz:firefoxOptions',
};

/** Keys SwiftBrowse or a named option produces; setting one raw is refused naming the remedy. */
export const OWNED_KEYS: Record<string, string> = {
  unhandledPromptBehavior:
    'SwiftBrowse keeps dialogs open for the dialog op; unhandledPromptBehavior cannot be set',
  'se:downloadsEnabled': "the session's downloads need se:downloadsEnabled; it cannot be set",
  webSocketUrl: 'console, network and dialogs need webSocketUrl (WebDriver BiDi); it cannot be set',
  'se:swiftbrowseSession': 'se:swiftbrowseSession is the session name; it cannot be set',
  browserName: 'use the browser option instead of browserName',
  browserVersion:
    'use the version option (or SESSION_VERSION, server-wide) instead of browserVersion',
  acceptInsecureCerts: 'use the insecure option (true or false) instead of acceptInsecureCerts',
  'se:recordVideo': 'use the record option instead of se:recordVideo',
  'se:videoName': 'use the record option instead of se:videoName',
  timeouts: 'use the page_load_timeout and script_timeout options instead of timeouts',
};

/** Browser furniture nobody is there to answer (seed 001 §F1.37): password-save and download prompts. */
const CHROMIUM_PREFS: Record<string, unknown> = {
  credentials_enable_service: false,
  'profile.password_manager_enabled': false,
  'profile.password_manager_leak_detection': false,
  'download.prompt_for_download': false,
  'profile.default_content_setting_values.automatic_downloads': 1,
};
export const FIREFOX_PREFS: Record<string, unknown> = {
  'signon.rememberSignons': false,
  'signon.autofillForms': false,
  'browser.download.useDownloadDir': true,
  'browser.download.always_ask_before_handling_new_types': false,
  'browser.download.manager.showWhenStarting': false,
};
/**
 * Playwright launches Chromium with its back-forward cache off, so back and forward load the page
 * again (a fresh document, an HTTP status): the Grid's browser is asked for the same.
 */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-dev-shm-usage', '--disable-back-forward-cache'];

/** A headless flag in a vendor block's args belongs to the headless option. */
const HEADLESS_ARG = /^--?headless(=.*)?$/;

type Vendor = { args: string[]; prefs: Record<string, unknown>; rest: Record<string, unknown> };

function flowVendor(browser: GridBrowser): Vendor {
  return browser === 'firefox'
    ? { args: [], prefs: { ...FIREFOX_PREFS }, rest: {} }
    : { args: [...CHROMIUM_ARGS], prefs: { ...CHROMIUM_PREFS }, rest: {} };
}

/** What the named options put in the vendor block (headless, locale, user agent). */
function optionVendor(browser: GridBrowser, inputs: CapabilityInputs): Vendor {
  const out: Vendor = { args: [], prefs: {}, rest: {} };
  if (browser === 'firefox') {
    if (inputs.headless) out.args.push('-headless');
    out.prefs = firefoxOptionPrefs(inputs);
  } else {
    if (inputs.headless) out.args.push('--headless=new');
    // `--lang` alone leaves a Linux node's navigator.language at its own; the pref sets it.
    if (inputs.locale) {
      out.args.push(`--lang=${inputs.locale}`);
      out.prefs['intl.accept_languages'] = inputs.locale;
    }
    if (inputs.userAgent) out.args.push(`--user-agent=${inputs.userAgent}`);
  }
  return out;
}

/** The Firefox preferences the `locale` and `user_agent` options set (on a Grid node or locally). */
export function firefoxOptionPrefs(inputs: {
  locale?: string;
  userAgent?: string;
}): Record<string, unknown> {
  const prefs: Record<string, unknown> = {};
  if (inputs.locale) prefs['intl.accept_languages'] = inputs.locale;
  if (inputs.userAgent) prefs['general.useragent.override'] = inputs.userAgent;
  return prefs;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads a layer's vendor block, refusing a shape a merge cannot add to (seed 004 ruling 27). */
function readVendor(block: unknown, key: string, layer: string): Vendor {
  if (!isPlainObject(block))
    throw new OpError('invalid_argument', `${layer} ${key} must be an object.`);
  const { args = [], prefs = {}, ...rest } = block;
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string'))
    throw new OpError(
      'invalid_argument',
      `${layer} ${key}.args must be a list of strings, like ["--lang=de"].`,
    );
  if (!isPlainObject(prefs))
    throw new OpError(
      'invalid_argument',
      `${layer} ${key}.prefs must be an object of preference names to values.`,
    );
  const headless = args.find((a) => HEADLESS_ARG.test(a));
  if (headless)
    throw new OpError(
      'invalid_argument',
      `${layer} ${key}.args sets "${headless}"; use the headless option (true or false) instead.`,
      { details: { option: 'headless' } },
    );
  return { args, prefs, rest };
}

/** W3C's standard capability names; any other key needs a `vendor:` prefix. */
export const W3C_CAPABILITIES = [
  'acceptInsecureCerts',
  'browserName',
  'browserVersion',
  'pageLoadStrategy',
  'platformName',
  'proxy',
  'setWindowRect',
  'strictFileInteractability',
  'timeouts',
  'unhandledPromptBehavior',
  'webSocketUrl',
];

/** Refuses owned keys and unprefixed non-W3C keys in a layer (config or raw), naming the remedy. */
function refuseOwned(layer: Record<string, unknown>, name: string): void {
  const unprefixed = Object.keys(layer).filter(
    (k) => !k.includes(':') && !W3C_CAPABILITIES.includes(k),
  );
  if (unprefixed.length)
    throw new OpError(
      'invalid_argument',
      `${name} has ${unprefixed.map((k) => `"${k}"`).join(', ')}, which ${unprefixed.length > 1 ? 'are not W3C capabilities' : 'is not a W3C capability'}: an extension capability needs a prefix, like "myvendor:${unprefixed[0]}".`,
      { details: { keys: unprefixed } },
    );
  const owned = Object.keys(layer).filter((k) => k in OWNED_KEYS);
  if (owned.length === 0) return;
  throw new OpError(
    'invalid_argument',
    `${name} sets ${owned.map((k) => `"${k}"`).join(', ')}: ${owned.map((k) => OWNED_KEYS[k]).join('; ')}.`,
    { details: { owned_keys: owned } },
  );
}

/** Builds the sent set; raises `invalid_argument` (before anything is ended) on an owned key or a bad block. */
export function buildCapabilities(inputs: CapabilityInputs): BuiltCapabilities {
  const browser = GRID_BROWSER[inputs.browser];
  const block = VENDOR_BLOCK[browser];
  const config = inputs.config ?? {};
  const raw = inputs.raw ?? {};
  refuseOwned(config, 'SESSION_CAPABILITIES');
  refuseOwned(raw, 'capabilities');
  const configVendor =
    block in config ? readVendor(config[block], block, 'SESSION_CAPABILITIES') : undefined;
  const rawVendor = block in raw ? readVendor(raw[block], block, 'capabilities') : undefined;

  const out: Record<string, unknown> = {};
  const sources = new Map<string, CapabilitySource[]>();
  const set = (key: string, value: unknown, source: CapabilitySource) => {
    out[key] = value;
    sources.set(key, [source]);
  };

  // flow: what SwiftBrowse always sends.
  set('unhandledPromptBehavior', 'ignore', 'flow');
  set('webSocketUrl', true, 'flow');
  if (inputs.downloads !== false) set('se:downloadsEnabled', true, 'flow');
  set('se:swiftbrowseSession', inputs.session, 'flow');
  // option: the named options.
  set('browserName', browser, inputs.browserFrom ?? 'option');
  const version = chooseVersion(inputs);
  if (version) set('browserVersion', version.value, version.source);
  set('acceptInsecureCerts', inputs.insecure, 'option');
  if (inputs.record) {
    set('se:recordVideo', true, 'option');
    // One name per browser: a reopened session's video must not overwrite the last one.
    set('se:videoName', `${inputs.session}-${randomUUID().slice(0, 8)}.mp4`, 'option');
  }
  // config, then raw over it (ruling 14): plain keys; this browser's block is merged below.
  for (const [key, value] of Object.entries(config)) if (key !== block) set(key, value, 'config');
  for (const [key, value] of Object.entries(raw)) if (key !== block) set(key, value, 'raw');

  // The vendor block (ruling 5): args ours first then added, prefs ours win, the rest raw over config.
  const layers: [CapabilitySource, Vendor | undefined][] = [
    ['flow', flowVendor(browser)],
    ['option', optionVendor(browser, inputs)],
    ['config', configVendor],
    ['raw', rawVendor],
  ];
  const args: string[] = [];
  const blockSources: CapabilitySource[] = [];
  for (const [source, v] of layers) {
    if (!v) continue;
    const adds = Object.keys(v.prefs).length + v.args.length + Object.keys(v.rest).length;
    if (adds > 0 || source === 'config' || source === 'raw') blockSources.push(source);
    for (const a of v.args) if (!args.includes(a)) args.push(a);
  }
  // Prefs precedence: flow, then option, then raw, then config.
  const prefs: Record<string, unknown> = {};
  const ignored: string[] = [];
  const prefOrder: (Vendor | undefined)[] = [layers[0][1], layers[1][1], rawVendor, configVendor];
  for (const v of prefOrder) {
    for (const [name, value] of Object.entries(v?.prefs ?? {})) {
      if (!(name in prefs)) prefs[name] = value;
      else if (!sameValue(prefs[name], value)) ignored.push(`${block}.prefs.${name}`);
    }
  }
  const rest = { ...(configVendor?.rest ?? {}), ...(rawVendor?.rest ?? {}) };
  const vendor: Record<string, unknown> = { ...rest };
  if (args.length) vendor.args = args;
  if (Object.keys(prefs).length) vendor.prefs = prefs;
  out[block] = vendor;
  sources.set(block, blockSources);

  const sent = Object.keys(out).map((key) => ({
    key,
    value: out[key],
    sources: sources.get(key) ?? [],
  }));
  const rawKeys = Object.keys(raw);
  return {
    capabilities: out,
    sent,
    ignored: [...new Set(ignored)],
    rawKeys,
    version: version?.value,
    headed: !inputs.headless,
  };
}

/** The version sent and the layer it came from: option over client over server; `latest` is none. */
function chooseVersion(
  inputs: CapabilityInputs,
): { value: string; source: CapabilitySource } | undefined {
  const layers: [string | undefined, CapabilitySource][] = [
    [inputs.version, 'option'],
    [inputs.clientVersion, 'client'],
    [inputs.serverVersion, 'server'],
  ];
  const [value, source] = layers.find(([v]) => v !== undefined && v !== '') ?? [];
  return value && source && value !== LATEST ? { value, source } : undefined;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Checks SESSION_CAPABILITIES at start-up for every browser; the error names the option. */
export function checkConfigCapabilities(config: Record<string, unknown>): void {
  for (const browser of ['chrome', 'edge', 'firefox'] as const)
    buildCapabilities({ session: 'check', browser, headless: true, insecure: false, config });
}

/** What a session remembers about its browser choice between opens. */
export interface BrowserChoice {
  browser?: BrowserName;
  version?: string;
  capabilities?: Record<string, unknown>;
}

/**
 * The remembered choice after an explicit `open` (seed 004 rulings 13, 19, 20): `version:
 * latest` clears a remembered version, an explicit browser change drops it, and
 * `capabilities: {}` clears the remembered raw object (an explicit object replaces it whole).
 */
export function rememberChoice(remembered: BrowserChoice, call: BrowserChoice): BrowserChoice {
  const browser = call.browser ?? remembered.browser;
  const browserChanged =
    call.browser !== undefined &&
    remembered.browser !== undefined &&
    GRID_BROWSER[call.browser] !== GRID_BROWSER[remembered.browser];
  let version = call.version ?? (browserChanged ? undefined : remembered.version);
  if (version === LATEST) version = undefined;
  let capabilities = call.capabilities ?? remembered.capabilities;
  if (capabilities && Object.keys(capabilities).length === 0) capabilities = undefined;
  return { browser, version, capabilities };
}

/**
 * The capabilities a Grid matches on (seed 004 ruling 25), for a queue-timeout message:
 * browserName, browserVersion, platformName and prefixed keys outside the never-matched
 * prefixes. Vendor blocks and proxies (where credentials live) are never quoted.
 */
export function matchableCapabilities(capabilities: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(capabilities)) {
    if (!isMatchedOn(key)) continue;
    const scalar = ['string', 'number', 'boolean'].includes(typeof value);
    out.push(scalar ? `${key}=${String(value)}` : key);
  }
  return out;
}

/** A key a Grid matches a request on: the standard three, or a prefix outside the never-matched ones. */
export function isMatchedOn(key: string): boolean {
  if (['browserName', 'browserVersion', 'platformName'].includes(key)) return true;
  return key.includes(':') && !/^(goog|moz|ms|safari|se):/.test(key);
}
