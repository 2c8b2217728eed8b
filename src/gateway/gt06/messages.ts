/**
 * The decoded shape of GT06 messages (research note §2) and of a decode that went wrong. Shared by
 * the decoder and whatever maps messages to records, so neither imports the other for a type.
 */
import type { Alarm, TerminalInfo } from './alarm-kinds.js';

export const PROTOCOL = Object.freeze({
  login: 0x01,
  gps: 0x10,
  gpsLbs: 0x12,
  heartbeat: 0x13,
  commandAnswer: 0x15,
  alarm: 0x16,
  commandAnswerLong: 0x21,
  gpsLbsUtc: 0x22,
  alarmUtc: 0x26,
  alarmFences: 0x27,
  command: 0x80,
  timeRequest: 0x8a,
});

/** The protocol numbers of locations and of alarms (which the server must answer). */
export const LOCATION_PROTOCOLS: ReadonlySet<number> = new Set([PROTOCOL.gps, PROTOCOL.gpsLbs, PROTOCOL.gpsLbsUtc]);
export const ALARM_PROTOCOLS: ReadonlySet<number> = new Set([PROTOCOL.alarm, PROTOCOL.alarmUtc, PROTOCOL.alarmFences]);

/** The GPS block every location and alarm packet starts with: 18 bytes. */
export interface GpsFix {
  /**
   * Epoch milliseconds, UTC unless the device was set to local time (the longer login's time
   * zone tells). Undefined when the date fields are not a date: devices send zeros before their
   * first fix.
   */
  readonly timeMs: number | undefined;
  readonly satellites: number;
  /** Degrees, negative south. */
  readonly latitude: number;
  /** Degrees, negative west. */
  readonly longitude: number;
  readonly speedKmh: number;
  /** Degrees clockwise from north. */
  readonly course: number;
  /**
   * Course/status bit 12. False means the coordinates are not a fix (the last one repeated, or
   * zeros): the caller must not store them as a position.
   */
  readonly fixed: boolean;
  /** Course/status bit 13: differential rather than real-time positioning. */
  readonly differential: boolean;
}

/** The serving cell (LBS). `mnc` is 2 bytes on the wire when bit 15 of the MCC field is set. */
export interface Cell {
  readonly mcc: number;
  readonly mnc: number;
  readonly lac: number;
  readonly cellId: number;
}

export interface Login {
  readonly ok: true;
  readonly kind: 'login';
  /** The terminal id's BCD digits without its leading 0 nibble: the 15-digit IMEI. */
  readonly imei: string;
  /** The longer login (content of 12 bytes) only: the model's type identity code. */
  readonly typeId?: number;
  /** The longer login only: the device clock's offset from UTC, in minutes, negative west. */
  readonly timezoneMinutes?: number;
  /** The longer login only: bits 0–1 of the time zone field. */
  readonly language?: number;
}

/** A heartbeat (0x13): state, no position. */
export interface Status {
  readonly ok: true;
  readonly kind: 'status';
  readonly terminal: TerminalInfo;
  /** 0 (no power) … 6 (full) on Concox; some clones send a percentage. */
  readonly voltageLevel: number;
  /** 0 (none) … 4 (strong) on Concox; some clones send other scales. */
  readonly gsmSignal: number;
  readonly alarm: Alarm;
  readonly language: number;
}

interface Positioned {
  readonly ok: true;
  /** 0x10, 0x12, 0x22 for locations; 0x16, 0x26, 0x27 for alarms. */
  readonly protocol: number;
  readonly gps: GpsFix;
  readonly cell: Cell | undefined;
  /** Bytes after the known fields: clones' variants add odometers, voltages, temperatures. */
  readonly extra: Buffer;
}

export interface Location extends Positioned {
  readonly kind: 'location';
  /**
   * Ignition: the ACC byte of 0x22, else course/status bit 15 when bit 14 says it is valid (as
   * Traccar reads it); undefined when the packet does not say.
   */
  readonly acc: boolean | undefined;
  /** 0x22: why the device sent it (0 interval, 1 distance, 2 cornering, 3 ACC change, …). */
  readonly uploadMode: number | undefined;
  /**
   * 0x22 re-upload: buffered history sent late. It must not move the current position backwards
   * or fire live alerts.
   */
  readonly historic: boolean | undefined;
  /** 0x22 on models that count it: the mileage counter as the model counts it. */
  readonly mileage: number | undefined;
}

export interface AlarmMessage extends Positioned {
  readonly kind: 'alarm';
  readonly terminal: TerminalInfo;
  readonly voltageLevel: number;
  readonly gsmSignal: number;
  readonly alarm: Alarm;
  readonly language: number;
  /** 0x27 only: which fence (0 is the first); undefined when the device says none (0xFF). */
  readonly fence: number | undefined;
}

/** 0x8A: the device asks for the current UTC time (acks.ts timeAnswer). */
export interface TimeRequest {
  readonly ok: true;
  readonly kind: 'time-request';
}

/** The device's text answer to an 0x80 command: 0x15 (old) or 0x21 (new). */
export interface CommandAnswer {
  readonly ok: true;
  readonly kind: 'command-answer';
  /** The server flag of the command it answers, returned unchanged by the device. */
  readonly serverFlag: number;
  readonly text: string;
}

/** A protocol number decoded nowhere here (LBS-only, Wi-Fi, information, clone variants). */
export interface OtherMessage {
  readonly ok: true;
  readonly kind: 'other';
  readonly protocol: number;
  readonly content: Buffer;
}

export type Gt06Message = Login | Status | Location | AlarmMessage | TimeRequest | CommandAnswer | OtherMessage;

/** Why a CRC-valid frame could not be read: the caller counts it and does not answer it. */
export interface DecodeFailure {
  readonly ok: false;
  readonly reason: 'malformed';
  readonly detail: string;
}

export const malformed = (detail: string): DecodeFailure => ({ ok: false, reason: 'malformed', detail });
