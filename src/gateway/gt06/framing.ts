/**
 * Cuts a GT06 TCP byte stream into frames (research note §1). TCP hands over partial frames and
 * several at once. A frame is found by its start bits (`78 78`, or `79 79` with a 2-byte length)
 * and cut where its length says; only then is it a frame, when the stop bits `0d 0a` sit there and
 * the CRC-16/X-25 matches. Unlike Teltonika's framer this one never gives up on a connection:
 * a GT06 device that gets no answer reboots, and clones do send odd frames. Whatever is not a
 * frame comes out as `rejected` with the bytes it drops, so the caller can count it, and the
 * framer resynchronises on the next start bits.
 *
 * Some clones send a length that does not match their frame (a heartbeat whose length byte leaves
 * out the CRC, Wi-Fi frames of length 0). When the stop bits are not where the length says, the
 * frame may end at the first `0d 0a` instead, but only if the CRC over that span matches: `0d 0a`
 * also occurs inside binary content, and the CRC is what tells a frame from a coincidence.
 */
import { crcX25 } from './crc-x25.js';
import { LENGTH_OVERHEAD, LONG_START, SHORT_START } from './frame-envelope.js';

export interface Gt06Frame {
  readonly kind: 'frame';
  /** A `79 79` frame, with a 2-byte length. */
  readonly long: boolean;
  readonly protocol: number;
  /** The device's information serial number, which every answer echoes. */
  readonly serial: number;
  /** The bytes between the protocol number and the serial: a view into `bytes`. */
  readonly content: Buffer;
  /** The whole frame, start to stop bits; a copy, valid after later pushes. */
  readonly bytes: Buffer;
}

export interface Gt06Rejected {
  readonly kind: 'rejected';
  /**
   * `junk`: bytes before any start bits; `crc`: a whole frame whose CRC does not match (the
   * Concox document says to discard it); `malformed`: start bits with no frame behind them;
   * `oversize`: a declared length over maxFrameBytes.
   */
  readonly reason: 'junk' | 'crc' | 'malformed' | 'oversize';
  readonly detail: string;
  /** How many bytes of the stream it dropped. */
  readonly dropped: number;
}

export type Gt06FramerOutput = Gt06Frame | Gt06Rejected;

export interface Gt06FramerOptions {
  /**
   * Largest frame accepted, start to stop bits. The longest captured GT06 frames are about 250
   * bytes; a `79 79` length can claim 64 KiB. The bound is also how long start bits found in junk
   * can hold up the frames behind them, so it stays small.
   */
  readonly maxFrameBytes?: number;
}

type Step = { readonly output: Gt06FramerOutput; readonly size: number } | undefined;
const reject = (reason: Gt06Rejected['reason'], detail: string, size: number): Step => ({ output: { kind: 'rejected', reason, detail, dropped: size }, size });

const STOP_BITS = Buffer.from([0x0d, 0x0a]);
const mayStart = (byte: number | undefined): boolean => byte === SHORT_START || byte === LONG_START;

/** Index of the first start bits in data[pos…], or -1. */
function findStart(data: Buffer, pos: number): number {
  for (let i = pos; i + 1 < data.length; i++) if (mayStart(data[i]) && data[i + 1] === data[i]) return i;
  return -1;
}

/** The frame in data[start, end), or the CRC rejection of it. */
function frameIn(data: Buffer, start: number, end: number): Gt06FramerOutput {
  const long = data[start] === LONG_START;
  const protocolAt = start + (long ? 4 : 3);
  const crcAt = end - 4;
  const computed = crcX25(data, start + 2, crcAt);
  const sent = data.readUInt16BE(crcAt);
  if (computed !== sent) {
    const detail = `protocol 0x${data[protocolAt]!.toString(16)}: CRC 0x${sent.toString(16)} where 0x${computed.toString(16)} was computed`;
    return { kind: 'rejected', reason: 'crc', detail, dropped: end - start };
  }
  const bytes = Buffer.from(data.subarray(start, end));
  const contentAt = protocolAt - start + 1;
  const serialAt = crcAt - start - 2;
  return { kind: 'frame', long, protocol: bytes[contentAt - 1]!, serial: bytes.readUInt16BE(serialAt), content: bytes.subarray(contentAt, serialAt), bytes };
}

