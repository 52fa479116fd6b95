/**
 * The few parts of `selenium-webdriver` this backend uses, typed here (the package ships no types
 * of its own). Sessions are created from a plain Capabilities object so what is sent is exactly
 * what the capabilities builder returned: Selenium's Options classes add keys of their own.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export interface WebElement {
  sendKeys(...keys: string[]): Promise<void>;
}

export interface SeleniumDriver {
  getSession(): Promise<{ getId(): string }>;
  getCapabilities(): Promise<{ get(key: string): unknown }>;
  getWindowHandle(): Promise<string>;
  getTitle(): Promise<string>;
  executeScript(script: string, ...args: unknown[]): Promise<unknown>;
  execute(command: unknown): Promise<unknown>;
  switchTo(): {
    window(handle: string): Promise<void>;
    frame(el: unknown): Promise<void>;
    defaultContent(): Promise<void>;
  };
  manage(): {
    setTimeouts(t: { pageLoad?: number; script?: number }): Promise<void>;
  };
  setFileDetector(detector: unknown): void;
  quit(): Promise<void>;
}

interface SeleniumModule {
  Capabilities: new (map: Record<string, unknown>) => unknown;
  Session: new (id: string, caps: unknown) => unknown;
  WebDriver: {
    createSession(executor: unknown, caps: unknown): SeleniumDriver;
    new (session: unknown, executor: unknown): SeleniumDriver;
  };
}
interface HttpModule {
  HttpClient: new (url: string) => unknown;
  Executor: new (client: unknown) => unknown;
}
interface CommandModule {
  Command: new (name: string) => { setParameter(key: string, value: unknown): unknown };
  Name: Record<string, string>;
}

const selenium = require('selenium-webdriver') as SeleniumModule;
const http = require('selenium-webdriver/http') as HttpModule;
const command = require('selenium-webdriver/lib/command') as CommandModule;
const remote = require('selenium-webdriver/remote') as { FileDetector: new () => unknown };

function executor(gridUrl: string): unknown {
  return new http.Executor(new http.HttpClient(gridUrl));
}

/** Asks the Grid for a new session with exactly these capabilities; waits as long as the Grid does. */
export async function createSession(
  gridUrl: string,
  capabilities: Record<string, unknown>,
): Promise<SeleniumDriver> {
  const driver = selenium.WebDriver.createSession(
    executor(gridUrl),
    new selenium.Capabilities(capabilities),
  );
  await driver.getSession();
  return driver;
}

/** A driver for a session that already exists on the Grid (after a server restart). */
export function existingSession(gridUrl: string, id: string): SeleniumDriver {
  return new selenium.WebDriver(
    new selenium.Session(id, new selenium.Capabilities({})),
    executor(gridUrl),
  );
}

/** A WebDriver command by its Selenium name, with parameters. */
export function gridCommand(name: string, params: Record<string, unknown> = {}): unknown {
  const c = new command.Command(command.Name[name] ?? name);
  for (const [k, v] of Object.entries(params)) c.setParameter(k, v);
  return c;
}

/** Uploads local files to the node before typing their path into a file input. */
export function remoteFileDetector(): unknown {
  return new remote.FileDetector();
}
