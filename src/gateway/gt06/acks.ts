/**
 * What the server answers (research note §2). A device that gets no answer to its login or its
 * heartbeat within 5 s counts a timeout and reboots after three, so both must be answered; alarms
 * must be answered too, and a time request is answered with the current UTC time. Each answer
 * carries the serial of the frame it answers. Locations need none (Concox: "no server response
 * packet required"). The login is answered only for a registered IMEI: that check is the caller's.
 */
import { wrapFrame } from './frame-envelope.js';
import { ALARM_PROTOCOLS, PROTOCOL } from './messages.js';

const EMPTY = Buffer.alloc(0);

/** `78 78 05 01 <serial> <CRC> 0d 0a`. */
export function loginAck(serial: number): Buffer {
  return wrapFrame(PROTOCOL.login, EMPTY, serial);
}

/** `78 78 05 13 <serial> <CRC> 0d 0a`. */
export function heartbeatAck(serial: number): Buffer {
  return wrapFrame(PROTOCOL.heartbeat, EMPTY, serial);
}

/** `78 78 05 <protocol> <serial> <CRC> 0d 0a`, the alarm's own protocol number (0x16, 0x26, 0x27). */
export function alarmAck(protocol: number, serial: number): Buffer {
  if (!ALARM_PROTOCOLS.has(protocol)) throw new RangeError(`protocol 0x${protocol.toString(16)} is not an alarm`);
  return wrapFrame(protocol, EMPTY, serial);
}

/**
 * `78 78 0b 8a yy mm dd hh mm ss <serial> <CRC> 0d 0a`, the UTC time of `nowMs`. Traccar sends
 * serial 0; the Concox example echoes the request's, which is what every other answer does.
 */
export function timeAnswer(serial: number, nowMs: number): Buffer {
  const now = new Date(nowMs);
  const year = now.getUTCFullYear() - 2000;
  if (!Number.isFinite(nowMs) || year < 0 || year > 99) throw new RangeError('a GT06 time is a year from 2000 to 2099');
  const content = Buffer.from([year, now.getUTCMonth() + 1, now.getUTCDate(), now.getUTCHours(), now.getUTCMinutes(), now.getUTCSeconds()]);
  return wrapFrame(PROTOCOL.timeRequest, content, serial);
}
