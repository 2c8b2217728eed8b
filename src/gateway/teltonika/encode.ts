/**
 * The inverse of decode.ts, for tests and the simulated tracker. By default each IO value goes
 * in the narrowest group that holds it (a bigint always in the 8-byte group, a Buffer in NX):
 * the decoder reads values, not widths, so decode(encode(r)) equals r. `widths` pins an id to
 * the group a real device uses (IO 241 is 4 bytes on FMB even when the value fits 2), which is
 * what reproducing a captured packet byte for byte needs. Unrepresentable input throws.
 */
import { wrapTcpEnvelope } from './tcp-envelope.js';
import { CODEC_16, CODEC_8, CODEC_8E, type AvlCodec, type AvlRecord, type IoValue } from './avl-record.js';

const MAX_U64 = (1n << 64n) - 1n;

class ByteWriter {
  readonly #bytes: number[] = [];

  uint(value: number, width: 1 | 2 | 4): void {
    for (let shift = (width - 1) * 8; shift >= 0; shift -= 8) this.#bytes.push(Math.floor(value / 2 ** shift) % 256);
  }

  int(value: number, width: 2 | 4, what: string): void {
    const half = 2 ** (width * 8 - 1);
    if (!Number.isInteger(value) || value < -half || value >= half) throw new RangeError(`${what} ${value} does not fit ${width} signed bytes`);
    this.uint(value < 0 ? value + 2 * half : value, width);
  }

  u64(value: bigint): void {
    for (let shift = 56n; shift >= 0n; shift -= 8n) this.#bytes.push(Number((value >> shift) & 0xffn));
  }

  raw(bytes: Uint8Array): void {
    for (const b of bytes) this.#bytes.push(b);
  }

  toBuffer(): Buffer {
    return Buffer.from(this.#bytes);
  }
}

function fits(value: number, max: number, what: string): number {
  if (!Number.isInteger(value) || value < 0 || value > max) throw new RangeError(`${what} ${value} does not fit 0..${max}`);
  return value;
}

type Groups = { 1: [number, number][]; 2: [number, number][]; 4: [number, number][]; 8: [number, bigint][]; nx: [number, Uint8Array][] };

export interface EncodeOptions {
  /** Group width per IO id for number values; ids not listed get the narrowest that fits. */
  readonly widths?: ReadonlyMap<number, 1 | 2 | 4 | 8>;
}

function groupIo(io: ReadonlyMap<number, IoValue>, widths: EncodeOptions['widths']): Groups {
  const groups: Groups = { 1: [], 2: [], 4: [], 8: [], nx: [] };
  for (const [id, value] of io) {
    if (typeof value === 'bigint') {
      if (value < 0n || value > MAX_U64) throw new RangeError(`IO ${id} value ${value} does not fit 8 bytes`);
      groups[8].push([id, value]);
    } else if (typeof value === 'number') {
      const width = widths?.get(id) ?? (value <= 0xff ? 1 : value <= 0xffff ? 2 : 4);
      if (width === 8) groups[8].push([id, BigInt(fits(value, Number.MAX_SAFE_INTEGER, `IO ${id} value`))]);
      else groups[width].push([id, fits(value, 2 ** (width * 8) - 1, `IO ${id} value`)]);
    } else {
      groups.nx.push([id, value]);
    }
  }
  return groups;
}

function writeRecord(w: ByteWriter, codec: AvlCodec, record: AvlRecord, options: EncodeOptions): void {
  const wide = codec !== CODEC_8;
  const countWidth = codec === CODEC_8E ? 2 : 1;
  const idWidth = wide ? 2 : 1;
  const idMax = wide ? 0xffff : 0xff;
  const countMax = codec === CODEC_8E ? 0xffff : 0xff;
  if (!Number.isSafeInteger(record.timestampMs) || record.timestampMs < 0) throw new RangeError(`timestamp ${record.timestampMs} is not a u64`);
  w.u64(BigInt(record.timestampMs));
  w.uint(fits(record.priority, 0xff, 'priority'), 1);
  w.int(Math.round(record.longitude * 1e7), 4, 'longitude × 1e7');
  w.int(Math.round(record.latitude * 1e7), 4, 'latitude × 1e7');
  w.int(record.altitude, 2, 'altitude');
  w.uint(fits(record.angle, 0xffff, 'angle'), 2);
  w.uint(fits(record.satellites, 0xff, 'satellites'), 1);
  w.uint(fits(record.speed, 0xffff, 'speed'), 2);
  w.uint(fits(record.eventIoId, idMax, 'event IO id'), idWidth);
  // An unset generation type: 7 (periodical) for a periodic record, else 5 (on change).
  if (codec === CODEC_16) w.uint(fits(record.generationType ?? (record.eventIoId === 0 ? 7 : 5), 0xff, 'generation type'), 1);
  const groups = groupIo(record.io, options.widths);
  if (codec !== CODEC_8E && groups.nx.length > 0) throw new RangeError(`codec 0x${codec.toString(16)} has no variable-length IO group`);
  w.uint(fits(record.io.size, countMax, 'IO count'), countWidth);
  for (const width of [1, 2, 4] as const) {
    w.uint(fits(groups[width].length, countMax, 'IO group count'), countWidth);
    for (const [id, value] of groups[width]) {
      w.uint(fits(id, idMax, 'IO id'), idWidth);
      w.uint(value, width);
    }
  }
  w.uint(fits(groups[8].length, countMax, 'IO group count'), countWidth);
  for (const [id, value] of groups[8]) {
    w.uint(fits(id, idMax, 'IO id'), idWidth);
    w.u64(value);
  }
  if (codec !== CODEC_8E) return;
  w.uint(groups.nx.length, 2);
  for (const [id, value] of groups.nx) {
    w.uint(fits(id, idMax, 'IO id'), 2);
    w.uint(fits(value.length, 0xffff, 'NX length'), 2);
    w.raw(value);
  }
}

/** Codec id … number of data 2, as UDP datagrams carry it (no envelope, no CRC). */
export function encodeAvlData(codec: AvlCodec, records: readonly AvlRecord[], options: EncodeOptions = {}): Buffer {
  if (![CODEC_8, CODEC_8E, CODEC_16].includes(codec)) throw new RangeError(`codec ${codec} is not an AVL codec`);
  fits(records.length, 0xff, 'record count');
  const w = new ByteWriter();
  w.uint(codec, 1);
  w.uint(records.length, 1);
  for (const record of records) writeRecord(w, codec, record, options);
  w.uint(records.length, 1);
  return w.toBuffer();
}

/** A whole TCP AVL packet: envelope, data and CRC. */
export function encodeTcpPacket(codec: AvlCodec, records: readonly AvlRecord[], options: EncodeOptions = {}): Buffer {
  return wrapTcpEnvelope(encodeAvlData(codec, records, options));
}

/** The frame a device opens its TCP session with: u16 length and the IMEI digits. */
export function encodeLogin(imei: string): Buffer {
  if (!/^\d{1,20}$/.test(imei)) throw new RangeError('an IMEI is 1 to 20 digits');
  const frame = Buffer.alloc(2 + imei.length);
  frame.writeUInt16BE(imei.length, 0);
  frame.write(imei, 2, 'latin1');
  return frame;
}
