/**
 * Codec 12, the GPRS command channel (research note §3): the server sends a type 5 command as
 * text (any FMB SMS command, e.g. `getinfo`, `setdigout 1`), the device answers type 6 on the
 * same connection. Neither direction is acknowledged with a record count: an ack sent for a
 * Codec 12 frame makes the device log "ZEROES MISSING" (traccar PR #4561), so the caller sends
 * nothing back for `kind: 'codec12'`.
 */
import { ByteReader } from './byte-reader.js';
import { wrapTcpEnvelope } from './tcp-envelope.js';
import { CODEC_12, malformed, type Codec12Message, type DecodeFailure } from './avl-record.js';

export const CODEC12_COMMAND = 5;
export const CODEC12_RESPONSE = 6;

/**
 * A whole TCP frame carrying one Codec 12 message. A string payload is written as latin1 (one
 * byte per character; FMB commands are ASCII); bytes go as they are, for raw serial commands.
 */
export function encodeCodec12(payload: string | Uint8Array, type = CODEC12_COMMAND): Buffer {
  if (typeof payload === 'string' && /[^\u0000-\u00ff]/u.test(payload)) {
    throw new RangeError('a Codec 12 text must be latin1; send other encodings as bytes');
  }
  const body = typeof payload === 'string' ? Buffer.from(payload, 'latin1') : Buffer.from(payload);
  const data = Buffer.alloc(body.length + 8);
  data[0] = CODEC_12;
  data[1] = 1;
  data[2] = type;
  data.writeUInt32BE(body.length, 3);
  body.copy(data, 7);
  data[7 + body.length] = 1;
  return wrapTcpEnvelope(data);
}

/** Codec id, quantity 1, type, u32 size, payload, quantity 2, exactly filling bytes[start, end). */
export function decodeCodec12(bytes: Buffer, start: number, end: number): Codec12Message | DecodeFailure {
  const r = new ByteReader(bytes, start, end);
  if (r.u8() !== CODEC_12) return { ok: false, reason: 'codec', detail: 'not a Codec 12 message' };
  const quantity = r.u8();
  const type = r.u8();
  const size = r.u32();
  if (r.overrun || size > r.remaining) return malformed('Codec 12 payload is truncated');
  const payload = r.copy(size);
  const quantity2 = r.u8();
  if (r.overrun) return malformed('Codec 12 quantity 2 is missing');
  if (quantity !== quantity2) return malformed(`Codec 12 quantities ${quantity} and ${quantity2} differ`);
  if (r.remaining !== 0) return malformed(`${r.remaining} bytes follow Codec 12 quantity 2`);
  return { ok: true, kind: 'codec12', type, text: payload.toString('latin1'), bytes: payload };
}
