// The capabilities builder (seed 004), one test per row of its tables. Chrome facts are also
// proven end to end on the Grid arm; Firefox and Edge facts are unit-tested only: this machine has
// no geckodriver and no Edge, so no Firefox or Edge browser is started anywhere in the suite.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OpError } from '../../src/core/errors.js';
import {
  buildCapabilities,
  matchableCapabilities,
  OWNED_KEYS,
  rememberChoice,
  type CapabilityInputs,
} from '../../src/drivers/webdriver/capabilities.js';
import {
  fromNewSession,
  GRID_SIDE_MESSAGES,
  QUEUE_TIMEOUT_MESSAGES,
  QueueWaitExpired,
} from '../../src/drivers/webdriver/errors.js';
import type { GridStatus } from '../../src/drivers/webdriver/grid-status.js';

const base: CapabilityInputs = {
  session: 's1',
  browser: 'chrome',
  headless: true,
  insecure: false,
};
const build = (more: Partial<CapabilityInputs> = {}) => buildCapabilities({ ...base, ...more });
const sourcesOf = (b: ReturnType<typeof build>, key: string) =>
  b.sent.find((s) => s.key === key)?.sources;
const refusal = (fn: () => unknown): OpError => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof OpError);
    return e;
  }
  assert.fail('expected a refusal');
};

