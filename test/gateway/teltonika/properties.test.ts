import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeTcpPacket } from '../../../src/gateway/teltonika/decode.js';
import { encodeLogin, encodeTcpPacket } from '../../../src/gateway/teltonika/encode.js';
import { CODEC_16, CODEC_8, CODEC_8E, type AvlCodec, type AvlRecord, type IoValue } from '../../../src/gateway/teltonika/avl-record.js';
import { crc16Ibm } from '../../../src/gateway/teltonika/crc16.js';
import { TeltonikaFramer, type TeltonikaFrame } from '../../../src/gateway/teltonika/framing.js';
import { decodeUdpDatagram, encodeUdpDatagram } from '../../../src/gateway/teltonika/udp-datagram.js';
import { TRACCAR } from './traccar-vectors.js';
import { WIKI, bytes } from './wiki-vectors.js';

const VALID_FRAMES = [WIKI.codec8Example1, WIKI.codec8eExample, WIKI.codec16Example, WIKI.codec12Getinfo, TRACCAR.codec8eLarge, TRACCAR.codec16Four, TRACCAR.codec8Big8Byte].map(bytes);
const MAX = 4096;

const ioValue = (codec: AvlCodec): fc.Arbitrary<IoValue> => fc.oneof(
  fc.integer({ min: 0, max: 0xffff_ffff }),
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  ...(codec === CODEC_8E ? [fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b))] : []),
);

const avlRecord = (codec: AvlCodec): fc.Arbitrary<AvlRecord> => {
  const idMax = codec === CODEC_8 ? 0xff : 0xffff;
  return fc.record({
    timestampMs: fc.maxSafeNat(),
    priority: fc.integer({ min: 0, max: 255 }),
    longitude: fc.integer({ min: -1_800_000_000, max: 1_800_000_000 }).map((v) => v / 1e7),
    latitude: fc.integer({ min: -900_000_000, max: 900_000_000 }).map((v) => v / 1e7),
    altitude: fc.integer({ min: -32768, max: 32767 }),
    angle: fc.integer({ min: 0, max: 0xffff }),
    satellites: fc.integer({ min: 0, max: 255 }),
    speed: fc.integer({ min: 0, max: 0xffff }),
    eventIoId: fc.integer({ min: 0, max: idMax }),
    io: fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: idMax }), ioValue(codec)), { selector: ([id]) => id, maxLength: 12 }).map((pairs) => new Map(pairs)),
    ...(codec === CODEC_16 ? { generationType: fc.integer({ min: 0, max: 255 }) } : {}),
  }) as fc.Arbitrary<AvlRecord>;
};
const codecAndRecords = fc.constantFrom<AvlCodec>(CODEC_8, CODEC_8E, CODEC_16)
  .chain((codec) => fc.tuple(fc.constant(codec), fc.array(avlRecord(codec), { minLength: 1, maxLength: 6 })));

/** Cut a stream into chunks at the given (sorted, deduplicated) offsets. */
const chunked = (stream: Buffer, cuts: number[]): Buffer[] => {
  const at = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
  return [...at, stream.length].map((end, i) => stream.subarray(i === 0 ? 0 : at[i - 1]!, end));
};

