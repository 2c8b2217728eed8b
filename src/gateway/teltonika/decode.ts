/**
 * Decodes Teltonika AVL data (research note §2): the TCP packet with its CRC, and the bare
 * "codec id … number of data 2" array that UDP datagrams carry without one. Dispatch is strict
 * on the codec byte, because Codec 16 and 8E differ only in field widths and a guess misreads
 * either silently. Every truncated or inconsistent input is a failure value, never an exception:
 * the caller acknowledges only `ok: true`, so a refused packet is resent by the device.
 */
import { ByteReader } from './byte-reader.js';
import { decodeCodec12 } from './codec12.js';
import { crc16Ibm } from './crc16.js';
import {
  CODEC_12, CODEC_16, CODEC_8, CODEC_8E, malformed,
  type AvlCodec, type AvlPacket, type AvlRecord, type Codec12Message, type DecodeFailure, type IoValue,
} from './avl-record.js';

export type PacketDecode = AvlPacket | Codec12Message | DecodeFailure;

/** Field widths per codec: event id, IO counts, IO ids; Codec 16 adds a generation-type byte. */
interface Layout {
  readonly event: 1 | 2;
  readonly count: 1 | 2;
  readonly id: 1 | 2;
  readonly generationType: boolean;
  readonly nx: boolean;
}

const LAYOUTS: ReadonlyMap<number, Layout> = new Map([
  [CODEC_8, { event: 1, count: 1, id: 1, generationType: false, nx: false }],
  [CODEC_8E, { event: 2, count: 2, id: 2, generationType: false, nx: true }],
  [CODEC_16, { event: 2, count: 1, id: 2, generationType: true, nx: false }],
]);

/** Timestamp 8, priority 1, lon 4, lat 4, altitude 2, angle 2, satellites 1, speed 2. */
const RECORD_HEAD_BYTES = 24;
const FIXED_WIDTHS = [1, 2, 4, 8] as const;

const readN = (r: ByteReader, width: 1 | 2): number => (width === 1 ? r.u8() : r.u16());

function readFixedGroup(r: ByteReader, layout: Layout, width: 1 | 2 | 4 | 8, io: Map<number, IoValue>): boolean {
  const n = readN(r, layout.count);
  // Checked up front so a lying count of 65535 fails at once instead of looping on an overrun.
  if (r.overrun || n * (layout.id + width) > r.remaining) return false;
  for (let i = 0; i < n; i++) {
    const id = readN(r, layout.id);
    io.set(id, width === 1 ? r.u8() : width === 2 ? r.u16() : width === 4 ? r.u32() : r.u64());
  }
  return true;
}

function readNxGroup(r: ByteReader, io: Map<number, IoValue>): boolean {
  const n = r.u16();
  if (r.overrun || n * 4 > r.remaining) return false;
  for (let i = 0; i < n && !r.overrun; i++) {
    const id = r.u16();
    const length = r.u16();
    // Unknown NX ids are carried by length (research §8.6); a zero length is real and valid.
    io.set(id, r.copy(length));
  }
  return !r.overrun;
}

function readRecord(r: ByteReader, layout: Layout): AvlRecord | string {
  if (r.remaining < RECORD_HEAD_BYTES) return 'record head is truncated';
  const timestamp = r.u64();
  if (timestamp > BigInt(Number.MAX_SAFE_INTEGER)) return `timestamp ${timestamp} is beyond any real clock`;
  const priority = r.u8();
  const longitude = r.i32() / 1e7;
  const latitude = r.i32() / 1e7;
  const altitude = r.i16();
  const angle = r.u16();
  const satellites = r.u8();
  const speed = r.u16();
  const eventIoId = readN(r, layout.event);
  const generationType = layout.generationType ? r.u8() : undefined;
  // The total IO count is redundant with the group counts; Traccar ignores it too, and refusing
  // a CRC-valid packet over it would make the device resend it forever.
  readN(r, layout.count);
  const io = new Map<number, IoValue>();
  for (const width of FIXED_WIDTHS) {
    if (!readFixedGroup(r, layout, width, io)) return `IO group of ${width}-byte values is truncated`;
  }
  if (layout.nx && !readNxGroup(r, io)) return 'IO group of variable-length values is truncated';
  if (r.overrun) return 'record is truncated';
  // Written out, not spread from a head object: the spread was most of a record's decode time (docs/decisions/0011).
  const timestampMs = Number(timestamp);
  return generationType === undefined
    ? { timestampMs, priority, longitude, latitude, altitude, angle, satellites, speed, eventIoId, io }
    : { timestampMs, priority, longitude, latitude, altitude, angle, satellites, speed, eventIoId, generationType, io };
}

/** AVL data from the codec id through number of data 2, exactly filling bytes[start, end). */
export function decodeAvlData(bytes: Buffer, start: number, end: number): AvlPacket | DecodeFailure {
  const r = new ByteReader(bytes, start, end);
  const codec = r.u8();
  const layout = LAYOUTS.get(codec);
  if (r.overrun) return malformed('no codec id');
  if (layout === undefined) return { ok: false, reason: 'codec', detail: `codec 0x${codec.toString(16)} is not an AVL codec` };
  const count = r.u8();
  const records: AvlRecord[] = [];
  for (let i = 0; i < count; i++) {
    const record = readRecord(r, layout);
    if (typeof record === 'string') return malformed(`record ${i + 1} of ${count}: ${record}`);
    records.push(record);
  }
  const count2 = r.u8();
  if (r.overrun) return malformed('number of data 2 is missing');
  if (count2 !== count) return malformed(`number of data 1 (${count}) and 2 (${count2}) differ`);
  if (r.remaining !== 0) return malformed(`${r.remaining} bytes follow number of data 2`);
  return { ok: true, kind: 'avl', codec: codec as AvlCodec, records, count };
}

/**
 * A whole TCP frame (preamble, data length, data, CRC) as the framer hands it over. The CRC
 * is checked before anything is read, so a corrupted frame can never be acknowledged.
 */
export function decodeTcpPacket(frame: Buffer): PacketDecode {
  if (frame.length < 12) return malformed(`frame of ${frame.length} bytes is shorter than the envelope`);
  if (frame.readUInt32BE(0) !== 0) return malformed('preamble is not zero');
  const length = frame.readUInt32BE(4);
  if (length + 12 !== frame.length) return malformed(`data length ${length} does not match a frame of ${frame.length} bytes`);
  const end = 8 + length;
  const crc = frame.readUInt32BE(end);
  const computed = crc16Ibm(frame, 8, end);
  if (crc !== computed) return { ok: false, reason: 'crc', detail: `CRC 0x${crc.toString(16)} where 0x${computed.toString(16)} was computed` };
  return frame[8] === CODEC_12 ? decodeCodec12(frame, 8, end) : decodeAvlData(frame, 8, end);
}
