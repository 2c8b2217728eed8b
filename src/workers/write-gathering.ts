/**
 * Lets the writes of tasks that finish at nearly the same time go to the write batcher together.
 * The batcher commits what was queued in one turn of the event loop; tasks whose I/O ends a few
 * milliseconds apart (a worker pass's automaker polls) would each get a commit of their own. Each
 * task awaits `arrive()` before it writes: arrivals are released together when every task
 * expected has arrived, or `windowMs` after the first of a group arrived, whichever is sooner.
 * A task that never arrives (it failed) only costs the others the window.
 */
export class WriteGathering {
  readonly #windowMs: number;
  #expected: number;
  #waiting: (() => void)[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(expected: number, windowMs: number) {
    this.#expected = expected;
    this.#windowMs = windowMs;
  }

  arrive(): Promise<void> {
    this.#expected -= 1;
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      if (this.#expected <= 0) this.#release();
      else this.#timer ??= setTimeout(() => this.#release(), this.#windowMs);
    });
  }

  #release(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}