describe('Teltonika decoding under random input', () => {
  it('when random bytes are framed in random chunks, then nothing throws, the buffer stays bounded and every packet decodes to a value', () => {
    // Pieces of real frames keep the stream plausible long enough to reach the packet path.
    const piece = fc.oneof(
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
      fc.constantFrom(...VALID_FRAMES, bytes('000F313233343536373839303132333435'), Buffer.from([0xff])),
      fc.tuple(fc.constantFrom(...VALID_FRAMES), fc.nat(), fc.nat()).map(([f, a, b]) => f.subarray(a % f.length, b % (f.length + 1))),
    );
    fc.assert(fc.property(fc.array(piece, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 20 }), (pieces, cuts) => {
      const framer = new TeltonikaFramer({ maxFrameBytes: MAX });
      for (const chunk of chunked(Buffer.concat(pieces), cuts)) {
        for (const frame of framer.push(chunk)) if (frame.kind === 'packet') expect(typeof decodeTcpPacket(frame.bytes).ok).toBe('boolean');
        expect(framer.buffered).toBeLessThan(MAX);
      }
    }), { numRuns: 2000 });
  });

  it('when random bytes are decoded as a packet or a datagram, then a value comes back, never an exception', () => {
    const framed = fc.uint8Array({ maxLength: 600 }).map((data) => {
      const frame = Buffer.alloc(data.length + 12);
      frame.writeUInt32BE(data.length, 4);
      Buffer.from(data).copy(frame, 8);
      frame.writeUInt32BE(crc16Ibm(data), 8 + data.length);
      return frame;
    });
    fc.assert(fc.property(fc.oneof(fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b)), framed), (input) => {
      expect(typeof decodeTcpPacket(input).ok).toBe('boolean');
      expect(typeof decodeUdpDatagram(input).ok).toBe('boolean');
    }), { numRuns: 3000 });
  });

  it('when one bit or a burst of up to 16 bits of a valid frame is flipped, then the frame is refused (CRC-16 catches every such error)', () => {
    fc.assert(fc.property(fc.constantFrom(...VALID_FRAMES), fc.nat(), fc.integer({ min: 1, max: 0xffff }), (frame, position, pattern) => {
      const corrupt = Buffer.from(frame);
      const bit = position % (corrupt.length * 8 - 16);
      // CRC-16/IBM is reflected: it sees each byte least significant bit first, so a burst is
      // contiguous in that order (flipping bits most significant first spreads a 16-bit window
      // over up to 30 of the CRC's bits, which it need not catch).
      for (let i = 0; i < 16; i++) if (pattern & (1 << i)) corrupt[(bit + i) >> 3]! ^= 1 << ((bit + i) & 7);
      expect(decodeTcpPacket(corrupt).ok).toBe(false);
    }), { numRuns: 3000 });
  });

  it('when a valid frame is truncated, extended or overwritten at random, then it is refused unless its CRC still matches', () => {
    const corruption = fc.oneof(
      fc.nat().map((n) => (f: Buffer) => f.subarray(0, n % f.length)),
      fc.uint8Array({ minLength: 1, maxLength: 8 }).map((extra) => (f: Buffer) => Buffer.concat([f, extra])),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }).map((edits) => (f: Buffer) => {
        const copy = Buffer.from(f);
        for (const [at, value] of edits) copy[at % copy.length] = value;
        return copy;
      }),
    );
    fc.assert(fc.property(fc.constantFrom(...VALID_FRAMES), corruption, (frame, corrupt) => {
      const input = corrupt(frame);
      const decoded = decodeTcpPacket(input);
      if (input.equals(frame)) return;
      if (decoded.ok) {
        // Only possible when the edits kept the envelope whole and collided with the CRC.
        expect(input.length).toBe(frame.length);
        expect(input.readUInt32BE(input.length - 4)).toBe(crc16Ibm(input, 8, input.length - 4));
      }
    }), { numRuns: 3000 });
  });
});

describe('Teltonika encode → decode round trips', () => {
  it('when random records are encoded for TCP with any AVL codec, then they decode to the same records', () => {
    fc.assert(fc.property(codecAndRecords, ([codec, records]) => {
      expect(decodeTcpPacket(encodeTcpPacket(codec, records))).toEqual({ ok: true, kind: 'avl', codec, records, count: records.length });
    }), { numRuns: 500 });
  });

  it('when random records are encoded as a UDP datagram, then header and records come back', () => {
    const header = fc.record({ packetId: fc.integer({ min: 0, max: 0xffff }), avlPacketId: fc.integer({ min: 0, max: 255 }), imei: fc.stringMatching(/^\d{15}$/) });
    fc.assert(fc.property(header, codecAndRecords, (h, [codec, records]) => {
      expect(decodeUdpDatagram(encodeUdpDatagram(h, codec, records))).toEqual({ ok: true, ...h, avl: { ok: true, kind: 'avl', codec, records, count: records.length } });
    }), { numRuns: 300 });
  });

  it('when a stream of logins, pings and packets is cut anywhere, then the framer returns the same frames', () => {
    const frame = fc.oneof(
      fc.stringMatching(/^\d{15}$/).map((imei) => [encodeLogin(imei), { kind: 'login', imei }] as const),
      fc.constant([Buffer.from([0xff]), { kind: 'ping' }] as const),
      codecAndRecords.map(([codec, records]) => {
        const packet = encodeTcpPacket(codec, records);
        return [packet, { kind: 'packet', bytes: packet }] as const;
      }),
    );
    fc.assert(fc.property(fc.array(frame, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 10 }), (frames, cuts) => {
      const framer = new TeltonikaFramer();
      const out: TeltonikaFrame[] = chunked(Buffer.concat(frames.map(([b]) => b)), cuts).flatMap((c) => framer.push(c));
      expect(out).toEqual(frames.map(([, f]) => f));
      expect(framer.buffered).toBe(0);
    }), { numRuns: 300 });
  });
});
