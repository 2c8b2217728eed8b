/**
 * Decodes a GT06 frame's content by its protocol number (research note §2): logins, heartbeats,
 * locations, alarms, time requests and command answers. The framer has already checked the CRC.
 * A content too short for its protocol's fields is a failure value, never an exception; bytes
 * past the known fields are kept raw (`extra`), because about fifteen clone variants differ only
 * there, and a protocol number not read here comes out as `other` with its content.
 */
import { alarmOf, terminalInfoOf } from './alarm-kinds.js';
import { decodeCommandAnswer } from './commands.js';
import type { Gt06Frame } from './framing.js';
import { GPS_BLOCK_BYTES, readCell, readGpsBlock } from './gps-block.js';
import {
  ALARM_PROTOCOLS, LOCATION_PROTOCOLS, malformed, PROTOCOL,
  type AlarmMessage, type DecodeFailure, type Gt06Message, type Location, type Login, type Status,
} from './messages.js';

export type Gt06Decode = Gt06Message | DecodeFailure;

/** Terminal information, voltage level, GSM signal, alarm, language: the status tail of heartbeats and alarms. */
const STATUS_BYTES = 5;

/** The terminal id: 8 BCD bytes, 16 digits, of which the first is a 0 in front of a 15-digit IMEI. */
function decodeLogin(content: Buffer): Login | DecodeFailure {
  if (content.length < 8) return malformed(`login of ${content.length} bytes has no 8-byte terminal id`);
  const digits = content.toString('hex', 0, 8);
  if (!/^\d{16}$/.test(digits)) return malformed(`terminal id ${digits} is not BCD`);
  const imei = digits.startsWith('0') ? digits.slice(1) : digits;
  if (content.length < 12) return { ok: true, kind: 'login', imei, ...(content.length >= 10 ? { typeId: content.readUInt16BE(8) } : {}) };
  const zone = content.readUInt16BE(10);
  // Bits 15–4 are the offset as hours × 100 + minutes (GMT-12:45 is 1245), bit 3 is west.
  const hhmm = zone >> 4;
  const minutes = Math.floor(hhmm / 100) * 60 + (hhmm % 100);
  return { ok: true, kind: 'login', imei, typeId: content.readUInt16BE(8), timezoneMinutes: zone & 0x08 ? -minutes : minutes, language: zone & 0x03 };
}

function decodeStatus(content: Buffer, at: number): Omit<Status, 'ok' | 'kind'> {
  return { terminal: terminalInfoOf(content[at]!), voltageLevel: content[at + 1]!, gsmSignal: content[at + 2]!, alarm: alarmOf(content[at + 3]!), language: content[at + 4]! };
}

/** 0x10 GPS only; 0x12 GPS + cell; 0x22 GPS + cell + ACC, upload mode, re-upload, mileage. */
function decodeLocation(protocol: number, content: Buffer): Location | DecodeFailure {
  if (content.length < GPS_BLOCK_BYTES) return malformed(`location of ${content.length} bytes has no GPS block`);
  const { gps, statusAcc } = readGpsBlock(content, 0);
  let at = GPS_BLOCK_BYTES;
  const lbs = protocol === PROTOCOL.gps ? undefined : readCell(content, at, content.length);
  at += lbs?.size ?? 0;
  let acc = statusAcc;
  let uploadMode: number | undefined;
  let historic: boolean | undefined;
  let mileage: number | undefined;
  if (protocol === PROTOCOL.gpsLbsUtc && lbs !== undefined && content.length - at >= 3) {
    acc = content[at] !== 0;
    uploadMode = content[at + 1];
    historic = content[at + 2] === 1;
    at += 3;
    if (content.length - at >= 4) {
      mileage = content.readUInt32BE(at);
      at += 4;
    }
  }
  return { ok: true, kind: 'location', protocol, gps, cell: lbs?.cell, acc, uploadMode, historic, mileage, extra: content.subarray(at) };
}

/** 0x16, 0x26, 0x27: GPS block, cell behind a length byte that counts itself, status tail; 0x27 adds the fence. */
function decodeAlarm(protocol: number, content: Buffer): AlarmMessage | DecodeFailure {
  if (content.length < GPS_BLOCK_BYTES + 1) return malformed(`alarm of ${content.length} bytes has no GPS block`);
  const { gps } = readGpsBlock(content, 0);
  const lbsLength = content[GPS_BLOCK_BYTES]!;
  const statusAt = GPS_BLOCK_BYTES + Math.max(lbsLength, 1);
  const fenceBytes = protocol === PROTOCOL.alarmFences ? 1 : 0;
  if (content.length < statusAt + STATUS_BYTES + fenceBytes) return malformed(`alarm of ${content.length} bytes is too short for its cell of ${lbsLength} and status`);
  const cell = readCell(content, GPS_BLOCK_BYTES + 1, statusAt)?.cell;
  const fence = fenceBytes === 1 && content[statusAt + STATUS_BYTES] !== 0xff ? content[statusAt + STATUS_BYTES] : undefined;
  const extra = content.subarray(statusAt + STATUS_BYTES + fenceBytes);
  return { ok: true, kind: 'alarm', protocol, gps, cell, ...decodeStatus(content, statusAt), fence, extra };
}

export function decodeFrame(frame: Pick<Gt06Frame, 'protocol' | 'content'>): Gt06Decode {
  const { protocol, content } = frame;
  if (protocol === PROTOCOL.login) return decodeLogin(content);
  // Clones send heartbeats of other lengths whose bytes mean other things: those stay raw.
  if (protocol === PROTOCOL.heartbeat && content.length === STATUS_BYTES) return { ok: true, kind: 'status', ...decodeStatus(content, 0) };
  if (LOCATION_PROTOCOLS.has(protocol)) return decodeLocation(protocol, content);
  if (ALARM_PROTOCOLS.has(protocol)) return decodeAlarm(protocol, content);
  if (protocol === PROTOCOL.timeRequest) return { ok: true, kind: 'time-request' };
  if (protocol === PROTOCOL.commandAnswer || protocol === PROTOCOL.commandAnswerLong) return decodeCommandAnswer(protocol, content);
  return { ok: true, kind: 'other', protocol, content };
}