/** What starts at the start bits data[pos]; undefined while more bytes are needed to tell. */
function frameAt(data: Buffer, pos: number, max: number): Step {
  const long = data[pos] === LONG_START;
  const header = long ? 4 : 3;
  const smallest = header + LENGTH_OVERHEAD + 2;
  const available = data.length - pos;
  if (available < header) return undefined;
  const length = long ? data.readUInt16BE(pos + 2) : data[pos + 2]!;
  const total = header + length + 2;
  if (total > max) return reject('oversize', `declared frame of ${total} bytes is over ${max}`, 2);
  if (length > 0) {
    if (available < total) return undefined;
    if (data[pos + total - 2] === 0x0d && data[pos + total - 1] === 0x0a) {
      if (total < smallest) return reject('malformed', `length ${length} leaves no room for serial and CRC`, total);
      return { output: frameIn(data, pos, pos + total), size: total };
    }
  }
  // The stop bits are not where the length says: the frame may end at the first 0d 0a instead,
  // if the CRC over that span matches. The search is bounded so that junk full of start bits
  // costs at most maxFrameBytes per start bits.
  const window = data.subarray(pos + header, pos + Math.min(available, max));
  const stop = window.indexOf(STOP_BITS);
  if (stop < 0) return available >= max ? reject('malformed', `no stop bits within ${max} bytes`, 2) : undefined;
  const size = header + stop + 2;
  const frame = size >= smallest ? frameIn(data, pos, pos + size) : undefined;
  if (frame?.kind === 'frame') return { output: frame, size };
  // Not a frame after all: skip only the start bits, as a real frame may begin inside the span.
  return reject('malformed', `length ${length} does not end at stop bits`, 2);
}

/** Junk up to the next start bits, or what is at them; undefined while more bytes are needed. */
function nextStep(data: Buffer, pos: number, max: number): Step {
  const start = findStart(data, pos);
  if (start === pos) return frameAt(data, pos, max);
  // Without start bits, all is junk but a last byte that may be the first half of them.
  const end = start >= 0 ? start : mayStart(data[data.length - 1]) ? data.length - 1 : data.length;
  return end > pos ? reject('junk', `${end - pos} bytes before start bits`, end - pos) : undefined;
}

export class Gt06Framer {
  readonly #max: number;
  /** Bytes of an incomplete frame live in #store[0, #held); capacity grows by doubling. */
  #store = Buffer.alloc(0);
  #held = 0;

  constructor(options: Gt06FramerOptions = {}) {
    this.#max = options.maxFrameBytes ?? 2048;
    if (!Number.isInteger(this.#max) || this.#max < 260) throw new RangeError('maxFrameBytes must be an integer of at least 260 (the longest 78 78 frame)');
  }

  /** Bytes held for a frame not yet complete: always under maxFrameBytes between pushes. */
  get buffered(): number {
    return this.#held;
  }

  push(chunk: Buffer): Gt06FramerOutput[] {
    if (chunk.length === 0) return [];
    // With nothing held, frames are cut from the chunk itself and only its tail is copied.
    const fromStore = this.#held > 0;
    const data = fromStore ? this.#append(chunk) : chunk;
    const out: Gt06FramerOutput[] = [];
    let pos = 0;
    while (pos < data.length) {
      const step = nextStep(data, pos, this.#max);
      if (step === undefined) break;
      out.push(step.output);
      pos += step.size;
    }
    this.#keep(data, pos, fromStore);
    return out;
  }

  #append(chunk: Buffer): Buffer {
    const need = this.#held + chunk.length;
    if (need > this.#store.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, Math.min(this.#store.length * 2, this.#max)));
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
      if (this.#store.length < rest) this.#store = Buffer.allocUnsafe(Math.max(rest, 256));
      data.copy(this.#store, 0, pos);
    }
    this.#held = rest;
    // A chunk far larger than any frame may have grown the store; keep only what is held.
    if (this.#store.length > 2 * this.#max) this.#store = Buffer.from(this.#store.subarray(0, rest));
  }
}
