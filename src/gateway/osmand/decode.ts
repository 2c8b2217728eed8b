/**
 * The OsmAnd protocol (device-protocols.md §6, D11) read into datapoint values; no I/O, never throws.
 * Two forms: query/form parameters (OsmAnd app, Traccar Client ≤ 8: `speed` in knots) and the JSON
 * body of Traccar Client 9+ (`speed` in m/s). Both store km/h. A missing or malformed device id,
 * an unreadable instant or a body of the wrong shape is a 400; a datapoint value that is not a
 * number is handed on as sent, so the intake keeps the record and flags it (D8).
 *
 * Choices where Traccar is not a guide:
 * - a zone-less `yyyy-MM-dd HH:mm:ss` (or `…THH:mm:ss`) is read at the service zone, -03:00
 *   (Traccar reads it in the server's zone; this service's zone is fixed);
 * - `valid=false|0`, or a position of exactly 0,0 (Traccar's "no fix, reuse the last one"), stores
 *   latitude and longitude as null, as D11 does for a Teltonika record without a fix;
 * - query `odometer` is Traccar's attribute in metres; `rpm` is Traccar's engine speed attribute;
 *   the JSON form's `odometer` is the phone SDK's own count since install, not the vehicle's: dropped;
 *   `altitude`, `batt` (phone battery), `cell`, `wifi` have no datapoint;
 * - `accuracy` (metres; both forms, `coords.accuracy` in JSON), else the query form's `hdop` × 5 m,
 *   is the record's position accuracy, kept for geofences and never a datapoint: 0 is what
 *   Traccar Client sends when it has no estimate, so it counts as none (domain/position-accuracy.ts);
 *   an unusable value is dropped, never a 400;
 * - a parameter sent twice: the last one counts, as in Traccar's loop over all values;
 * - converted values are rounded to 3 decimals (1 m/h, 1 m), which removes float noise only.
 */
import { accuracyFromHdop, positionAccuracyOf } from '../../domain/position-accuracy.js';
import { parseInputDate } from '../../domain/time.js';

/** `positionAccuracyM` is absent when the request gives no usable estimate. */
export type OsmandRecord = { readonly ts: number; readonly values: Record<string, unknown>; readonly positionAccuracyM?: number };
export type OsmandDecode =
  | { readonly ok: true; readonly deviceId: string; readonly records: readonly OsmandRecord[] }
  | { readonly ok: false; readonly status: 400; readonly reason: string };

/** Most locations one JSON body may carry (the background-geolocation SDK's batch form). */
export const MAX_OSMAND_LOCATIONS = 500;

const DEVICE_ID = /^[A-Za-z0-9_.:-]{1,64}$/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,3})?$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}(?::?\d{2})?)?$/;
const KNOTS_TO_KMH = 1.852;
const MPS_TO_KMH = 3.6;
/** Traccar: a number below Integer.MAX_VALUE is seconds, anything larger milliseconds. */
const SECONDS_LIMIT = 2_147_483_647;

const fail = (reason: string): OsmandDecode => ({ ok: false, status: 400, reason });
const round3 = (n: number): number => Math.round(n * 1000) / 1000;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A decimal text as a number; anything else as sent, for the intake to flag. */
function numberOrRaw(text: string): number | string {
  if (!DECIMAL.test(text)) return text;
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}

/** Scales a number; a value that is not a finite number goes on unchanged. */
const scaled = (v: unknown, factor: number): unknown => (typeof v === 'number' && Number.isFinite(v) ? round3(v * factor) : v);

function checkDeviceId(raw: unknown): string | undefined {
  const text = typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0 ? String(raw) : raw;
  return typeof text === 'string' && DEVICE_ID.test(text) ? text : undefined;
}

const BAD_ID = 'device id must be 1 to 64 characters of A-Z, a-z, 0-9, _ . : -';

/**
 * Traccar's instants: Unix seconds, or milliseconds from Integer.MAX_VALUE up; ISO 8601 with `Z`
 * or an offset (±HH, ±HHMM, ±HH:MM), fraction allowed; zone-less date and time at -03:00.
 */
export function parseOsmandTimestamp(text: string): number | undefined {
  if (/^\d{1,15}$/.test(text)) {
    const n = Number(text);
    return n < SECONDS_LIMIT ? n * 1000 : n;
  }
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [, date, time, fraction, zone = ''] = m;
  const offset = zone.length === 3 ? `${zone}:00` : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const parsed = parseInputDate(`${date}T${time}${offset}`);
  if (!parsed) return undefined;
  return parsed.epochMs + (fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000));
}

/** A record with the reported accuracy, else one from the HDOP; none for a record left without a position. */
function withAccuracy(ts: number, values: Record<string, unknown>, accuracy: unknown, hdop: unknown): OsmandRecord {
  const positioned = values.latitude !== undefined && values.latitude !== null && values.longitude !== undefined && values.longitude !== null;
  const estimate = positioned ? (positionAccuracyOf(accuracy) ?? accuracyFromHdop(hdop)) : null;
  return estimate === null ? { ts, values } : { ts, values, positionAccuracyM: estimate };
}

