/**
 * The layouts location and alarm packets share (research note §2): the 18-byte GPS block and
 * the serving cell. The caller checks the bytes are there before reading; these only read.
 */
import type { Cell, GpsFix } from './messages.js';

export const GPS_BLOCK_BYTES = 18;
/** 1/500 s of arc: the unit is a minute × 30000, so a degree is 60 × 30000 of them. */
const UNITS_PER_DEGREE = 1_800_000;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** UTC from six bytes `yy mm dd hh mm ss`, or undefined when they are not a date. */
export function readDateTime(bytes: Buffer, at: number): number | undefined {
  const month = bytes[at + 1]!;
  const day = bytes[at + 2]!;
  const hour = bytes[at + 3]!;
  const minute = bytes[at + 4]!;
  const second = bytes[at + 5]!;
  const year = 2000 + bytes[at]!;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  // Checked, not left to Date.UTC, which would roll 31 February over into March. Every year
  // divisible by 4 from 2000 to 2255 but 2100 and 2200 is a leap year.
  const leap = year % 4 === 0 && year !== 2100 && year !== 2200;
  if (day < 1 || day > (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!)) return undefined;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}


export interface CourseStatus {
  readonly course: number;
  readonly north: boolean;
  readonly west: boolean;
  readonly fixed: boolean;
  readonly differential: boolean;
  /** Bits 14 and 15 as Traccar reads them: ACC known, and ACC on; Concox documents both as 0. */
  readonly acc: boolean | undefined;
}

export function courseStatusOf(word: number): CourseStatus {
  return {
    course: word & 0x3ff,
    north: (word & 0x0400) !== 0,
    west: (word & 0x0800) !== 0,
    fixed: (word & 0x1000) !== 0,
    differential: (word & 0x2000) !== 0,
    acc: (word & 0x4000) !== 0 ? (word & 0x8000) !== 0 : undefined,
  };
}

/** The GPS block at bytes[at, at + 18). */
export function readGpsBlock(bytes: Buffer, at: number): { readonly gps: GpsFix; readonly statusAcc: boolean | undefined } {
  const status = courseStatusOf(bytes.readUInt16BE(at + 16));
  const latitude = bytes.readUInt32BE(at + 7) / UNITS_PER_DEGREE;
  const longitude = bytes.readUInt32BE(at + 11) / UNITS_PER_DEGREE;
  const gps: GpsFix = {
    timeMs: readDateTime(bytes, at),
    // The high nibble is the length of the GPS information, not a count.
    satellites: bytes[at + 6]! & 0x0f,
    // 0 - x rather than -x: zeros (no fix yet) must not become -0, which equality tells apart.
    latitude: status.north ? latitude : 0 - latitude,
    longitude: status.west ? 0 - longitude : longitude,
    speedKmh: bytes[at + 15]!,
    course: status.course,
    fixed: status.fixed,
    differential: status.differential,
  };
  return { gps, statusAcc: status.acc };
}

/**
 * The cell at bytes[at, end): MCC 2, MNC 1 (2 when MCC bit 15 is set), LAC 2, cell id 3, and its
 * size; undefined when the bytes are too few. An MCC of 0 is no country: devices send zeros when
 * they have no cell, and `cell` is then undefined.
 */
export function readCell(bytes: Buffer, at: number, end: number): { readonly cell: Cell | undefined; readonly size: number } | undefined {
  if (end - at < 8) return undefined;
  const mccField = bytes.readUInt16BE(at);
  const wideMnc = (mccField & 0x8000) !== 0;
  const size = wideMnc ? 9 : 8;
  if (end - at < size) return undefined;
  const mnc = wideMnc ? bytes.readUInt16BE(at + 2) : bytes[at + 2]!;
  const lacAt = at + (wideMnc ? 4 : 3);
  const mcc = mccField & 0x7fff;
  return { cell: mcc === 0 ? undefined : { mcc, mnc, lac: bytes.readUInt16BE(lacAt), cellId: bytes.readUIntBE(lacAt + 2, 3) }, size };
}
