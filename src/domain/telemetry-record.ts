/**
 * What an automaker pushes (OPERATIONS.md "Ingest") checked against D8: a record is rejected only
 * when it cannot be stored at all (no VIN, no instant); a datapoint of the wrong type or out of
 * range is kept as null with a `flag` entry holding the original value.
 */
import { DATAPOINTS, type DatapointSpec } from './datapoints.js';
import { keptPositionAccuracy } from './position-accuracy.js';
import { parseRecordInstant } from './time.js';
import { isValidVin } from './vin.js';

export type FlagKind = 'out of range' | 'invalid type';
export type FlagEntry = { readonly value: unknown; readonly flag: FlagKind };

/** The datapoints stored in their own column: every one but vin, date_time and flag. */
export const STORED_DATAPOINTS: readonly DatapointSpec[] = DATAPOINTS.filter((d) => !['vin', 'date_time', 'flag'].includes(d.name));

export interface TelemetryRecord {
  readonly vin: string;
  /** Epoch milliseconds, whole seconds: the interface renders seconds, so one second is one instant. */
  readonly ts: number;
  readonly values: Readonly<Record<string, number | string | null>>;
  readonly flag: Readonly<Record<string, FlagEntry>> | null;
  /** Estimated horizontal accuracy of the position, metres (position-accuracy.ts); absent when unknown or without a position. */
  readonly positionAccuracyM?: number;
}

export type RecordCheck = { readonly ok: true; readonly record: TelemetryRecord } | { readonly ok: false; readonly reason: string };

/** Longest text kept for categorical datapoints and events; longer is `invalid type`. */
export const MAX_TEXT_LENGTH = 64;
/** How far ahead of the service clock a record may be (vehicle clocks drift). */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** The original value as the flag shows it: primitives as sent, structures (unbounded size) as null. */
const flagValue = (v: unknown): unknown => (v === null || typeof v === 'object' ? null : v);

function checkValue(spec: DatapointSpec, raw: unknown): { value: number | string | null; flag?: FlagEntry } {
  if (raw === null) return { value: null };
  if (spec.kind === 'number') {
    if (typeof raw !== 'number' || !Number.isFinite(raw)) return { value: null, flag: { value: flagValue(raw), flag: 'invalid type' } };
    if (raw < spec.min! || raw > spec.max!) return { value: null, flag: { value: raw, flag: 'out of range' } };
    return { value: raw };
  }
  if (typeof raw !== 'string' || raw.length > MAX_TEXT_LENGTH) {
    return { value: null, flag: { value: typeof raw === 'string' ? null : flagValue(raw), flag: 'invalid type' } };
  }
  return { value: raw };
}

/**
 * A record as any source hands it to the intake: whose, when, and the datapoint values as the
 * source read them (their types still unchecked: a JSON body can hold anything).
 */
export interface IncomingRecord {
  readonly vin: string;
  /** Epoch milliseconds. */
  readonly ts: number;
  readonly values: Readonly<Record<string, unknown>>;
  /**
   * The source's estimate of the position's horizontal accuracy, metres, when it gives one (a
   * tracker's HDOP or satellite count, a phone's `accuracy`); not a datapoint, so never read from
   * `values`. A value of no use (zero, negative, too large) is dropped, never a refusal.
   */
  readonly positionAccuracyM?: number | null;
}

/**
 * D8 for a record of any source. `oldest` is the first instant still kept (older records are
 * refused); values of the wrong type or out of range become null with a flag entry.
 */
export function checkIncomingRecord(input: IncomingRecord, now: number, oldest: number): RecordCheck {
  if (!isValidVin(input.vin)) return { ok: false, reason: 'vin must be a 17-character VIN' };
  if (input.ts > now + FUTURE_TOLERANCE_MS) return { ok: false, reason: 'date_time is in the future' };
  if (input.ts < oldest) return { ok: false, reason: 'date_time is older than the data kept (7 days)' };
  const values: Record<string, number | string | null> = {};
  let flag: Record<string, FlagEntry> | null = null;
  for (const spec of STORED_DATAPOINTS) {
    if (!Object.hasOwn(input.values, spec.name)) continue;
    const checked = checkValue(spec, input.values[spec.name]);
    values[spec.name] = checked.value;
    if (checked.flag) (flag ??= {})[spec.name] = checked.flag;
  }
  const accuracy = keptPositionAccuracy(input.positionAccuracyM, values.latitude, values.longitude);
  const record = { vin: input.vin, ts: input.ts - (input.ts % 1000), values, flag };
  return { ok: true, record: accuracy === null ? record : { ...record, positionAccuracyM: accuracy } };
}

/**
 * A record of the ingest wire format (OPERATIONS.md "Ingest": a JSON object with `vin`,
 * `date_time` as ISO 8601 with an offset, and datapoints by name) read into an IncomingRecord;
 * the checks keep the order and texts automakers already see.
 */
export function readWireRecord(raw: unknown): { readonly ok: true; readonly record: IncomingRecord } | { readonly ok: false; readonly reason: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, reason: 'record must be an object' };
  const input = raw as Record<string, unknown>;
  if (!isValidVin(input.vin)) return { ok: false, reason: 'vin must be a 17-character VIN' };
  if (typeof input.date_time !== 'string') return { ok: false, reason: 'date_time must be an ISO 8601 string with an offset' };
  const instant = parseRecordInstant(input.date_time);
  if (instant === undefined) return { ok: false, reason: 'date_time must be an ISO 8601 string with an offset, e.g. 2026-11-20T09:00:00-03:00' };
  return { ok: true, record: { vin: input.vin, ts: instant, values: input } };
}

/** A pushed wire record read and checked (D8) in one step. */
export function checkTelemetryRecord(raw: unknown, now: number, oldest: number): RecordCheck {
  const read = readWireRecord(raw);
  return read.ok ? checkIncomingRecord(read.record, now, oldest) : read;
}