describe('layers: what each source sets and may override', () => {
  test('flow: prompts kept for the dialog op, BiDi, managed downloads and the session name, always', () => {
    const b = build();
    assert.equal(b.capabilities.unhandledPromptBehavior, 'ignore');
    assert.equal(b.capabilities.webSocketUrl, true);
    assert.equal(b.capabilities['se:downloadsEnabled'], true);
    assert.equal(b.capabilities['se:swiftbrowseSession'], 's1');
    for (const k of ['unhandledPromptBehavior', 'webSocketUrl', 'se:downloadsEnabled'])
      assert.deepEqual(sourcesOf(b, k), ['flow']);
  });

  test('flow: managed downloads are left out where no node would offer them', () => {
    const b = build({ downloads: false });
    assert.equal('se:downloadsEnabled' in b.capabilities, false);
    assert.equal(
      b.sent.some((s) => s.key === 'se:downloadsEnabled'),
      false,
    );
  });

  test('flow: password-save and download prompts are disabled on Chrome (and Edge)', () => {
    for (const [browser, block] of [
      ['chrome', 'goog:chromeOptions'],
      ['edge', 'ms:edgeOptions'],
    ] as const) {
      const v = build({ browser }).capabilities[block] as { prefs: Record<string, unknown> };
      assert.equal(v.prefs.credentials_enable_service, false);
      assert.equal(v.prefs['profile.password_manager_enabled'], false);
      assert.equal(v.prefs['download.prompt_for_download'], false);
    }
  });

  test('flow: Firefox never offers to save a password nor asks where to download', () => {
    const v = build({ browser: 'firefox' }).capabilities['moz:firefoxOptions'] as {
      prefs: Record<string, unknown>;
    };
    assert.equal(v.prefs['signon.rememberSignons'], false);
    assert.equal(v.prefs['browser.download.always_ask_before_handling_new_types'], false);
  });

  test('option: browserName from browser, always (chromium asks a Grid for chrome)', () => {
    assert.equal(build({ browser: 'chromium' }).capabilities.browserName, 'chrome');
    assert.equal(build({ browser: 'edge' }).capabilities.browserName, 'MicrosoftEdge');
    assert.equal(build({ browser: 'firefox' }).capabilities.browserName, 'firefox');
    assert.deepEqual(sourcesOf(build(), 'browserName'), ['option']);
  });

  test("browserName's source is who chose the browser: BROWSER, X-Browser or open", () => {
    assert.deepEqual(sourcesOf(build({ browserFrom: 'server' }), 'browserName'), ['server']);
    assert.deepEqual(sourcesOf(build({ browserFrom: 'client' }), 'browserName'), ['client']);
    assert.deepEqual(sourcesOf(build({ browserFrom: 'option' }), 'browserName'), ['option']);
  });

  test('option: browserVersion from version, and never for latest or none', () => {
    assert.equal(build({ version: '152' }).capabilities.browserVersion, '152');
    assert.equal(build({ version: '152' }).version, '152');
    assert.equal('browserVersion' in build({ version: 'latest' }).capabilities, false);
    assert.equal('browserVersion' in build().capabilities, false);
  });

  test('option: insecure always sends acceptInsecureCerts, true or false, on every browser', () => {
    for (const browser of ['chrome', 'edge', 'firefox'] as const) {
      assert.equal(build({ browser, insecure: false }).capabilities.acceptInsecureCerts, false);
      assert.equal(build({ browser, insecure: true }).capabilities.acceptInsecureCerts, true);
    }
    assert.deepEqual(sourcesOf(build(), 'acceptInsecureCerts'), ['option']);
  });

  test('option: record sends se:recordVideo and se:videoName', () => {
    const b = build({ record: true });
    assert.equal(b.capabilities['se:recordVideo'], true);
    assert.match(String(b.capabilities['se:videoName']), /^s1-[0-9a-f]{8}\.mp4$/);
    assert.notEqual(
      build({ record: true }).capabilities['se:videoName'],
      b.capabilities['se:videoName'],
    );
    assert.equal('se:recordVideo' in build().capabilities, false);
  });

  test('option: headless adds its vendor arg beside ours, with the option source', () => {
    const chrome = build().capabilities['goog:chromeOptions'] as { args: string[] };
    assert.deepEqual(chrome.args, [
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--disable-back-forward-cache',
      '--headless=new',
    ]);
    assert.deepEqual(sourcesOf(build(), 'goog:chromeOptions'), ['flow', 'option']);
    const firefox = build({ browser: 'firefox' }).capabilities['moz:firefoxOptions'] as {
      args: string[];
    };
    assert.deepEqual(firefox.args, ['-headless']);
    const headed = build({ headless: false }).capabilities['goog:chromeOptions'] as {
      args: string[];
    };
    assert.equal(headed.args.includes('--headless=new'), false);
  });

  test('config: its keys are sent with the config source and never override flow or option', () => {
    const b = build({ config: { 'kubed:pool': 'default', platformName: 'linux' } });
    assert.equal(b.capabilities['kubed:pool'], 'default');
    assert.deepEqual(sourcesOf(b, 'kubed:pool'), ['config']);
    assert.deepEqual(sourcesOf(b, 'platformName'), ['config']);
  });

  test('raw: a raw key overrides a config key, and its source then reads raw', () => {
    const b = build({ config: { 'kubed:pool': 'default' }, raw: { 'kubed:pool': 'gpu' } });
    assert.equal(b.capabilities['kubed:pool'], 'gpu');
    assert.deepEqual(sourcesOf(b, 'kubed:pool'), ['raw']);
    assert.deepEqual(b.rawKeys, ['kubed:pool']);
  });

  test('raw: loses to flow and option inside a vendor block, and the loss is listed in ignored', () => {
    const b = build({
      raw: { 'goog:chromeOptions': { prefs: { credentials_enable_service: true } } },
    });
    const v = b.capabilities['goog:chromeOptions'] as { prefs: Record<string, unknown> };
    assert.equal(v.prefs.credentials_enable_service, false);
    assert.deepEqual(b.ignored, ['goog:chromeOptions.prefs.credentials_enable_service']);
  });
});

