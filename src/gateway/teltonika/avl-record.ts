/**
 * The decoded shape of Teltonika AVL data (Codec 8, 8 Extended, 16) and of a decode that went
 * wrong. Shared by the TCP and UDP decoders, the encoder and the datapoint mapping, so that none
 * of them imports another just for a type.
 */

/**
 * 1-, 2- and 4-byte IO values as unsigned numbers; 8-byte values as unsigned bigint, because
 * real devices send values above 2^53 (ICCID halves, iButton ids); NX (8E variable-length)
 * values as the raw bytes. Signedness is the reader's business: it depends on the IO id.
 */
export type IoValue = number | bigint | Buffer;

export const CODEC_8 = 0x08;
export const CODEC_8E = 0x8e;
export const CODEC_16 = 0x10;
export const CODEC_12 = 0x0c;

export type AvlCodec = typeof CODEC_8 | typeof CODEC_8E | typeof CODEC_16;

export interface AvlRecord {
  /** Epoch milliseconds (UTC) at which the device took the record. */
  readonly timestampMs: number;
  /** 0 low, 1 high, 2 panic. */
  readonly priority: number;
  /** Degrees, negative west. */
  readonly longitude: number;
  /** Degrees, negative south. */
  readonly latitude: number;
  /** Metres, signed. */
  readonly altitude: number;
  /** Degrees clockwise from north. */
  readonly angle: number;
  /** 0 means no fix: the position is the last valid one repeated. */
  readonly satellites: number;
  /** km/h from GNSS. */
  readonly speed: number;
  /** The IO id whose change triggered the record; 0 for a periodic record. */
  readonly eventIoId: number;
  /** Codec 16 only: 0 on exit … 7 periodical. */
  readonly generationType?: number;
  /** IO values by id, in wire order. */
  readonly io: ReadonlyMap<number, IoValue>;
}

/** A packet's AVL records; `count` is the number to acknowledge. */
export interface AvlPacket {
  readonly ok: true;
  readonly kind: 'avl';
  readonly codec: AvlCodec;
  readonly records: readonly AvlRecord[];
  readonly count: number;
}

/** A Codec 12 message: type 5 is a command (server → device), 6 a response. Never acknowledged. */
export interface Codec12Message {
  readonly ok: true;
  readonly kind: 'codec12';
  readonly type: number;
  /** The payload read as latin1: one character per byte, so it never fails to decode. */
  readonly text: string;
  readonly bytes: Buffer;
}

/** Why bytes were refused: the caller must not acknowledge them. */
export interface DecodeFailure {
  readonly ok: false;
  readonly reason: 'crc' | 'codec' | 'malformed';
  readonly detail: string;
}

export const malformed = (detail: string): DecodeFailure => ({ ok: false, reason: 'malformed', detail });
