import { describe, expect, it } from 'vitest';
import { recordAck, loginAnswer, udpAck } from '../../../src/gateway/teltonika/acks.js';
import { decodeTcpPacket } from '../../../src/gateway/teltonika/decode.js';
import { encodeLogin, encodeTcpPacket } from '../../../src/gateway/teltonika/encode.js';
import type { AvlPacket, AvlRecord } from '../../../src/gateway/teltonika/avl-record.js';
import { encodeCodec12 } from '../../../src/gateway/teltonika/codec12.js';
import { crc16Ibm } from '../../../src/gateway/teltonika/crc16.js';
import { decodeUdpDatagram, encodeUdpDatagram } from '../../../src/gateway/teltonika/udp-datagram.js';
import { WIKI, bytes } from './wiki-vectors.js';

const avl = (hex: string): AvlPacket => {
  const decoded = decodeTcpPacket(bytes(hex));
  if (!decoded.ok || decoded.kind !== 'avl') throw new Error(`not AVL: ${JSON.stringify(decoded)}`);
  return decoded;
};
const noFix = { latitude: 0, longitude: 0, altitude: 0, angle: 0, satellites: 0, speed: 0 };
const record = (fields: Omit<AvlRecord, keyof typeof noFix> & Partial<AvlRecord>): AvlRecord => ({ ...noFix, ...fields });

describe('CRC-16/IBM', () => {
  it('when the standard check string is summed, then it gives 0xBB3D', () => {
    expect(crc16Ibm(Buffer.from('123456789', 'latin1'))).toBe(0xbb3d);
  });

  it('when a range is given, then only that range is summed', () => {
    const frame = bytes(WIKI.codec8Example1);
    expect(crc16Ibm(frame, 8, frame.length - 4)).toBe(0xc7cf);
  });
});

describe('Teltonika wiki examples over TCP', () => {
  it('when Codec 8 example 1 is decoded, then every field of research note §2.6 is read', () => {
    const packet = avl(WIKI.codec8Example1);
    expect(packet).toMatchObject({ codec: 8, count: 1 });
    expect(packet.records).toEqual([record({
      timestampMs: Date.parse('2019-06-10T10:04:46Z'), priority: 1, eventIoId: 1,
      io: new Map<number, bigint | number>([[21, 3], [1, 1], [66, 24079], [241, 24602], [78, 0n]]),
    })]);
    expect(recordAck(packet.count).toString('hex')).toBe('00000001');
  });

  it('when Codec 8 examples 2 and 3 are decoded, then their records and values are read', () => {
    expect(avl(WIKI.codec8Example2).records).toEqual([record({
      timestampMs: 1560161136000, priority: 1, eventIoId: 1, io: new Map([[21, 3], [1, 1], [66, 24080]]),
    })]);
    const three = avl(WIKI.codec8Example3);
    expect(three.count).toBe(2);
    expect(three.records.map((r) => [r.timestampMs, r.io.get(1)])).toEqual([[1560160861000, 0], [1560160879000, 1]]);
  });

  it('when the Codec 8 Extended example is decoded, then 2-byte ids, 8-byte values and an empty NX group are read', () => {
    const packet = avl(WIKI.codec8eExample);
    expect(packet).toMatchObject({ codec: 0x8e, count: 1 });
    expect(packet.records[0]).toEqual(record({
      timestampMs: 1560166592000, priority: 1, eventIoId: 1,
      io: new Map<number, number | bigint>([[1, 1], [17, 29], [16, 22949000], [11, 893700218n], [14, 500686954n]]),
    }));
  });

  it('when the Codec 16 example is decoded, then the generation type and 1-byte counts with 2-byte ids are read', () => {
    const packet = avl(WIKI.codec16Example);
    expect(packet).toMatchObject({ codec: 16, count: 2 });
    expect(packet.records.map((r) => [r.timestampMs, r.eventIoId, r.generationType, [...r.io]])).toEqual([
      [1562760414000, 11, 5, [[1, 0], [3, 0], [11, 39], [66, 22074]]],
      [1562760415000, 11, 5, [[1, 0], [3, 0], [11, 38], [66, 22074]]],
    ]);
  });

  it('when the 8E example with beacon NX values is decoded, then each NX value keeps its bytes', () => {
    const packet = avl(WIKI.codec8eNx);
    expect(packet.count).toBe(2);
    const beacons = packet.records[1]!.io.get(385);
    expect(Buffer.isBuffer(beacons) && beacons.length).toBe(45);
  });

  it('when wiki records are encoded with the widths the device used, then the wiki bytes come out', () => {
    const widths = new Map<number, 1 | 2 | 4 | 8>([[241, 4], [17, 2], [11, 2]]);
    for (const hex of [WIKI.codec8Example1, WIKI.codec8Example2, WIKI.codec8Example3, WIKI.codec8eExample, WIKI.codec16Example]) {
      const packet = avl(hex);
      expect(encodeTcpPacket(packet.codec, packet.records, { widths }).toString('hex')).toBe(hex.toLowerCase());
    }
  });

  it('when getinfo is encoded as a Codec 12 command, then the wiki bytes come out and decode back', () => {
    expect(encodeCodec12('getinfo').toString('hex')).toBe(WIKI.codec12Getinfo.toLowerCase());
    expect(decodeTcpPacket(bytes(WIKI.codec12Getinfo))).toEqual({ ok: true, kind: 'codec12', type: 5, text: 'getinfo', bytes: Buffer.from('getinfo') });
  });

  it('when a login and its answers are written, then they are the documented bytes', () => {
    expect(encodeLogin('356307042441013').toString('hex')).toBe('000f333536333037303432343431303133');
    expect(loginAnswer(true).toString('hex')).toBe('01');
    expect(loginAnswer(false).toString('hex')).toBe('00');
    expect(recordAck(25).toString('hex')).toBe('00000019');
  });
});