describe('owned keys: refused with the option named', () => {
  for (const key of Object.keys(OWNED_KEYS)) {
    test(`raw ${key} is invalid_argument naming the remedy`, () => {
      const e = refusal(() => build({ raw: { [key]: 'x' } }));
      assert.equal(e.kind, 'invalid_argument');
      assert.match(e.message, new RegExp(key.replace(/[:.]/g, '.')));
      assert.ok(e.message.includes(OWNED_KEYS[key]));
    });
  }

  test('config owned key is refused too (a ConfigError at load names the option)', () => {
    const e = refusal(() => build({ config: { browserVersion: '150' } }));
    assert.match(e.message, /SESSION_CAPABILITIES.*version option/);
  });

  test('the headless flag in a vendor block args is refused: use headless', () => {
    for (const arg of ['--headless', '--headless=new', '-headless']) {
      const e = refusal(() => build({ raw: { 'goog:chromeOptions': { args: [arg] } } }));
      assert.match(e.message, /headless option/);
    }
  });

  test('an unprefixed non-W3C key is refused: it would be dropped before sending', () => {
    const e = refusal(() => build({ raw: { pool: 'gpu' } }));
    assert.match(e.message, /needs a prefix/);
    assert.equal(
      build({ raw: { pageLoadStrategy: 'eager' } }).capabilities.pageLoadStrategy,
      'eager',
    );
  });
});

describe('vendor block merge', () => {
  test('args: ours first, then option, then config, then raw, exact duplicates dropped', () => {
    const b = build({
      config: { 'goog:chromeOptions': { args: ['--lang=de', '--no-sandbox'] } },
      raw: { 'goog:chromeOptions': { args: ['--lang=de', '--mute-audio'] } },
    });
    const v = b.capabilities['goog:chromeOptions'] as { args: string[] };
    assert.deepEqual(v.args, [
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--disable-back-forward-cache',
      '--headless=new',
      '--lang=de',
      '--mute-audio',
    ]);
    assert.deepEqual(b.ignored, []);
    assert.deepEqual(sourcesOf(b, 'goog:chromeOptions'), ['flow', 'option', 'config', 'raw']);
  });

  test('prefs: flow beats everything, option beats config and raw, raw beats config', () => {
    const b = build({
      locale: 'de-DE',
      browser: 'firefox',
      config: { 'moz:firefoxOptions': { prefs: { 'intl.accept_languages': 'fr', 'a.b': 1 } } },
      raw: { 'moz:firefoxOptions': { prefs: { 'a.b': 2, 'signon.rememberSignons': true } } },
    });
    const v = b.capabilities['moz:firefoxOptions'] as { prefs: Record<string, unknown> };
    assert.equal(v.prefs['signon.rememberSignons'], false);
    assert.equal(v.prefs['intl.accept_languages'], 'de-DE');
    assert.equal(v.prefs['a.b'], 2);
    assert.deepEqual(b.ignored.sort(), [
      'moz:firefoxOptions.prefs.a.b',
      'moz:firefoxOptions.prefs.intl.accept_languages',
      'moz:firefoxOptions.prefs.signon.rememberSignons',
    ]);
  });

  test('locale on Chromium: --lang and the accept-languages pref the page reads', () => {
    const v = build({ locale: 'de-DE' }).capabilities['goog:chromeOptions'] as {
      args: string[];
      prefs: Record<string, unknown>;
    };
    assert.ok(v.args.includes('--lang=de-DE'), JSON.stringify(v.args));
    assert.equal(v.prefs['intl.accept_languages'], 'de-DE');
  });

  test('ignored lists a pref only when the losing value differs from the winner', () => {
    const b = build({
      raw: { 'goog:chromeOptions': { prefs: { credentials_enable_service: false } } },
    });
    assert.deepEqual(b.ignored, []);
  });

  test('other block keys come from config then raw (raw wins)', () => {
    const b = build({
      config: { 'goog:chromeOptions': { binary: '/a', mobileEmulation: { deviceName: 'x' } } },
      raw: { 'goog:chromeOptions': { binary: '/b' } },
    });
    const v = b.capabilities['goog:chromeOptions'] as Record<string, unknown>;
    assert.equal(v.binary, '/b');
    assert.deepEqual(v.mobileEmulation, { deviceName: 'x' });
  });

  test('a block for another browser is sent untouched', () => {
    const b = build({ raw: { 'moz:firefoxOptions': { args: ['--whatever'] } } });
    assert.deepEqual(b.capabilities['moz:firefoxOptions'], { args: ['--whatever'] });
    assert.deepEqual(sourcesOf(b, 'moz:firefoxOptions'), ['raw']);
  });

  test('a block of the wrong shape is invalid_argument: args not strings, prefs not an object', () => {
    assert.match(
      refusal(() => build({ raw: { 'goog:chromeOptions': { args: '--lang=de' } } })).message,
      /list of strings/,
    );
    assert.match(
      refusal(() => build({ raw: { 'goog:chromeOptions': { prefs: [] } } })).message,
      /prefs must be an object/,
    );
    assert.match(refusal(() => build({ raw: { 'goog:chromeOptions': 1 } })).message, /object/);
  });

  test('the sent list is exactly the capabilities object, key for key', () => {
    const b = build({ raw: { 'x:y': 1 }, config: { 'kubed:pool': 'p' }, record: true });
    assert.deepEqual(b.sent.map((s) => s.key).sort(), Object.keys(b.capabilities).sort());
    for (const s of b.sent) assert.deepEqual(s.value, b.capabilities[s.key]);
  });
});

