/**
 * Wraps a protocol number and its content in the envelope every GT06 frame shares (research note
 * §1): start bits, length (protocol + content + serial + CRC), protocol, content, serial, the
 * CRC-16/X-25 of length through serial, stop bits `0d 0a`. One writer, so answers, commands and the
 * frames tests and simulated devices build cannot drift apart.
 */
import { crcX25 } from './crc-x25.js';

export const SHORT_START = 0x78;
export const LONG_START = 0x79;
/** Protocol number, serial and CRC: what the length counts besides the content. */
export const LENGTH_OVERHEAD = 5;

/**
 * A `78 78` frame (1-byte length) or, with `long`, a `79 79` one (2-byte length), as devices send
 * their longer messages (0x21 answers, 0x94 information).
 */
export function wrapFrame(protocol: number, content: Uint8Array, serial: number, long = false): Buffer {
  const length = LENGTH_OVERHEAD + content.length;
  if (length > (long ? 0xffff : 0xff)) throw new RangeError(`content of ${content.length} bytes does not fit a ${long ? '79 79' : '78 78'} frame`);
  if (!Number.isInteger(serial) || serial < 0 || serial > 0xffff) throw new RangeError(`serial ${serial} does not fit 2 bytes`);
  const lengthBytes = long ? 2 : 1;
  const frame = Buffer.allocUnsafe(2 + lengthBytes + length + 2);
  frame[0] = frame[1] = long ? LONG_START : SHORT_START;
  if (long) frame.writeUInt16BE(length, 2);
  else frame[2] = length;
  let at = 2 + lengthBytes;
  frame[at++] = protocol;
  frame.set(content, at);
  at += content.length;
  frame.writeUInt16BE(serial, at);
  at += 2;
  frame.writeUInt16BE(crcX25(frame, 2, at), at);
  frame[at + 2] = 0x0d;
  frame[at + 3] = 0x0a;
  return frame;
}