describe('Teltonika wiki examples over UDP', () => {
  it('when the Codec 8 datagram is decoded, then header, record and the documented ack come out', () => {
    const decoded = decodeUdpDatagram(bytes(WIKI.udpCodec8));
    if (!decoded.ok) throw new Error(decoded.detail);
    expect(decoded).toMatchObject({ packetId: 0xcafe, avlPacketId: 5, imei: '352093086403655' });
    expect(decoded.avl.records).toEqual([record({ timestampMs: 1560407006000, priority: 1, eventIoId: 1, io: new Map([[21, 3], [1, 1], [66, 23996]]) })]);
    expect(udpAck(decoded.packetId, decoded.avlPacketId, decoded.avl.count).toString('hex')).toBe('0005cafe010501');
  });

  it('when the 8E and 16 datagrams are decoded, then they carry their codec, ids and values', () => {
    const extended = decodeUdpDatagram(bytes(WIKI.udpCodec8e));
    expect(extended.ok && [extended.avlPacketId, extended.avl.codec, extended.avl.records[0]!.io.get(17)]).toEqual([7, 0x8e, 157]);
    const sixteen = decodeUdpDatagram(bytes(WIKI.udpCodec16));
    expect(sixteen.ok && [sixteen.imei, sixteen.avl.codec, sixteen.avl.records[0]!.eventIoId, sixteen.avl.records[0]!.io.get(239)]).toEqual(['352094085231592', 16, 239, 1]);
  });

  it('when the datagrams are encoded again, then the wiki bytes come out', () => {
    for (const hex of [WIKI.udpCodec8, WIKI.udpCodec8e, WIKI.udpCodec16]) {
      const decoded = decodeUdpDatagram(bytes(hex));
      if (!decoded.ok) throw new Error(decoded.detail);
      const widths = new Map<number, 1 | 2 | 4 | 8>([[17, 2], [16, 4]]);
      expect(encodeUdpDatagram(decoded, decoded.avl.codec, decoded.avl.records, { widths }).toString('hex')).toBe(hex.toLowerCase());
    }
  });

  it('when the length field, IMEI or AVL part is wrong, then the datagram is refused, with the header when it was readable', () => {
    const good = bytes(WIKI.udpCodec8);
    const longer = Buffer.concat([good, Buffer.from([0])]);
    expect(decodeUdpDatagram(longer)).toMatchObject({ ok: false, reason: 'malformed' });
    expect(decodeUdpDatagram(good.subarray(0, 5))).toMatchObject({ ok: false, reason: 'malformed' });
    const badCount = Buffer.from(good);
    badCount[badCount.length - 1] = 2;
    expect(decodeUdpDatagram(badCount)).toMatchObject({ ok: false, reason: 'malformed', packetId: 0xcafe, avlPacketId: 5, imei: '352093086403655' });
    const badImei = Buffer.from(good);
    badImei[8] = 0x41;
    expect(decodeUdpDatagram(badImei)).toMatchObject({ ok: false, detail: 'IMEI is not digits' });
  });
});
