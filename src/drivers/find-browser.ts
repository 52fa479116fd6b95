import { accessSync, constants, statSync } from 'node:fs';

const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

const FIREFOX_CANDIDATES = [
  '/usr/bin/firefox-esr',
  '/usr/bin/firefox',
  '/snap/bin/firefox',
  '/Applications/Firefox.app/Contents/MacOS/firefox',
];

/** The Chromium to launch: BROWSER_PATH, or the first one installed in a usual place. */
export function findBrowser(configured?: string): string | undefined {
  return firstExecutable(configured ? [configured] : CANDIDATES);
}

/** The Firefox to launch: FIREFOX_PATH, or the first one installed in a usual place. */
export function findFirefox(configured?: string): string | undefined {
  return firstExecutable(configured ? [configured] : FIREFOX_CANDIDATES);
}

function firstExecutable(list: readonly string[]): string | undefined {
  return list.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Why a configured BROWSER_PATH cannot be launched ("does not exist"…), or undefined when it can. */
export function browserPathProblem(path: string): string | undefined {
  try {
    if (!statSync(path).isFile()) return 'is not a file';
    accessSync(path, constants.X_OK);
    return undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'is not executable';
  }
}

/** Flags Chromium needs on a closed network and as root (it stalls or refuses to start otherwise). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