/** No fix: Traccar's `valid=false` or a position of exactly 0,0. */
function clearPositionWithoutFix(values: Record<string, unknown>, valid: boolean): void {
  if (!('latitude' in values) && !('longitude' in values)) return;
  if (!valid || (values.latitude === 0 && values.longitude === 0)) {
    values.latitude = null;
    values.longitude = null;
  }
}

/** The query/form form: parameters of the URL, or of a form body when the URL has none. */
export function decodeOsmandQuery(params: URLSearchParams, receivedAt: number): OsmandDecode {
  let id: string | undefined;
  let stamp: string | undefined;
  let valid = true;
  let accuracy: unknown;
  let hdop: unknown;
  const values: Record<string, unknown> = {};
  for (const [key, value] of params) {
    switch (key) {
      case 'id': case 'deviceid': id = value; break;
      case 'timestamp': stamp = value; break;
      case 'valid': valid = value.toLowerCase() === 'true' || value === '1'; break;
      case 'lat': values.latitude = numberOrRaw(value); break;
      case 'lon': values.longitude = numberOrRaw(value); break;
      case 'location': {
        const parts = value.split(',', 3);
        const pair = parts.length === 2;
        values.latitude = pair ? numberOrRaw(parts[0]!) : value;
        values.longitude = pair ? numberOrRaw(parts[1]!) : value;
        break;
      }
      case 'speed': values.speed = scaled(numberOrRaw(value), KNOTS_TO_KMH); break;
      case 'bearing': case 'heading': values.heading = numberOrRaw(value); break;
      case 'odometer': values.odometer = scaled(numberOrRaw(value), 1 / 1000); break;
      case 'rpm': values.rpm = numberOrRaw(value); break;
      case 'accuracy': accuracy = numberOrRaw(value); break;
      case 'hdop': hdop = numberOrRaw(value); break;
      default: break;
    }
  }
  if (id === undefined) return fail('id or deviceid is required');
  const deviceId = checkDeviceId(id);
  if (deviceId === undefined) return fail(BAD_ID);
  const ts = stamp === undefined ? receivedAt : parseOsmandTimestamp(stamp);
  if (ts === undefined) return fail('timestamp must be Unix seconds or milliseconds, or ISO 8601');
  clearPositionWithoutFix(values, valid);
  return { ok: true, deviceId, records: [withAccuracy(ts, values, accuracy, hdop)] };
}

/** One location object of the JSON form; a string is the reason it cannot be read. */
function readLocation(location: unknown, receivedAt: number): OsmandRecord | string {
  if (!isObject(location)) return 'location must be an object';
  let ts = receivedAt;
  const stamp = location.timestamp;
  if (stamp !== undefined) {
    const text = typeof stamp === 'number' && Number.isSafeInteger(stamp) ? String(stamp) : stamp;
    const parsed = typeof text === 'string' ? parseOsmandTimestamp(text) : undefined;
    if (parsed === undefined) return 'location.timestamp must be an ISO 8601 date and time';
    ts = parsed;
  }
  const values: Record<string, unknown> = {};
  let accuracy: unknown;
  const coords = location.coords;
  if (coords !== undefined) {
    if (!isObject(coords)) return 'location.coords must be an object';
    if (coords.latitude !== undefined) values.latitude = coords.latitude;
    if (coords.longitude !== undefined) values.longitude = coords.longitude;
    // -1 (any negative) is the SDK's "unknown"
    const unknown = (v: unknown) => v === undefined || (typeof v === 'number' && v < 0);
    if (!unknown(coords.speed)) values.speed = scaled(coords.speed, MPS_TO_KMH);
    if (!unknown(coords.heading)) values.heading = coords.heading;
    accuracy = coords.accuracy;
  }
  clearPositionWithoutFix(values, true);
  return withAccuracy(ts, values, accuracy, undefined);
}

/** The JSON form of Traccar Client 9+: `device_id` and `location`, one object or a batch array. */
export function decodeOsmandJson(body: unknown, receivedAt: number): OsmandDecode {
  if (!isObject(body)) return fail('body must be a JSON object');
  if (body.device_id === undefined) return fail('device_id is required');
  const deviceId = checkDeviceId(body.device_id);
  if (deviceId === undefined) return fail(BAD_ID);
  const raw = body.location;
  const list: readonly unknown[] = Array.isArray(raw) ? raw : [raw];
  if (raw === undefined || list.length === 0) return fail('location is required');
  if (list.length > MAX_OSMAND_LOCATIONS) return fail(`at most ${MAX_OSMAND_LOCATIONS} locations per request`);
  const records: OsmandRecord[] = [];
  for (const item of list) {
    const read = readLocation(item, receivedAt);
    if (typeof read === 'string') return fail(read);
    records.push(read);
  }
  return { ok: true, deviceId, records };
}
