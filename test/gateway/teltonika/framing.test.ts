import { describe, expect, it } from 'vitest';
import { TeltonikaFramer, type TeltonikaFrame } from '../../../src/gateway/teltonika/framing.js';
import { TRACCAR } from './traccar-vectors.js';
import { WIKI, bytes } from './wiki-vectors.js';

const LOGIN = bytes('000F313233343536373839303132333435');
const PACKET = bytes(WIKI.codec8Example1);
const LARGE = bytes(TRACCAR.codec8eLarge);
const pushAll = (framer: TeltonikaFramer, ...chunks: Buffer[]): TeltonikaFrame[] => chunks.flatMap((c) => framer.push(c));

describe('Teltonika TCP framing', () => {
  it('when a login arrives, then its IMEI comes out', () => {
    expect(new TeltonikaFramer().push(LOGIN)).toEqual([{ kind: 'login', imei: '123456789012345' }]);
  });

  it('when a lone FF arrives, or FF glued in front of a login (Traccar’s frame test), then a ping comes out and the FF is stripped', () => {
    expect(new TeltonikaFramer().push(Buffer.from([0xff]))).toEqual([{ kind: 'ping' }]);
    expect(new TeltonikaFramer().push(Buffer.concat([Buffer.from([0xff]), LOGIN]))).toEqual([{ kind: 'ping' }, { kind: 'login', imei: '123456789012345' }]);
    const framer = new TeltonikaFramer();
    expect(framer.push(Buffer.concat([Buffer.from([0xff, 0xff]), PACKET.subarray(0, 5)]))).toEqual([{ kind: 'ping' }, { kind: 'ping' }]);
    expect(framer.push(PACKET.subarray(5))).toEqual([{ kind: 'packet', bytes: PACKET }]);
  });

  it('when a login, pings and packets arrive in one chunk, then each frame comes out in order and nothing is held', () => {
    const framer = new TeltonikaFramer();
    const frames = framer.push(Buffer.concat([LOGIN, PACKET, Buffer.from([0xff]), LARGE, PACKET]));
    expect(frames).toEqual([
      { kind: 'login', imei: '123456789012345' }, { kind: 'packet', bytes: PACKET }, { kind: 'ping' },
      { kind: 'packet', bytes: LARGE }, { kind: 'packet', bytes: PACKET },
    ]);
    expect(framer.buffered).toBe(0);
  });

  it('when the stream is split at every byte offset, then the same frames come out', () => {
    const stream = Buffer.concat([LOGIN, PACKET, Buffer.from([0xff]), PACKET]);
    const expected = new TeltonikaFramer().push(stream);
    for (let cut = 0; cut <= stream.length; cut++) {
      const framer = new TeltonikaFramer();
      expect(pushAll(framer, stream.subarray(0, cut), stream.subarray(cut))).toEqual(expected);
      expect(framer.buffered).toBe(0);
    }
  });

  it('when a 1 KB packet arrives one byte at a time, then it comes out once, whole', () => {
    const framer = new TeltonikaFramer();
    const frames: TeltonikaFrame[] = [];
    for (let i = 0; i < LARGE.length; i++) {
      frames.push(...framer.push(LARGE.subarray(i, i + 1)));
      expect(framer.buffered).toBe(i + 1 === LARGE.length ? 0 : i + 1);
    }
    expect(frames).toEqual([{ kind: 'packet', bytes: LARGE }]);
  });

  it('when a frame has come out, then later pushes do not change its bytes', () => {
    const framer = new TeltonikaFramer();
    const chunk = Buffer.concat([PACKET, PACKET.subarray(0, 20)]);
    const [frame] = framer.push(chunk);
    chunk.fill(0xaa);
    framer.push(Buffer.alloc(100, 0x55));
    expect(frame).toEqual({ kind: 'packet', bytes: PACKET });
  });

  it('when a packet announces more than maxFrameBytes, then invalid comes out at once, before the data arrives', () => {
    const framer = new TeltonikaFramer({ maxFrameBytes: 1024 });
    expect(framer.push(LARGE.subarray(0, 8))).toEqual([{ kind: 'invalid', reason: 'packet of 1073 bytes is over 1024' }]);
    expect(framer.buffered).toBe(0);
  });

  it('when packets are larger than Teltonika documents but within the cap, then they are accepted', () => {
    const big = Buffer.alloc(60_000 + 12);
    big.writeUInt32BE(60_000, 4);
    const frames = new TeltonikaFramer().push(big);
    expect(frames).toHaveLength(1);
    expect(frames[0]!.kind).toBe('packet');
  });

  it.each([
    ['text garbage', Buffer.from('GET / HTTP/1.1\r\n')],
    ['a login of letters', Buffer.from('\u0000\u0003abc', 'latin1')],
    ['a login longer than 20 digits', bytes('0015')],
    ['a non-zero preamble', bytes('0000000100000036')],
    ['a data length of 0', bytes('0000000000000000')],
  ])('when the stream starts with %s, then invalid comes out and then nothing more', (_, chunk) => {
    const framer = new TeltonikaFramer();
    const frames = framer.push(chunk);
    expect(frames).toHaveLength(1);
    expect(frames[0]!.kind).toBe('invalid');
    expect(framer.push(LOGIN)).toEqual([]);
    expect(framer.buffered).toBe(0);
  });

  it('when frames come before garbage, then they come out before the invalid frame', () => {
    const frames = new TeltonikaFramer().push(Buffer.concat([LOGIN, PACKET, Buffer.from('junk')]));
    expect(frames.map((f) => f.kind)).toEqual(['login', 'packet', 'invalid']);
  });

  it('when a huge chunk holds many frames and a partial one, then only the partial frame is kept', () => {
    const framer = new TeltonikaFramer({ maxFrameBytes: 2048 });
    const chunk = Buffer.concat([...Array.from({ length: 200 }, () => LARGE), LARGE.subarray(0, 500)]);
    expect(framer.push(chunk)).toHaveLength(200);
    expect(framer.buffered).toBe(500);
    expect(framer.push(LARGE.subarray(500))).toEqual([{ kind: 'packet', bytes: LARGE }]);
    expect(framer.buffered).toBe(0);
  });
});
