/** What a started part leaves to undo. */
export interface Closable {
  close(): void | Promise<void>;
}

/**
 * The closers of what has started, undone newest first: by `close()` at a stop, and by the same
 * call when a later part fails to start, so a failed start leaves nothing running. What starts
 * after another closes before it: the API before the queue it publishes to, the workers before
 * the simulated automaker they poll, everything before the store.
 */
export class CloseStack {
  readonly #closers: Array<() => void | Promise<void>> = [];

  /** Keeps `part`'s close for the unwinding (none for an absent part); returns the part. */
  push<T extends Closable | undefined>(part: T): T {
    if (part !== undefined) this.#closers.push(() => part.close());
    return part;
  }

  /** Runs each closer once, newest first; a second call finds nothing left to close. */
  async close(): Promise<void> {
    for (let closer = this.#closers.pop(); closer !== undefined; closer = this.#closers.pop()) await closer();
  }
}
