import { createHash } from 'node:crypto';
import { appendFile, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BrowserTab } from '../drivers/driver.js';
import {
  captureScreen,
  FRAME_MAX_WIDTH,
  FRAME_NAME,
  FRAME_QUALITY,
  frameName,
  type Screen,
} from './frames.js';
import { within } from '../core/within.js';
import { logLine, serializeLine, type LogLine, type OpRecord } from './log-line.js';

export interface SessionLogOptions {
  /** `DATA_DIR/logs`: one directory per session below it. */
  dir: string;
  /** Keep JPEG frames (LOG_FRAMES). */
  frames: boolean;
  /** Frame bytes one session may hold (LOG_FRAMES_MAX_MB); past it frames stop. */
  framesMaxBytes: number;
  /** The server logger: a log that cannot be written is reported there, once per session. */
  logger: Pick<Logger, 'error'>;
}

/** One op as run-op hands it over. */
export interface RanOp extends Omit<OpRecord, 'screen'> {
  /** The op changes the screen (its definition's `acts`). */
  acts: boolean;
  /** The tab the op left active, to capture the frame from. */
  tab?: BrowserTab;
  /** A capture run-op already took (failure evidence): the frame reuses it. */
  screen?: Screen;
}

interface SessionState {
  /** Writes of this session, chained so lines land in op order. */
  chain: Promise<void>;
  /** The frame being taken for the latest op. */
  capturing?: Capture;
  /** Tabs a secret was typed in: their frames are captured with the secret's fields blanked. */
  secretTabs: WeakSet<BrowserTab>;
  ready?: Promise<void>;
  nextFrame: number;
  frameBytes: number;
  lastHash?: string;
  lastFrame?: string;
  reported: boolean;
}

/** A frame being taken; `late` once the session's next op stopped waiting for it. */
interface Capture {
  screen: Promise<Screen | undefined>;
  late: boolean;
}

/**
 * How long the session's next op waits for the previous op's frame, on its own clock. A frame
 * takes 20-250 ms on Chromium and 100-300 ms on a Grid; one that takes seconds (a hidden tab's
 * renderer starved by other work measured 7.8 s) would eat the op's whole timeout, and logging
 * never fails an op.
 */
export const FRAME_WAIT_MS = 1000;

function typedSecret(op: RanOp): boolean {
  const args = op.args as { secret?: unknown } | undefined;
  return op.result.op === 'fill' && typeof args === 'object' && args?.secret !== undefined;
}

export function logsDir(dataDir: string): string {
  return join(dataDir, 'logs');
}

/**
 * The per-session log (DESIGN §12): one JSON line per op in `<dir>/<session>/events.jsonl` and
 * JPEG frames in `<dir>/<session>/frames/`. `record` returns at once; writing never fails an op.
 */
export class SessionLog {
  private readonly states = new Map<string, SessionState>();

  constructor(private readonly options: SessionLogOptions) {}

  /**
   * Queues the op's line; lines of one session are written in the order recorded. A frame is due
   * after an op that changes the screen and after every failure: `screen` when run-op already
   * took one (failure evidence), else it is taken now, while the answer goes out.
   */
  record(op: RanOp): void {
    const session = op.result.session_id;
    const state = this.state(session);
    if (op.tab && typedSecret(op)) state.secretTabs.add(op.tab);
    const due = this.options.frames && (op.acts || !op.result.ok);
    const started = performance.now();
    let frameMs: number | undefined;
    const capturing: Capture | undefined =
      !op.screen && due && op.tab
        ? {
            screen: this.frameOf(state, op.tab).then((screen) => {
              frameMs = Math.round(performance.now() - started);
              return screen;
            }),
            late: false,
          }
        : undefined;
    // Kept until replaced by a newer capture: a status call in between must not drop it.
    if (capturing) state.capturing = capturing;
    const screen = due ? (op.screen ?? capturing?.screen) : undefined;
    const record = {
      result: op.result,
      args: op.args,
      run: op.run,
      box: op.box,
      phases: op.phases,
      spans: op.spans,
    };
    state.chain = state.chain
      .then(async () => {
        const taken = await screen;
        // Taken after the next op began, the frame could show that op's work, not this one's.
        if (capturing?.late)
          return this.write(session, state, {
            ...record,
            frameSkipped: `the capture took over ${FRAME_WAIT_MS} ms and the session's next op started; a frame taken later could show that op's work`,
          });
        await this.write(session, state, { ...record, screen: taken, frameMs });
      })
      .catch((e: unknown) => this.report(session, state, e));
  }

