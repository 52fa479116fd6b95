import { errors } from 'playwright-core';
import { firstLine, OpError } from '../../core/errors.js';

/** Converts whatever Playwright threw into an OpError (the one place that knows its messages). */
export function fromPlaywright(error: unknown, doing: string): OpError {
  if (error instanceof OpError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof errors.TimeoutError) {
    return new OpError('timeout', `${doing} timed out: ${firstLine(stripPrefix(message))}`);
  }
  const key = /Unknown key: "([^"]*)"/.exec(message);
  if (key)
    return new OpError(
      'invalid_argument',
      `"${key[1]}" is not a key. Give a character ("a"), a DOM key name ("Enter", "ArrowLeft") or a chord ("Control+a").`,
    );
  const net = /net::(ERR_[A-Z_]+)/.exec(message);
  if (net)
    return new OpError('navigation_failed', `${doing} failed: ${net[1]}.`, {
      details: { error: net[1] },
    });
  if (/Target crashed|Page crashed/i.test(message))
    return new OpError(
      'backend',
      `${doing} failed: the tab crashed (its page's renderer process died). The next op reopens it on its last URL.`,
    );
  if (/has been closed|Target closed|browser has disconnected/i.test(message)) {
    return new OpError(
      'backend',
      `${doing} failed: the browser or tab was closed. The next op opens a new browser.`,
    );
  }
  if (
    /Execution context was destroyed|Frame was detached|frame got detached|Cannot find context/i.test(
      message,
    )
  ) {
    return new OpError(
      'stale_element',
      `${doing} was interrupted: the page navigated or the frame was removed.`,
    );
  }
  return new OpError('backend', `${doing} failed: ${firstLine(stripPrefix(message))}`);
}

/** Playwright prefixes its messages with the API called (`page.evaluate: `); a model needs the rest. */
export function stripPrefix(message: string): string {
  return message.replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, '');
}

/** An exception thrown by script running in the page, as opposed to Playwright failing. */
export function isPageScriptError(error: unknown): boolean {
  if (!(error instanceof Error) || error instanceof errors.TimeoutError) return false;
  const m = stripPrefix(error.message);
  return !/has been closed|Target closed|Target crashed|Page crashed|Execution context was destroyed|Frame was detached|Cannot find context|net::ERR_/i.test(
    m,
  );
}
