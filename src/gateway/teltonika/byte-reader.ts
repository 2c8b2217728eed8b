/**
 * A big-endian cursor over bytes[start, end) that never throws: a read past the end returns 0
 * and sets `overrun`, which stays set. Decoders read a whole section, then check `overrun` once,
 * so every truncated or lying packet ends as a failure value instead of a RangeError.
 */
export class ByteReader {
  pos: number;
  overrun = false;
  readonly end: number;

  constructor(readonly bytes: Buffer, start: number, end: number) {
    this.end = Math.max(0, Math.min(end, bytes.length));
    this.pos = Math.max(0, Math.min(start, this.end));
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /** Offset of the next n bytes, or -1 (and overrun) when they are not there. */
  #take(n: number): number {
    const at = this.pos;
    if (this.overrun || n > this.end - at) {
      this.overrun = true;
      this.pos = this.end;
      return -1;
    }
    this.pos = at + n;
    return at;
  }

  u8(): number {
    const at = this.#take(1);
    return at < 0 ? 0 : this.bytes[at]!;
  }

  u16(): number {
    const at = this.#take(2);
    return at < 0 ? 0 : this.bytes.readUInt16BE(at);
  }

  i16(): number {
    const at = this.#take(2);
    return at < 0 ? 0 : this.bytes.readInt16BE(at);
  }

  u32(): number {
    const at = this.#take(4);
    return at < 0 ? 0 : this.bytes.readUInt32BE(at);
  }

  i32(): number {
    const at = this.#take(4);
    return at < 0 ? 0 : this.bytes.readInt32BE(at);
  }

  u64(): bigint {
    const at = this.#take(8);
    return at < 0 ? 0n : this.bytes.readBigUInt64BE(at);
  }

  /** A copy, so the value outlives the buffer it came from (a socket may reuse it). */
  copy(n: number): Buffer {
    const at = this.#take(n);
    return at < 0 ? Buffer.alloc(0) : Buffer.from(this.bytes.subarray(at, at + n));
  }
}
