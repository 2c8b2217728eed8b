/**
 * The device side of the protocol (research note §2), for the simulated tracker and tests: the
 * frames a GT06 sends, built with the same envelope as the server's answers. decode(encode(x))
 * gives x back to the wire's precision (1/500 s of arc, whole km/h, whole degrees of course).
 * Unrepresentable input throws.
 */
import { wrapFrame } from './frame-envelope.js';
import { PROTOCOL } from './messages.js';

const UNITS_PER_DEGREE = 1_800_000;
const EMPTY = Buffer.alloc(0);

function fits(value: number, max: number, what: string): number {
  if (!Number.isInteger(value) || value < 0 || value > max) throw new RangeError(`${what} ${value} does not fit 0..${max}`);
  return value;
}

/** `78 78 0d 01 <terminal id> <serial> <CRC> 0d 0a`: the IMEI as 16 BCD digits behind a 0. */
export function encodeLogin(imei: string, serial: number): Buffer {
  if (!/^\d{15}$/.test(imei)) throw new RangeError('a GT06 login carries a 15-digit IMEI');
  return wrapFrame(PROTOCOL.login, Buffer.from(`0${imei}`, 'hex'), serial);
}

export interface HeartbeatState {
  readonly acc: boolean;
  readonly relayCut: boolean;
  /** 0 (no power) … 6 (full). */
  readonly voltageLevel: number;
  /** 0 (none) … 4 (strong). */
  readonly gsmSignal: number;
}

/** Terminal information: bit 7 relay cut, 6 GPS on, 2 charging, 1 ACC. */
const terminalByte = (state: Pick<HeartbeatState, 'acc' | 'relayCut'>): number => (state.relayCut ? 0x80 : 0) | 0x40 | 0x04 | (state.acc ? 0x02 : 0);

/** 0x13: terminal information, voltage level, GSM signal, alarm 0, language 2 (English). */
export function encodeHeartbeat(state: HeartbeatState, serial: number): Buffer {
  const content = Buffer.from([terminalByte(state), fits(state.voltageLevel, 0xff, 'voltage level'), fits(state.gsmSignal, 0xff, 'GSM signal'), 0x00, 0x02]);
  return wrapFrame(PROTOCOL.heartbeat, content, serial);
}

export interface DeviceLocation {
  readonly timeMs: number;
  readonly latitude: number;
  readonly longitude: number;
  readonly speedKmh: number;
  readonly course: number;
  readonly satellites: number;
  /** False sends the block as a device without a fix does: bit 12 clear. */
  readonly fixed: boolean;
  readonly acc: boolean;
  /** Metres, as Concox counts it; left out when undefined. */
  readonly mileage?: number;
  /** The serving cell; zeros (no cell) when undefined. */
  readonly cell?: { readonly mcc: number; readonly mnc: number; readonly lac: number; readonly cellId: number };
}

/** The 18-byte GPS block: date, satellites, latitude, longitude, speed, course and status. */
function gpsBlock(location: DeviceLocation): Buffer {
  const at = new Date(location.timeMs);
  const year = at.getUTCFullYear() - 2000;
  fits(year, 99, 'year after 2000');
  if (Math.abs(location.latitude) > 90 || Math.abs(location.longitude) > 180) throw new RangeError('coordinates out of range');
  const block = Buffer.alloc(18);
  block.set([year, at.getUTCMonth() + 1, at.getUTCDate(), at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds()], 0);
  // The high nibble is the GPS information's length (12), the low one the satellites.
  block[6] = 0xc0 | Math.min(fits(location.satellites, 0xff, 'satellites'), 15);
  block.writeUInt32BE(Math.round(Math.abs(location.latitude) * UNITS_PER_DEGREE), 7);
  block.writeUInt32BE(Math.round(Math.abs(location.longitude) * UNITS_PER_DEGREE), 11);
  block[15] = Math.min(fits(Math.round(location.speedKmh), 0xffff, 'speed'), 0xff);
  const course = ((Math.round(location.course) % 360) + 360) % 360;
  block.writeUInt16BE(course | (location.fixed ? 0x1000 : 0) | (location.latitude >= 0 ? 0x0400 : 0) | (location.longitude < 0 ? 0x0800 : 0), 16);
  return block;
}

function cellBytes(cell: DeviceLocation['cell']): Buffer {
  const bytes = Buffer.alloc(8);
  if (!cell) return bytes;
  bytes.writeUInt16BE(fits(cell.mcc, 0x7fff, 'MCC'), 0);
  bytes[2] = fits(cell.mnc, 0xff, 'MNC');
  bytes.writeUInt16BE(fits(cell.lac, 0xffff, 'LAC'), 3);
  bytes.writeUIntBE(fits(cell.cellId, 0xffffff, 'cell id'), 5, 3);
  return bytes;
}

/** 0x22 (GPS, cell, ACC, upload mode 0, real time[, mileage]) as GT06N-class devices send. */
export function encodeLocation(location: DeviceLocation, serial: number): Buffer {
  const tail = Buffer.alloc(location.mileage === undefined ? 3 : 7);
  tail[0] = location.acc ? 1 : 0;
  if (location.mileage !== undefined) tail.writeUInt32BE(fits(Math.round(location.mileage), 0xffffffff, 'mileage'), 3);
  return wrapFrame(PROTOCOL.gpsLbsUtc, Buffer.concat([gpsBlock(location), cellBytes(location.cell), tail]), serial);
}

/** 0x16: the GPS block, the cell behind its length byte (9), terminal information, voltage, GSM, alarm code, language. */
export function encodeAlarm(location: DeviceLocation, alarmCode: number, state: HeartbeatState, serial: number): Buffer {
  const status = Buffer.from([terminalByte(state), state.voltageLevel, state.gsmSignal, fits(alarmCode, 0xff, 'alarm code'), 0x02]);
  return wrapFrame(PROTOCOL.alarm, Buffer.concat([gpsBlock(location), Buffer.from([9]), cellBytes(location.cell), status]), serial);
}

/** 0x8A: the device asks for the time. */
export const encodeTimeRequest = (serial: number): Buffer => wrapFrame(PROTOCOL.timeRequest, EMPTY, serial);

/** 0x21 in a `79 79` frame: the command's server flag, encoding 1 (ASCII), the answer's text. */
export function encodeCommandAnswer(serverFlag: number, text: string, serial: number): Buffer {
  const content = Buffer.alloc(5 + Buffer.byteLength(text, 'latin1'));
  content.writeUInt32BE(fits(serverFlag, 0xffffffff, 'server flag'), 0);
  content[4] = 1;
  content.write(text, 5, 'latin1');
  return wrapFrame(PROTOCOL.commandAnswerLong, content, serial, true);
}