describe('what a session remembers between opens', () => {
  test('version latest clears a remembered version', () => {
    assert.equal(
      rememberChoice({ browser: 'chrome', version: '152' }, { version: 'latest' }).version,
      undefined,
    );
  });
  test('an explicit browser change drops a remembered version', () => {
    assert.equal(
      rememberChoice({ browser: 'chrome', version: '152' }, { browser: 'firefox' }).version,
      undefined,
    );
    assert.equal(
      rememberChoice({ browser: 'chrome', version: '152' }, { browser: 'chrome' }).version,
      '152',
    );
  });
  test('capabilities {} clears the remembered raw object; an explicit object replaces it whole', () => {
    const remembered = { capabilities: { 'a:b': 1, 'c:d': 2 } };
    assert.equal(rememberChoice(remembered, { capabilities: {} }).capabilities, undefined);
    assert.deepEqual(rememberChoice(remembered, { capabilities: { 'e:f': 3 } }).capabilities, {
      'e:f': 3,
    });
    assert.deepEqual(rememberChoice(remembered, {}).capabilities, remembered.capabilities);
  });
});

describe('Grid errors (seed 004 rulings 12, 16, 24, 25)', () => {
  const grid = 'http://grid:4444';
  const notCreated = (message: string) =>
    Object.assign(new Error(`session not created: ${message}`), { name: 'SessionNotCreatedError' });

  test('the two queue-timeout strings are pinned and answer backend with matchable capabilities only', () => {
    assert.deepEqual(QUEUE_TIMEOUT_MESSAGES, [
      'New session request timed out',
      'Timed out creating session',
    ]);
    const built = build({
      version: '152',
      config: { 'kubed:pool': 'headless', proxy: { httpProxy: 'user:secret@p:1' } },
      raw: { 'cloud:options': { apiKey: 'secret' }, 'se:foo': 'x' },
    });
    for (const m of QUEUE_TIMEOUT_MESSAGES) {
      const e = fromNewSession(notCreated(m), built, grid);
      assert.equal(e.kind, 'backend');
      assert.match(
        e.message,
        /browserName=chrome, browserVersion=152, kubed:pool=headless, cloud:options/,
      );
      assert.doesNotMatch(e.message, /secret|goog:|se:foo|proxy/);
    }
  });

  test('matchable capabilities: standard three and prefixed keys outside goog:, moz:, ms:, safari:, se:', () => {
    assert.deepEqual(
      matchableCapabilities({
        browserName: 'chrome',
        platformName: 'linux',
        'goog:chromeOptions': {},
        'ms:x': 1,
        'safari:y': 1,
        'moz:z': 1,
        'se:w': 1,
        'kubed:pool': 'a',
        'x:obj': { a: 1 },
        acceptInsecureCerts: true,
      }),
      ['browserName=chrome', 'platformName=linux', 'kubed:pool=a', 'x:obj'],
    );
  });

  test('the Grid-side strings are pinned and stay backend', () => {
    assert.equal(GRID_SIDE_MESSAGES.length, 5);
    for (const m of GRID_SIDE_MESSAGES) {
      const e = fromNewSession(notCreated(m), build({ version: '152' }), grid);
      assert.equal(e.kind, 'backend');
    }
  });

  test('a node refusal with raw keys or a version is invalid_argument naming them', () => {
    const e = fromNewSession(
      notCreated('Chrome failed to start'),
      build({ raw: { 'x:y': 1 } }),
      grid,
    );
    assert.equal(e.kind, 'invalid_argument');
    assert.match(e.message, /Chrome failed to start.*"x:y"/);
    const v = fromNewSession(notCreated('no such version'), build({ version: '99' }), grid);
    assert.equal(v.kind, 'invalid_argument');
    assert.match(v.message, /version "99"/);
  });

  test('a node refusal with neither is backend, and says trying again may succeed', () => {
    const e = fromNewSession(notCreated('Chrome failed to start'), build(), grid);
    assert.equal(e.kind, 'backend');
    assert.match(e.message, /Trying again may succeed/);
  });

  const status = (more: Partial<GridStatus> = {}): GridStatus => ({
    reached: true,
    ready: true,
    message: '',
    nodes: 1,
    liveNodes: 1,
    nodeStates: [{ uri: 'http://10.0.0.7:5555', availability: 'UP', downloads: true, offers: [] }],
    slots: 1,
    busy: 0,
    stereotypes: [{ browserName: 'chrome', browserVersion: '152.0.7000.1' }],
    downloads: 'on',
    ...more,
  });

  test('a queue timeout on a Grid with no node says so and does not blame the capabilities', () => {
    const empty = status({ nodes: 0, liveNodes: 0, nodeStates: [], slots: 0, stereotypes: [] });
    for (const e of [notCreated(QUEUE_TIMEOUT_MESSAGES[0]), new QueueWaitExpired(3000)]) {
      const answer = fromNewSession(e, build({ version: '152' }), grid, empty);
      assert.equal(answer.kind, 'backend');
      assert.match(answer.message, /has no node at all/);
      assert.doesNotMatch(answer.message, /check the browser, version/);
    }
    const unreachable = status({
      reached: false,
      nodes: 0,
      liveNodes: 0,
      nodeStates: [],
      slots: 0,
    });
    const e = fromNewSession(new QueueWaitExpired(3000), build(), grid, unreachable);
    assert.match(e.message, /within 3 s \(GRID_QUEUE_WAIT_MS\).*browserName=chrome/);
  });

  test('a queue timeout on a Grid whose only node is DOWN says it has no live node', () => {
    const down = status({
      liveNodes: 0,
      nodeStates: [
        { uri: 'http://10.0.0.7:5555', availability: 'DOWN', downloads: true, offers: [] },
      ],
    });
    const e = fromNewSession(new QueueWaitExpired(3000), build({ version: '152' }), grid, down);
    assert.match(e.message, /has no live node.*http:\/\/10\.0\.0\.7:5555 DOWN/);
    assert.doesNotMatch(e.message, /check the browser, version/);
  });

  test('a queue timeout on a Grid whose UP nodes do not answer names them, not the capabilities', () => {
    const silent: [string, string][] = [['http://10.0.0.7:5555', 'connect ECONNREFUSED']];
    const e = fromNewSession(new QueueWaitExpired(20_000), build(), grid, status(), silent);
    assert.equal(e.kind, 'backend');
    assert.match(
      e.message,
      /lists one node as UP, but none answers: http:\/\/10\.0\.0\.7:5555 \(connect/,
    );
    assert.doesNotMatch(e.message, /check the browser, version/);
  });

  test('a node that did not answer the Grid is named, and no capability is blamed', () => {
    const refused = notCreated(
      'Could not start a new session. Connection error (POST http://10.0.0.7:5555/se/grid/node/session) ',
    );
    const e = fromNewSession(refused, build({ raw: { 'x:y': 1 } }), grid, status());
    assert.equal(e.kind, 'backend');
    assert.match(e.message, /node http:\/\/10\.0\.0\.7:5555, which did not answer/);
    assert.match(e.message, /still lists it as UP.*no other live node/);
    assert.doesNotMatch(e.message, /"x:y"/);
  });

  test('a refusal is not blamed on a version a node offers', () => {
    const e = fromNewSession(
      notCreated('Chrome failed to start'),
      build({ version: '152' }),
      grid,
      status(),
    );
    assert.equal(e.kind, 'backend');
    assert.doesNotMatch(e.message, /version "152"/);
    const other = fromNewSession(
      notCreated('no such version'),
      build({ version: '99' }),
      grid,
      status(),
    );
    assert.match(other.message, /version "99"/);
  });

  test('a node with no display refusing a headed browser says so, not "trying again"', () => {
    const e = fromNewSession(
      notCreated('Missing X server or $DISPLAY'),
      build({ headless: false }),
      grid,
      status(),
    );
    assert.equal(e.kind, 'backend');
    assert.match(e.message, /no display.*headless: true/);
    assert.doesNotMatch(e.message, /Trying again may succeed/);
    const exited = fromNewSession(
      notCreated('Chrome instance exited.'),
      build({ headless: false }),
      grid,
      status(),
    );
    assert.match(exited.message, /headed browser.*no display/);
  });

  test("config capabilities do not count as the caller's fault", () => {
    const e = fromNewSession(
      notCreated('Chrome failed to start'),
      build({ config: { 'kubed:pool': 'x' } }),
      grid,
    );
    assert.equal(e.kind, 'backend');
  });
});

describe('the browser version cascade', () => {
  const versionOf = (b: ReturnType<typeof build>) => b.sent.find((s) => s.key === 'browserVersion');

  test('SESSION_VERSION is sent under every session, from the server layer', () => {
    assert.deepEqual(versionOf(build({ serverVersion: '131' })), {
      key: 'browserVersion',
      value: '131',
      sources: ['server'],
    });
  });

  test('the client layer beats the server, and the open beats both', () => {
    const client = build({ serverVersion: '131', clientVersion: '130' });
    assert.deepEqual(versionOf(client)?.sources, ['client']);
    assert.equal(client.version, '130');
    const option = build({ serverVersion: '131', clientVersion: '130', version: '129' });
    assert.deepEqual(versionOf(option)?.sources, ['option']);
    assert.equal(option.capabilities.browserVersion, '129');
  });

  test('latest at the winning layer sends no version', () => {
    assert.equal(versionOf(build({ serverVersion: 'latest' })), undefined);
    assert.equal(versionOf(build({ serverVersion: '131', clientVersion: 'latest' })), undefined);
    assert.equal(build({ serverVersion: 'latest' }).version, undefined);
  });
});

describe('SESSION_CAPABILITIES in the configuration', () => {
  test('is read as JSON from the environment', async () => {
    const { loadConfig } = await import('../../src/config.js');
    const config = loadConfig({ SESSION_CAPABILITIES: '{"kubed:pool": "headless"}' });
    assert.deepEqual(config.sessionCapabilities, { 'kubed:pool': 'headless' });
  });

  test('an owned key or a non-object stops the server at start-up, naming the option', async () => {
    const { loadConfig, ConfigError } = await import('../../src/config.js');
    assert.throws(
      () => loadConfig({ SESSION_CAPABILITIES: '{"browserName": "firefox"}' }),
      (e: unknown) => e instanceof ConfigError && /browser option/.test(e.message),
    );
    assert.throws(
      () => loadConfig({ SESSION_CAPABILITIES: '[1]' }),
      (e: unknown) => e instanceof ConfigError && /JSON object/.test(e.message),
    );
  });
});