  /**
   * Called as the session's next op starts: the previous op's frame is waited for, since the op
   * must not change the page before it is taken, at most FRAME_WAIT_MS: past that the frame is
   * left out. Writing is not waited for.
   */
  async captured(session: string): Promise<void> {
    const state = this.states.get(session);
    const capture = state?.capturing;
    if (
      !state ||
      !capture ||
      (await within(
        capture.screen.then(() => true),
        FRAME_WAIT_MS,
        false,
      ))
    )
      return;
    capture.late = true;
    if (state.capturing === capture) state.capturing = undefined;
  }

  /**
   * An op's frame: the compositor's last paint where the backend has a screencast (nothing runs
   * in the page, nothing is encoded between ops), else a capture, which blanks a secret's fields.
   */
  private frameOf(state: SessionState, tab: BrowserTab): Promise<Screen | undefined> {
    if (!tab.paintedFrame || state.secretTabs.has(tab)) return captureScreen(tab, FRAME_MAX_WIDTH);
    // A page showing a dialog is not painted with it; the frame would show the page without it.
    if (tab.isClosed() || tab.crashed() || tab.pendingDialog()) return Promise.resolve(undefined);
    return tab
      .paintedFrame({ maxWidth: FRAME_MAX_WIDTH, quality: FRAME_QUALITY })
      .then((jpeg) => (jpeg ? { jpeg, viewport: tab.viewport() } : undefined));
  }

  /** Resolves once every recorded line is written (shutdown, tests). */
  async flush(): Promise<void> {
    await Promise.all([...this.states.values()].map((s) => s.chain));
  }

  private state(session: string): SessionState {
    let state = this.states.get(session);
    if (!state) {
      state = {
        chain: Promise.resolve(),
        secretTabs: new WeakSet(),
        nextFrame: 1,
        frameBytes: 0,
        reported: false,
      };
      this.states.set(session, state);
    }
    return state;
  }

  private dirOf(session: string): string {
    return join(this.options.dir, session);
  }

  /** Continues the numbering and the size count of frames kept by an earlier server run. */
  private async resume(session: string, state: SessionState): Promise<void> {
    const frames = join(this.dirOf(session), 'frames');
    await mkdir(frames, { recursive: true });
    state.frameBytes = 0;
    for (const name of await readdir(frames)) {
      if (!FRAME_NAME.test(name)) continue;
      state.nextFrame = Math.max(state.nextFrame, Number.parseInt(name, 10) + 1);
      state.frameBytes += (await stat(join(frames, name))).size;
    }
  }

  private async write(session: string, state: SessionState, record: OpRecord): Promise<void> {
    state.ready ??= this.resume(session, state);
    await state.ready;
    const line = logLine(record);
    if (record.screen) await this.keepFrame(session, state, record, line);
    await appendFile(join(this.dirOf(session), 'events.jsonl'), serializeLine(line));
  }

  private async keepFrame(
    session: string,
    state: SessionState,
    record: OpRecord,
    line: LogLine,
  ): Promise<void> {
    const { jpeg, viewport } = record.screen!;
    const hash = createHash('sha1').update(jpeg).digest('hex');
    if (hash === state.lastHash && state.lastFrame) {
      line.frame = state.lastFrame;
      line.frame_repeated = true;
    } else if (state.frameBytes + jpeg.length > this.options.framesMaxBytes) {
      const mb = Math.round(this.options.framesMaxBytes / 1024 / 1024);
      line.frame_skipped = `this session's frames reached LOG_FRAMES_MAX_MB (${mb} MB); no more frames are kept for it`;
      return;
    } else {
      const name = frameName(state.nextFrame++);
      await writeFile(join(this.dirOf(session), 'frames', name), jpeg);
      state.frameBytes += jpeg.length;
      state.lastHash = hash;
      state.lastFrame = name;
      line.frame = name;
    }
    line.viewport = viewport;
    // A click that navigated away has no box: the element is gone from the page the frame shows.
    if (record.box && !record.result.notes?.includes('navigated')) line.box = roundBox(record.box);
  }

  private report(session: string, state: SessionState, e: unknown): void {
    // Reset so the next op tries again from a clean state (the disk may have room again).
    state.ready = undefined;
    if (state.reported) return;
    state.reported = true;
    this.options.logger.error(
      { err: e, session, dir: this.dirOf(session) },
      `The session log of "${session}" could not be written (${(e as Error).message}); ops go on unlogged. Further failures of this log are not reported.`,
    );
  }
}

function roundBox(box: NonNullable<OpRecord['box']>): NonNullable<OpRecord['box']> {
  const r = (n: number) => Math.round(n * 10) / 10;
  return { x: r(box.x), y: r(box.y), width: r(box.width), height: r(box.height) };
}
