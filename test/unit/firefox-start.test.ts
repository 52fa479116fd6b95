import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BidiUnanswered } from '../../src/drivers/webdriver/bidi.js';
import { fromFirefoxStart, fromWebDriver } from '../../src/drivers/webdriver/errors.js';

test('a Firefox that does not answer its first command names the wait, the cause and the setting', () => {
  const e = fromFirefoxStart(new BidiUnanswered('session.new', 45_000), '/usr/bin/firefox', 45_000);
  assert.equal(e.kind, 'backend');
  assert.match(
    e.message,
    /did not answer its first WebDriver BiDi command \(session\.new\) within 45 s/,
  );
  assert.match(e.message, /loaded machine or a new profile/);
  assert.match(e.message, /raise FIREFOX_START_TIMEOUT \(e\.g\. to 90s\)/);
});

test("Selenium's fixed BiDi timeout is told as an unanswered browser, not a request id", () => {
  const e = fromWebDriver(new Error('Request with id 7 timed out'), 'Reading the page');
  assert.equal(e.kind, 'backend');
  assert.doesNotMatch(e.message, /Request with id/);
  assert.match(e.message, /Reading the page failed: the browser did not answer .* within 30 s/);
});
