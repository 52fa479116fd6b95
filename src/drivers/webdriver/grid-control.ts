import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpError } from '../../core/errors.js';
import { within } from '../../core/within.js';
import type { FramePath } from '../driver.js';
import { pageApiExpression } from '../page-script.js';
import type { BrowserLoss } from '../driver.js';
import { fromWebDriver } from './errors.js';
import { NODE_UNREACHABLE, nodeLoss, nodeSilence } from './node-loss.js';
import { gridCommand, remoteFileDetector, type SeleniumDriver } from './selenium.js';
import type { CollectedDownloads, CrashVerdict, SessionControl } from './session-control.js';

const require = createRequire(import.meta.url);
const zip = require('selenium-webdriver/io/zip') as {
  unzip(src: string, dst: string): Promise<string>;
};

/** How long classic WebDriver may take to say "tab crashed" (behind a script in flight it may not). */
const CRASH_CONFIRM_MS = 1000;

/** How long the liveness check waits on classic WebDriver before asking the node itself. */
const CLASSIC_ANSWER_MS = 1000;

/** Classic WebDriver's words for a session the Grid no longer holds. */
const SESSION_GONE = /NoSuchSession|invalid session id|no such session|unable to find session/i;

/** A Grid browser's classic WebDriver side: what BiDi lacks there. */
export class GridControl implements SessionControl {
  /** Whether this machine can reach the node at all: only then does its silence mean it is gone. */
  private readonly nodeReachable: Promise<boolean>;
  /** Why the node did not answer when the liveness check asked it, so the loss need not ask again. */
  private silence?: string;

  constructor(
    private readonly driver: SeleniumDriver,
    private readonly gridUrl: string,
    /** The node the Grid listed the session on when it opened. */
    private readonly node: string | undefined,
  ) {
    this.nodeReachable = node
      ? nodeSilence(node).then((silence) => silence === undefined)
      : Promise.resolve(false);
  }

  /**
   * Gone when the Grid no longer holds the session or says its node does not answer, or when
   * neither the Grid nor the node answers (a node whose machine vanished holds the hub's call).
   */
  async alive(): Promise<boolean> {
    const asked = this.driver.getWindowHandle().then(
      () => true,
      (e: Error) => {
        const said = `${e.name} ${e.message}`;
        return !SESSION_GONE.test(said) && !NODE_UNREACHABLE.test(said);
      },
    );
    const answer = await within(asked, CLASSIC_ANSWER_MS, 'unanswered' as const);
    if (answer !== 'unanswered') return answer;
    // A page stuck in script holds classic WebDriver too, but not its node's /status.
    if (!this.node || !(await this.nodeReachable)) return asked;
    this.silence = await nodeSilence(this.node);
    return this.silence === undefined;
  }

  lossCause(): Promise<BrowserLoss | undefined> {
    return nodeLoss(this.gridUrl, this.node, this.silence);
  }

  async pageCrashed(context: string): Promise<CrashVerdict> {
    const asked = (async () => {
      try {
        await this.driver.switchTo().window(context);
        await this.driver.getTitle();
        return 'alive' as const;
      } catch (e) {
        return /tab crashed|page crash/i.test((e as Error).message) ? 'crashed' : 'alive';
      }
    })();
    // A page without a document that classic WebDriver cannot answer for either is likely gone.
    return within(asked, CRASH_CONFIRM_MS, 'unanswered' as const);
  }

  async setInputFiles(
    context: string,
    frames: FramePath,
    handle: number,
    paths: string[],
  ): Promise<void> {
    const d = this.driver;
    try {
      await d.switchTo().window(context);
      await d.switchTo().defaultContent();
      for (const h of frames)
        await d
          .switchTo()
          .frame(await d.executeScript(`return ${pageApiExpression}.element(${h})`));
      const input = (await d.executeScript(`return ${pageApiExpression}.element(${handle})`)) as {
        sendKeys(keys: string): Promise<void>;
      } | null;
      if (!input) throw new OpError('stale_element', 'The file input was removed from the page.');
      // The detector uploads each file to the node first: the browser may run on another machine.
      d.setFileDetector(remoteFileDetector());
      await input.sendKeys(paths.join('\n'));
    } catch (e) {
      throw fromWebDriver(e, 'Setting the files');
    } finally {
      await d
        .switchTo()
        .defaultContent()
        .catch(() => undefined);
    }
  }

  /** Copies the files the node downloaded (the Grid's managed downloads) into `dir`. */
  async collectDownloads(dir: string, have: ReadonlySet<string>): Promise<CollectedDownloads> {
    const out: CollectedDownloads = { got: [], unwritten: [] };
    try {
      const listing = (await this.driver.execute(gridCommand('GET_DOWNLOADABLE_FILES'))) as {
        names?: string[];
      };
      for (const name of listing.names ?? []) {
        if (have.has(name)) continue;
        const file = (await this.driver.execute(gridCommand('DOWNLOAD_FILE', { name }))) as {
          contents: string;
        };
        const tmp = mkdtempSync(join(tmpdir(), 'swiftbrowse-dl-'));
        try {
          const archive = join(tmp, 'file.zip');
          writeFileSync(archive, Buffer.from(file.contents, 'base64'));
          mkdirSync(dir, { recursive: true });
          await zip.unzip(archive, dir);
          out.got.push(name);
        } catch (e) {
          // Not the node's doing, so not waited out: the download is failed with this disk's error.
          out.unwritten.push([name, (e as Error).message]);
        } finally {
          rmSync(tmp, { recursive: true, force: true });
        }
      }
    } catch {
      // A download still being written is fetched on the next end event or sync.
    }
    return out;
  }

  end(): Promise<void> {
    return this.driver.quit().catch(() => undefined);
  }
}
