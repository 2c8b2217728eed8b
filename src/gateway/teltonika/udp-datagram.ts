/**
 * Teltonika over UDP (research note §2.7): each datagram carries a channel header with the IMEI,
 * then the same AVL array as TCP but with no CRC (UDP's own checksum is all there is). There is
 * no session, so every datagram names its device and is checked on its own.
 */
import { decodeAvlData } from './decode.js';
import { encodeAvlData, type EncodeOptions } from './encode.js';
import { malformed, type AvlCodec, type AvlPacket, type AvlRecord, type DecodeFailure } from './avl-record.js';

export interface UdpHeader {
  readonly packetId: number;
  readonly avlPacketId: number;
  readonly imei: string;
}

export type UdpDecode =
  | (UdpHeader & { readonly ok: true; readonly avl: AvlPacket })
  /** The header is there when it could be read, so the caller can log whose datagram failed. */
  | (DecodeFailure & Partial<UdpHeader>);

/** Length 2, packet id 2, unused byte 1, AVL packet id 1, IMEI length 2. */
const HEADER_BYTES = 8;

export function decodeUdpDatagram(datagram: Buffer): UdpDecode {
  if (datagram.length < HEADER_BYTES) return malformed(`datagram of ${datagram.length} bytes is shorter than its header`);
  const length = datagram.readUInt16BE(0);
  if (length !== datagram.length - 2) return malformed(`length field ${length} does not match ${datagram.length - 2} bytes`);
  const packetId = datagram.readUInt16BE(2);
  const avlPacketId = datagram[5]!;
  const imeiLength = datagram.readUInt16BE(6);
  if (imeiLength === 0 || HEADER_BYTES + imeiLength > datagram.length) return malformed(`IMEI length ${imeiLength} does not fit the datagram`);
  const imei = datagram.toString('latin1', HEADER_BYTES, HEADER_BYTES + imeiLength);
  if (!/^\d+$/.test(imei)) return malformed('IMEI is not digits');
  const header = { packetId, avlPacketId, imei };
  const avl = decodeAvlData(datagram, HEADER_BYTES + imeiLength, datagram.length);
  return avl.ok ? { ok: true, ...header, avl } : { ...avl, ...header };
}

/** The datagram a device would send; the unused byte is 01, as in Teltonika's examples. */
export function encodeUdpDatagram(header: UdpHeader, codec: AvlCodec, records: readonly AvlRecord[], options: EncodeOptions = {}): Buffer {
  if (!/^\d{1,20}$/.test(header.imei)) throw new RangeError('an IMEI is 1 to 20 digits');
  const avl = encodeAvlData(codec, records, options);
  const datagram = Buffer.alloc(HEADER_BYTES + header.imei.length + avl.length);
  datagram.writeUInt16BE(datagram.length - 2, 0);
  datagram.writeUInt16BE(header.packetId, 2);
  datagram.writeUInt8(1, 4);
  datagram.writeUInt8(header.avlPacketId, 5);
  datagram.writeUInt16BE(header.imei.length, 6);
  datagram.write(header.imei, HEADER_BYTES, 'latin1');
  avl.copy(datagram, HEADER_BYTES + header.imei.length);
  return datagram;
}
