import pino from 'pino';

/** How long a line may wait for others before it is handed on. */
export const GATHER_MS = 10;
/** A block this long is handed on at once (characters; JSON lines are ASCII). */
const BLOCK_CHARS = 64 * 1024;

/** pino's destination (SonicBoom), or any stream with `write`. */
type Target = pino.DestinationStream & {
  flush?: (cb?: (error?: Error | null) => void) => void;
  flushSync?: () => void;
  destroyed?: boolean;
  /** SonicBoom's mode: while true, each write is made before `write` returns. */
  sync?: boolean;
};

/**
 * The service's JSON log lines gathered into blocks before they reach standard output: a line
 * waits at most GATHER_MS, then every line gathered goes to pino's own destination (asynchronous
 * writes) in one piece. Why: handed over one at a time, each line cost the event loop a
 * byte count of everything still waiting, a hand-off to a libuv thread and its completion
 * callback: GET /vehicle/{vin} answered ~13 % fewer requests with its request line than without;
 * in blocks the line costs about what building its text does (docs/decisions/0012-log-lines-in-blocks.md).
 * Every line goes through here, so their order is kept. When the process exits (of itself, by
 * `process.exit` or an uncaught error), the lines still gathered are written synchronously, after
 * what the destination still held: only a write already handed to a libuv thread can be lost
 * then, as with pino's own destination.
 */
export class GatheredLogDestination implements pino.DestinationStream {
  readonly #target: Target;
  readonly #gatherMs: number;
  #gathered = '';
  #timer: NodeJS.Timeout | undefined;

  constructor(target: Target, gatherMs = GATHER_MS) {
    this.#target = target;
    this.#gatherMs = gatherMs;
    process.once('exit', () => this.flushSync());
  }

  write(line: string): void {
    this.#gathered += line;
    if (this.#gathered.length >= BLOCK_CHARS) this.#handOn();
    // Not unref'd: a process with lines still waiting writes them before it ends of itself.
    else this.#timer ??= setTimeout(this.#handOn, this.#gatherMs);
  }

  readonly #handOn = (): void => {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const block = this.#gathered;
    this.#gathered = '';
    // pino's destination stops writing (rather than throwing) once its reader has gone (EPIPE).
    if (block !== '' && this.#target.destroyed !== true) this.#target.write(block);
  };

  /**
   * What pino's `logger.flush(cb)` asks for: hand on what is gathered, then flush the target. `cb`
   * means handed on, not yet written: pino's destination calls it before its write completes.
   */
  flush(cb?: (error?: Error | null) => void): void {
    this.#handOn();
    if (this.#target.flush !== undefined && this.#target.destroyed !== true) this.#target.flush(cb);
    else cb?.();
  }

  /**
   * Everything gathered written before this returns (for the process's end). The target writes
   * synchronously meanwhile: handed to it asynchronously, the block would go to a libuv thread
   * that an exiting process does not wait for.
   */
  flushSync(): void {
    const target = this.#target;
    if (target.destroyed === true) {
      this.#handOn();
      return;
    }
    const wasSync = target.sync;
    if (wasSync === false) target.sync = true;
    try {
      // Written now if the target is idle, else queued behind what it holds and written with that.
      this.#handOn();
      target.flushSync?.();
    } finally {
      if (wasSync === false) target.sync = false;
    }
  }
}

let stdout: GatheredLogDestination | undefined;

/**
 * Standard output, as pino writes it by default, with lines gathered into blocks: one for the
 * process, shared by every logger writing there, so lines keep their order across loggers too.
 */
export function gatheredStdout(): GatheredLogDestination {
  return (stdout ??= new GatheredLogDestination(pino.destination({ dest: process.stdout.fd, sync: false })));
}
