import { describe, expect, it } from 'vitest';
import { decodeTcpPacket } from '../../../src/gateway/teltonika/decode.js';
import { encodeTcpPacket } from '../../../src/gateway/teltonika/encode.js';
import type { AvlPacket } from '../../../src/gateway/teltonika/avl-record.js';
import { decodeUdpDatagram } from '../../../src/gateway/teltonika/udp-datagram.js';
import { TRACCAR } from './traccar-vectors.js';
import { bytes } from './wiki-vectors.js';

type Name = keyof typeof TRACCAR;
const avl = (name: Name): AvlPacket => {
  const decoded = decodeTcpPacket(bytes(TRACCAR[name]));
  if (!decoded.ok || decoded.kind !== 'avl') throw new Error(`${name} is not AVL: ${JSON.stringify(decoded)}`);
  return decoded;
};
const first = (name: Name) => avl(name).records[0]!;
const text = (value: unknown) => (Buffer.isBuffer(value) ? value.toString('latin1') : value);

const AVL_PACKETS: readonly Name[] = [
  'ble8eTag', 'ble8eTagBattery', 'codec8eIccid', 'codec8eLarge', 'codec16Four', 'codec8MixedOrder', 'codec8Three',
  'codec8eTwo', 'codec8eVinDtc', 'codec8eBeacons', 'codec8One', 'codec8eVin', 'codec16One', 'codec8Big8Byte',
  'codec8NoFix', 'codec8Ids', 'codec8Fourteen', 'codec8Eight', 'codec8Four', 'codec8NegativeAltitude', 'codec8Short',
  'codec8NegativeAltitude2', 'codec8Ignition', 'codec8Ignition2',
];

