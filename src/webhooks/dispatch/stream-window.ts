/**
 * What an endpoint's stream has read of the outbox and which of those events are still to
 * finish their first attempt. The stream's position may move only as far as everything before
 * it has finished (`frontier`): attempts end in any order, and an event whose attempt is under
 * way when the holder dies must be sent again by the next one.
 */
export class StreamWindow {
  /** Positions read and kept for sending, ascending; those before `#head` have finished. */
  #outstanding: number[] = [];
  #head = 0;
  readonly #finished = new Set<number>();
  /** The highest position read: every event up to it is outstanding, finished or not the endpoint's. */
  #read: number;

  constructor(position: number) {
    this.#read = position;
  }

  get read(): number {
    return this.#read;
  }

  /** Records that everything up to `through` has been read; `kept` (ascending, within it) are to be sent. */
  readThrough(through: number, kept: readonly number[]): void {
    for (const position of kept) this.#outstanding.push(position);
    this.#read = Math.max(this.#read, through);
  }

  finish(position: number): void {
    this.#finished.add(position);
  }

  /** The highest position through which every event read has finished. */
  frontier(): number {
    while (this.#head < this.#outstanding.length && this.#finished.delete(this.#outstanding[this.#head]!)) this.#head += 1;
    if (this.#head > 1024 && this.#head * 2 > this.#outstanding.length) {
      this.#outstanding = this.#outstanding.slice(this.#head);
      this.#head = 0;
    }
    return this.#head < this.#outstanding.length ? this.#outstanding[this.#head]! - 1 : this.#read;
  }
}
