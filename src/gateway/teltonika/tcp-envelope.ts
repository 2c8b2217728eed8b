/**
 * Wraps data (codec id … quantity 2) in the TCP envelope every Teltonika packet and command
 * shares: four zero bytes, u32 data length, the data, then the CRC-16/IBM of the data in the
 * low half of a u32. One writer, so AVL packets and Codec 12 commands cannot drift apart.
 */
import { crc16Ibm } from './crc16.js';

export function wrapTcpEnvelope(data: Buffer): Buffer {
  const frame = Buffer.alloc(data.length + 12);
  frame.writeUInt32BE(data.length, 4);
  data.copy(frame, 8);
  frame.writeUInt32BE(crc16Ibm(data), 8 + data.length);
  return frame;
}
