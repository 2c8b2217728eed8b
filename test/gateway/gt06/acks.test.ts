import { describe, expect, it } from 'vitest';
import { alarmAck, heartbeatAck, loginAck, timeAnswer } from '../../../src/gateway/gt06/acks.js';
import { crcX25 } from '../../../src/gateway/gt06/crc-x25.js';
import { CONCOX } from './concox-vectors.js';
import { bytes, frameOf } from './frames.js';
import { TRACCAR } from './traccar-vectors.js';

const hex = (b: Buffer) => b.toString('hex');

describe('GT06 server answers', () => {
  it('when the Concox examples’ requests are answered, then the answers are the document’s bytes', () => {
    expect(hex(loginAck(frameOf(CONCOX.loginLong).serial))).toBe(CONCOX.loginAck.toLowerCase());
    expect(hex(heartbeatAck(0x0100))).toBe(CONCOX.heartbeatAck.toLowerCase());
    expect(hex(alarmAck(0x26, 0x001c))).toBe(CONCOX.alarmUtcAck.toLowerCase());
    const request = frameOf(CONCOX.timeRequest);
    expect(hex(timeAnswer(request.serial, Date.UTC(2015, 11, 29, 0, 0, 21)))).toBe(CONCOX.timeAnswer.toLowerCase());
  });

  it('when a captured login is answered, then the ack echoes its serial and carries a CRC computed independently', () => {
    const login = frameOf(TRACCAR.loginShort);
    const ack = loginAck(login.serial);
    expect(hex(ack.subarray(0, 6))).toBe('787805010009');
    expect(ack.readUInt16BE(6)).toBe(crcX25(bytes('05010009')));
    expect(hex(ack.subarray(8))).toBe('0d0a');
    expect(frameOf(ack)).toMatchObject({ protocol: 0x01, serial: 9, content: Buffer.alloc(0) });
  });

  it('when captured heartbeats and alarms are answered, then each answer is their protocol and serial, framed', () => {
    expect(frameOf(heartbeatAck(frameOf(TRACCAR.heartbeat).serial))).toMatchObject({ protocol: 0x13, serial: 0x0129 });
    for (const packet of [TRACCAR.alarmVibration, TRACCAR.alarmUtcVibration, TRACCAR.alarmFencesUs]) {
      const alarm = frameOf(packet);
      const ack = alarmAck(alarm.protocol, alarm.serial);
      expect(ack.length).toBe(10);
      expect(frameOf(ack)).toMatchObject({ protocol: alarm.protocol, serial: alarm.serial });
    }
  });

  it('when a protocol that is no alarm is given an alarm ack, then it is refused', () => {
    expect(() => alarmAck(0x12, 1)).toThrow(RangeError);
  });

  it('when the time is answered, then it is the UTC date and time, whatever the local zone', () => {
    const answer = timeAnswer(0x1234, Date.parse('2026-03-01T02:30:59-03:00'));
    expect(hex(answer.subarray(0, 4))).toBe('78780b8a');
    expect([...answer.subarray(4, 10)]).toEqual([26, 3, 1, 5, 30, 59]);
    expect(frameOf(answer)).toMatchObject({ protocol: 0x8a, serial: 0x1234 });
  });

  it('when the time is outside 2000–2099 or a serial does not fit 2 bytes, then the answer is refused', () => {
    expect(() => timeAnswer(1, Date.UTC(1999, 11, 31))).toThrow(RangeError);
    expect(() => timeAnswer(1, Date.UTC(2100, 0, 1))).toThrow(RangeError);
    expect(() => timeAnswer(1, Number.NaN)).toThrow(RangeError);
    expect(() => loginAck(0x10000)).toThrow(RangeError);
  });
});
