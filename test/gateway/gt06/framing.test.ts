import { describe, expect, it } from 'vitest';
import { decodeFrame } from '../../../src/gateway/gt06/decode.js';
import { Gt06Framer, type Gt06FramerOutput } from '../../../src/gateway/gt06/framing.js';
import { CONCOX } from './concox-vectors.js';
import { bytes, frameOf } from './frames.js';
import { TRACCAR } from './traccar-vectors.js';

const LOGIN = bytes(TRACCAR.loginShort);
const HEARTBEAT = bytes(TRACCAR.heartbeat);
const LOCATION = bytes(CONCOX.gpsLbsUtc);
const LONG = bytes(TRACCAR.answerLongUtf16);
const pushAll = (framer: Gt06Framer, ...chunks: Buffer[]): Gt06FramerOutput[] => chunks.flatMap((c) => framer.push(c));
const kinds = (out: readonly Gt06FramerOutput[]) => out.map((o) => (o.kind === 'frame' ? `frame 0x${o.protocol.toString(16)}` : `${o.reason} ${o.dropped}`));

describe('GT06 framing', () => {
  it('when a login arrives, then one frame comes out with its protocol, serial and content', () => {
    const frame = frameOf(LOGIN);
    expect(frame).toMatchObject({ kind: 'frame', long: false, protocol: 0x01, serial: 9 });
    expect(frame.content.toString('hex')).toBe('0864717003283581');
    expect(frame.bytes).toEqual(LOGIN);
  });

  it('when a 79 79 frame arrives, then its 2-byte length is read and it is marked long', () => {
    const frame = frameOf(LONG);
    expect(frame).toMatchObject({ long: true, protocol: 0x21, serial: 0x23 });
    expect(frame.content.length).toBe(LONG.length - 11);
    expect(frameOf(TRACCAR.information)).toMatchObject({ long: true, protocol: 0x9b, serial: 0x13 });
  });

  it('when several frames arrive in one chunk, then each comes out in order and nothing is held', () => {
    const framer = new Gt06Framer();
    const out = framer.push(Buffer.concat([LOGIN, HEARTBEAT, LONG, LOCATION]));
    expect(kinds(out)).toEqual(['frame 0x1', 'frame 0x13', 'frame 0x21', 'frame 0x22']);
    expect(framer.buffered).toBe(0);
  });

  it('when the stream is split at every byte offset, then the same frames come out', () => {
    const stream = Buffer.concat([LOGIN, LONG, HEARTBEAT]);
    const expected = new Gt06Framer().push(stream);
    for (let cut = 0; cut <= stream.length; cut++) {
      const framer = new Gt06Framer();
      expect(pushAll(framer, stream.subarray(0, cut), stream.subarray(cut))).toEqual(expected);
      expect(framer.buffered).toBe(0);
    }
  });

  it('when a frame arrives one byte at a time, then it comes out once, whole, at its last byte', () => {
    const framer = new Gt06Framer();
    const out: Gt06FramerOutput[] = [];
    for (let i = 0; i < LONG.length; i++) {
      out.push(...framer.push(LONG.subarray(i, i + 1)));
      expect(framer.buffered).toBe(i + 1 === LONG.length ? 0 : i + 1);
    }
    expect(out).toEqual([frameOf(LONG)]);
  });

  it('when a frame has come out, then later pushes do not change its bytes', () => {
    const framer = new Gt06Framer();
    const chunk = Buffer.concat([HEARTBEAT, LOGIN.subarray(0, 5)]);
    const [frame] = framer.push(chunk);
    chunk.fill(0xaa);
    framer.push(Buffer.alloc(100, 0x55));
    expect(frame).toEqual(frameOf(HEARTBEAT));
  });

  it('when garbage comes before 78 78, then it is dropped as junk and the frame behind it comes out', () => {
    const out = new Gt06Framer().push(Buffer.concat([Buffer.from('GET / HTTP/1.1\r\n'), Buffer.from([0x78, 0x00, 0x79]), HEARTBEAT]));
    expect(kinds(out)).toEqual(['junk 19', 'frame 0x13']);
  });

  it('when a chunk ends in 78, then that byte is kept as the possible start of a frame', () => {
    const framer = new Gt06Framer();
    expect(kinds(framer.push(Buffer.from([0x00, 0x00, 0x78])))).toEqual(['junk 2']);
    expect(framer.buffered).toBe(1);
    expect(kinds(framer.push(HEARTBEAT.subarray(1)))).toEqual(['frame 0x13']);
  });

  it('when megabytes of junk without start bits arrive, then nothing is held', () => {
    const framer = new Gt06Framer();
    expect(kinds(framer.push(Buffer.alloc(1 << 20, 0x00)))).toEqual([`junk ${1 << 20}`]);
    expect(framer.buffered).toBe(0);
  });

  it('when a frame’s CRC is wrong, then it is rejected whole and the good frame after it comes out', () => {
    const bad = bytes(TRACCAR.gpsLbsBadCrc);
    const out = new Gt06Framer().push(Buffer.concat([bad, HEARTBEAT, bytes(TRACCAR.answerLongBadCrc), LOGIN]));
    expect(kinds(out)).toEqual([`crc ${bad.length}`, 'frame 0x13', 'crc 117', 'frame 0x1']);
    expect(out[0]).toMatchObject({ detail: 'protocol 0x12: CRC 0x8081 where 0x7377 was computed' });
  });

  it('when a 79 79 frame declares more than maxFrameBytes, then it is rejected at once, before its data, and the next frame comes out', () => {
    const framer = new Gt06Framer({ maxFrameBytes: 1024 });
    const out = framer.push(Buffer.concat([Buffer.from([0x79, 0x79, 0xff, 0xf0, 0x94]), HEARTBEAT]));
    expect(kinds(out)).toEqual(['oversize 2', 'junk 3', 'frame 0x13']);
    expect(out[0]).toMatchObject({ detail: 'declared frame of 65526 bytes is over 1024' });
    expect(framer.buffered).toBe(0);
  });

  it('when a frame’s length is 0 (a clone’s Wi-Fi frame), then it is rejected and the frame after it comes out', () => {
    const wifi = bytes(TRACCAR.wifiLengthZero);
    const out = new Gt06Framer().push(Buffer.concat([wifi, HEARTBEAT]));
    expect(kinds(out)).toEqual(['malformed 2', `junk ${wifi.length - 2}`, 'frame 0x13']);
  });

  it('when a frame is too short for serial and CRC, then it is rejected whole', () => {
    const out = new Gt06Framer().push(Buffer.concat([bytes(TRACCAR.lengthOne), LOGIN]));
    expect(kinds(out)).toEqual(['malformed 6', 'frame 0x1']);
  });

  it('when a clone’s 0x10 has a length without serial and CRC, then it is rejected and the stream resynchronises', () => {
    const odd = bytes(TRACCAR.gpsLengthNoCrc);
    const out = new Gt06Framer().push(Buffer.concat([odd, HEARTBEAT]));
    expect(kinds(out)).toEqual(['malformed 2', `junk ${odd.length - 2}`, 'frame 0x13']);
  });

  it('when a clone’s heartbeat has a length byte short by 2 but a matching CRC, then it comes out cut at its stop bits', () => {
    const frame = frameOf(TRACCAR.heartbeatShortLength);
    expect(frame).toMatchObject({ protocol: 0x13, serial: 0x044d });
    expect(decodeFrame(frame)).toMatchObject({ kind: 'status', voltageLevel: 6, gsmSignal: 2 });
  });

  it('when a login claims more bytes than it has, then it waits, and the next frame ends the wait without being lost', () => {
    const framer = new Gt06Framer();
    expect(framer.push(bytes('78780d0103563140414198583c0d0a'))).toEqual([]);
    expect(kinds(framer.push(HEARTBEAT))).toEqual(['malformed 2', 'junk 13', 'frame 0x13']);
    expect(framer.buffered).toBe(0);
  });

  it('when start bits in junk claim a long frame, then they hold the frames behind them until that length has arrived, no longer', () => {
    const framer = new Gt06Framer({ maxFrameBytes: 300 });
    const behind = Array.from({ length: 10 }, () => HEARTBEAT);
    expect(framer.push(Buffer.concat([Buffer.from([0x79, 0x79, 0x01, 0x00]), ...behind]))).toEqual([]);
    expect(framer.buffered).toBe(154);
    const out = framer.push(Buffer.concat(behind));
    expect(kinds(out)).toEqual(['malformed 2', 'junk 2', ...[...behind, ...behind].map(() => 'frame 0x13')]);
    expect(framer.buffered).toBe(0);
  });

  it('when maxFrameBytes is below the longest 78 78 frame, then the framer refuses it', () => {
    expect(() => new Gt06Framer({ maxFrameBytes: 259 })).toThrow(RangeError);
  });
});