describe('real Teltonika packets from Traccar’s test suite', () => {
  it.each(AVL_PACKETS)('when %s is decoded, then it passes its CRC and the records fill it exactly', (name) => {
    const packet = avl(name);
    expect(packet.records).toHaveLength(packet.count);
    expect(packet.count).toBeGreaterThan(0);
  });

  it.each(AVL_PACKETS)('when %s is decoded, encoded and decoded again, then the records are the same', (name) => {
    const packet = avl(name);
    expect(decodeTcpPacket(encodeTcpPacket(packet.codec, packet.records))).toEqual(packet);
  });

  it('when a Codec 8 record with a fix is decoded, then position, motion and IO values are read', () => {
    expect(first('codec8One')).toMatchObject({
      timestampMs: Date.parse('2019-01-04T12:27:19Z'), latitude: 48.1523066, longitude: 16.3745183,
      altitude: 190, angle: 198, satellites: 15, speed: 83, eventIoId: 0,
    });
    expect(first('codec8One').io.get(16)).toBe(2656224);
    expect(first('codec8One').io.get(66)).toBe(14233);
  });

  it('when records carry negative altitudes, then the altitude is read signed', () => {
    expect(first('codec8NegativeAltitude')).toMatchObject({ altitude: -6, latitude: 25.6808615, longitude: 55.7956015, satellites: 18 });
    expect(first('codec8NegativeAltitude2').altitude).toBe(-4);
  });

  it('when a record is south and west of Greenwich, then latitude and longitude are negative', () => {
    expect(first('codec8eLarge')).toMatchObject({ latitude: -33.7335583, longitude: -70.7196233, altitude: 446, satellites: 18 });
  });

  it('when 8-byte values exceed 2^53, then they are exact bigints', () => {
    const io = first('codec8Big8Byte').io;
    expect(io.get(105)).toBe(6362550814091260979n);
    expect(io.get(107)).toBe(3891391553008041984n);
    expect((io.get(105) as bigint) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(io.get(85)).toBe(15);
  });

  it('when a packet is about 1 KB (over the documented 1280-byte limit with 8E), then all its records decode', () => {
    expect(bytes(TRACCAR.codec8eLarge).length).toBe(1073);
    expect(avl('codec8eLarge').count).toBe(4);
    expect(avl('codec8Fourteen').count).toBe(14);
    expect(avl('codec16Four')).toMatchObject({ codec: 16, count: 4 });
  });

  it('when NX values have length zero, then they are empty buffers and the rest still decodes', () => {
    const [one, two] = avl('codec8eLarge').records;
    for (const id of [331, 332, 333, 334]) expect(one!.io.get(id)).toEqual(Buffer.alloc(0));
    expect(text(two!.io.get(387))).toBe('-337335.5833-0707196.2333+000.446/');
  });

  it('when 8E carries a VIN and OBD fault codes, then the NX texts are intact', () => {
    const io = first('codec8eVinDtc').io;
    expect(text(io.get(256))).toBe('WV1ZZZ2EZ86015388');
    expect(text(io.get(281))).toBe('P0299,P0675,P0674,P0672,P0671,P0471,P2BAC');
    expect(io.get(16)).toBe(41397);
    expect(text(first('codec8eVin').io.get(256))).toBe('1A1JC5444R7252367');
  });

  it('when the event IO id is above 255, then 8E reads it whole', () => {
    expect(first('ble8eTagBattery').eventIoId).toBe(10831);
    expect(first('codec8eBeacons').eventIoId).toBe(385);
    expect(first('ble8eTag').timestampMs % 1000).toBe(11);
  });

  it('when records come newest-first or mixed, then they are returned in wire order', () => {
    const times = avl('codec8MixedOrder').records.map((r) => r.timestampMs);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const large = avl('codec8eLarge').records.map((r) => r.timestampMs);
    expect(large[3]).toBeLessThan(large[0]!);
    expect(large[1]).toBeGreaterThan(large[0]!);
  });

  it('when Codec 16 real records are decoded, then generation type, 2-byte ids and 4-byte values are read', () => {
    expect(first('codec16Four')).toMatchObject({ eventIoId: 253, generationType: 7, speed: 81, satellites: 17, latitude: 47.7225616 });
    expect(first('codec16Four').io.get(113)).toBe(4294806661);
    expect(first('codec16One').io.size).toBe(32);
  });

  it('when a record has no fix, then satellites and speed are 0', () => {
    expect(first('codec8NoFix')).toMatchObject({ satellites: 0, speed: 0, angle: 0 });
    expect(first('codec8NoFix').io.get(78)).toBe(0n);
  });

  it('when Codec 12 responses are decoded, then type 6 and the text come out', () => {
    expect(decodeTcpPacket(bytes(TRACCAR.codec12Fm2))).toMatchObject({ ok: true, kind: 'codec12', type: 6, text: '#FM2=262032761721396,26203,07.02.05\r\n' });
    const binary = decodeTcpPacket(bytes(TRACCAR.codec12Binary));
    expect(binary.ok && binary.kind === 'codec12' && binary.bytes.toString('hex')).toBe('010300010015d5c5');
    expect(decodeTcpPacket(bytes(TRACCAR.codec12Response))).toMatchObject({ type: 6, text: expect.stringMatching(/^UUUUww06\.4;/) });
    expect(decodeTcpPacket(bytes(TRACCAR.codec12Stgb40))).toMatchObject({ type: 6, text: expect.stringContaining('STGB40') });
  });

  it('when the connectionless (UDP) capture is decoded, then header and record are read', () => {
    const decoded = decodeUdpDatagram(bytes(TRACCAR.udpConnectionless));
    expect(decoded).toMatchObject({ ok: true, packetId: 0xcafe, avlPacketId: 0x22, imei: '357454072713975' });
    expect(decoded.ok && decoded.avl.records[0]!.satellites).toBe(0x09);
  });
});

describe('Traccar vectors that must be refused', () => {
  it.each<[Name, 'crc' | 'codec' | 'malformed']>([
    ['codec13BadCrc', 'crc'],
    ['extendedEleven', 'malformed'],
    ['codec16TwoStaleCrc', 'crc'],
    ['codec8EditedIdsStaleCrc', 'crc'],
    ['codec8TwoByteCrc', 'malformed'],
    ['codec8LengthTooLong', 'malformed'],
    ['codec8LengthTooLong2', 'malformed'],
    ['invalidLengthAndChecksum', 'malformed'],
    ['codec7FourTruncated', 'malformed'],
    ['codec7Gh3000', 'codec'],
    ['codec7Two', 'codec'],
    ['codec13Getinfo', 'codec'],
    ['codec13Driver', 'codec'],
  ])('when %s is decoded, then it is refused as %s without throwing', (name, reason) => {
    expect(decodeTcpPacket(bytes(TRACCAR[name]))).toMatchObject({ ok: false, reason });
  });
});
