/**
 * Cuts a Teltonika TCP byte stream into frames (research note §1, §8.13–14). TCP hands over
 * partial frames and several frames at once; the device sends a login (u16 length + IMEI
 * digits), AVL packets and Codec 12 responses (4 zero bytes, u32 data length, data, 4-byte
 * CRC) and lone FF keep-alive bytes, which may sit right in front of the next frame. Anything
 * else means the peer is not a Teltonika device (or is hostile): the framer reports `invalid`
 * once and then stays silent, and the caller closes the connection.
 */

export type TeltonikaFrame =
  | { readonly kind: 'login'; readonly imei: string }
  | { readonly kind: 'ping' }
  /** The whole frame from the preamble through the CRC; a copy, valid after later pushes. */
  | { readonly kind: 'packet'; readonly bytes: Buffer }
  | { readonly kind: 'invalid'; readonly reason: string };

export interface FramerOptions {
  /**
   * Largest packet accepted, envelope included. Teltonika documents 1280 bytes, but real 8E
   * packets with beacon data exceed it; Traccar allows 32 KiB. 64 KiB bounds a connection's
   * memory while leaving room for what devices really send.
   */
  readonly maxFrameBytes?: number;
}

/**
 * An IMEI is 15 digits. The bound is only there so that a stray length cannot make the framer
 * wait for kilobytes of "IMEI"; whether the id is known is the caller's check.
 */
export const MAX_LOGIN_DIGITS = 20;
const PING = 0xff;
const PING_FRAME: TeltonikaFrame = Object.freeze({ kind: 'ping' });

type Step = { readonly frame: TeltonikaFrame; readonly size: number } | undefined;
const invalid = (reason: string): Step => ({ frame: { kind: 'invalid', reason }, size: 0 });

/** The next frame at data[pos], or undefined while more bytes are needed to tell. */
function nextFrame(data: Buffer, pos: number, maxFrameBytes: number): Step {
  const available = data.length - pos;
  if (data[pos] === PING) return { frame: PING_FRAME, size: 1 };
  if (available < 2) return undefined;
  const loginLength = data.readUInt16BE(pos);
  if (loginLength > 0) {
    if (loginLength > MAX_LOGIN_DIGITS) return invalid(`login length ${loginLength} is over ${MAX_LOGIN_DIGITS}`);
    if (available < 2 + loginLength) return undefined;
    const imei = data.toString('latin1', pos + 2, pos + 2 + loginLength);
    if (!/^\d+$/.test(imei)) return invalid('login is not digits');
    return { frame: { kind: 'login', imei }, size: 2 + loginLength };
  }
  if (available < 4) return undefined;
  if (data.readUInt16BE(pos + 2) !== 0) return invalid('packet preamble is not zero');
  if (available < 8) return undefined;
  const dataLength = data.readUInt32BE(pos + 4);
  if (dataLength === 0) return invalid('packet data length is 0');
  if (dataLength > maxFrameBytes - 12) return invalid(`packet of ${dataLength + 12} bytes is over ${maxFrameBytes}`);
  if (available < dataLength + 12) return undefined;
  return { frame: { kind: 'packet', bytes: Buffer.from(data.subarray(pos, pos + dataLength + 12)) }, size: dataLength + 12 };
}

export class TeltonikaFramer {
  readonly #maxFrameBytes: number;
  /** Bytes of an incomplete frame live in #store[0, #held); capacity grows by doubling. */
  #store = Buffer.alloc(0);
  #held = 0;
  #failed = false;

  constructor(options: FramerOptions = {}) {
    this.#maxFrameBytes = options.maxFrameBytes ?? 65_536;
    if (!Number.isInteger(this.#maxFrameBytes) || this.#maxFrameBytes < 13) throw new RangeError('maxFrameBytes must be an integer of at least 13');
  }

  /** Bytes held for a frame not yet complete: always under maxFrameBytes between pushes. */
  get buffered(): number {
    return this.#held;
  }

  push(chunk: Buffer): TeltonikaFrame[] {
    if (this.#failed || chunk.length === 0) return [];
    // With nothing held, frames are cut from the chunk itself and only its tail is copied.
    const fromStore = this.#held > 0;
    const data = fromStore ? this.#append(chunk) : chunk;
    const frames: TeltonikaFrame[] = [];
    let pos = 0;
    while (pos < data.length) {
      const step = nextFrame(data, pos, this.#maxFrameBytes);
      if (step === undefined) break;
      frames.push(step.frame);
      if (step.frame.kind === 'invalid') {
        this.#failed = true;
        this.#store = Buffer.alloc(0);
        this.#held = 0;
        return frames;
      }
      pos += step.size;
    }
    this.#keep(data, pos, fromStore);
    return frames;
  }

  #append(chunk: Buffer): Buffer {
    const need = this.#held + chunk.length;
    if (need > this.#store.length) {
      // Doubling keeps a frame arriving in many small chunks linear, not quadratic.
      const grown = Buffer.allocUnsafe(Math.max(need, Math.min(this.#store.length * 2, this.#maxFrameBytes)));
      this.#store.copy(grown, 0, 0, this.#held);
      this.#store = grown;
    }
    chunk.copy(this.#store, this.#held);
    this.#held = need;
    return this.#store.subarray(0, need);
  }

  #keep(data: Buffer, pos: number, fromStore: boolean): void {
    const rest = data.length - pos;
    if (fromStore) {
      if (pos > 0) this.#store.copyWithin(0, pos, data.length);
    } else if (rest > 0) {
      if (this.#store.length < rest) this.#store = Buffer.allocUnsafe(Math.max(rest, Math.min(256, this.#maxFrameBytes)));
      data.copy(this.#store, 0, pos);
    }
    this.#held = rest;
    // A chunk far larger than any frame may have grown the store; keep only what is held.
    if (this.#store.length > 2 * this.#maxFrameBytes) this.#store = Buffer.from(this.#store.subarray(0, rest));
  }
}
