import { describe, expect, it } from 'vitest';
import { checkTelemetryRecord } from '../../src/domain/telemetry-record.js';
import { parseRecordInstant } from '../../src/domain/time.js';

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const OLDEST = NOW - 8 * 86_400_000;
const VIN = '9BWZZZ377VT004251';
const check = (record: unknown) => checkTelemetryRecord(record, NOW, OLDEST);

describe('ingest record checks (D8)', () => {
  it('keeps values in range and reads the instant with its offset', () => {
    const result = check({ vin: VIN, date_time: '2026-11-20T08:59:50-03:00', speed: 0, heading: 360, engine_cooling_temperature: -50, seat_belt_status: 'not buckled' });
    expect(result).toEqual({ ok: true, record: { vin: VIN, ts: NOW - 10_000, values: { speed: 0, heading: 360, engine_cooling_temperature: -50, seat_belt_status: 'not buckled' }, flag: null } });
  });

  it.each([
    ['speed', 400.1], ['speed', -1], ['latitude', 90.5], ['longitude', -181], ['heading', 361], ['rpm', 12001], ['odometer', 3_000_001],
    ['fuel_level', 101], ['range', 3001], ['left_front_tire_pressure', 1001], ['oil_level', -0.1], ['engine_cooling_temperature', 201],
    ['lv_battery_voltage', 60.5], ['hv_battery_voltage', 1501], ['hv_battery_soc', 100.01],
  ])('stores %s=%d as null with an out-of-range flag holding the original', (name, value) => {
    const result = check({ vin: VIN, date_time: '2026-11-20T12:00:00Z', [name]: value });
    expect(result).toEqual({ ok: true, record: expect.objectContaining({ values: { [name]: null }, flag: { [name]: { value, flag: 'out of range' } } }) });
  });

  it.each([
    ['a numeric string', '42', '42'], ['a boolean', true, true], ['an object', { v: 1 }, null], ['a list', [1], null],
  ])('stores a number given as %s as null with an invalid-type flag', (_label, raw, shown) => {
    const result = check({ vin: VIN, date_time: '2026-11-20T12:00:00Z', speed: raw });
    expect(result).toEqual({ ok: true, record: expect.objectContaining({ values: { speed: null }, flag: { speed: { value: shown, flag: 'invalid type' } } }) });
  });

  it('flags a category that is not a short string', () => {
    const result = check({ vin: VIN, date_time: '2026-11-20T12:00:00Z', hv_battery_charging_status: 3, event: 'x'.repeat(65) });
    expect(result.ok && result.record.flag).toEqual({ hv_battery_charging_status: { value: 3, flag: 'invalid type' }, event: { value: null, flag: 'invalid type' } });
  });

  it('keeps explicit nulls without a flag and ignores unknown fields and a sent flag', () => {
    const result = check({ vin: VIN, date_time: '2026-11-20T12:00:00Z', speed: null, colour: 'red', flag: { speed: 'x' } });
    expect(result).toEqual({ ok: true, record: { vin: VIN, ts: NOW, values: { speed: null }, flag: null } });
  });

  it('drops sub-second precision: one second is one instant', () => {
    const result = check({ vin: VIN, date_time: '2026-11-20T11:59:59.999Z' });
    expect(result.ok && result.record.ts).toBe(NOW - 1000);
  });

  it.each([
    [null, 'record must be an object'],
    [[1], 'record must be an object'],
    [{ date_time: '2026-11-20T12:00:00Z' }, 'vin must be a 17-character VIN'],
    [{ vin: 'short', date_time: '2026-11-20T12:00:00Z' }, 'vin must be a 17-character VIN'],
    [{ vin: VIN }, 'date_time must be an ISO 8601 string with an offset'],
    [{ vin: VIN, date_time: '2026-11-20T12:00:00' }, 'date_time must be an ISO 8601 string with an offset, e.g. 2026-11-20T09:00:00-03:00'],
    [{ vin: VIN, date_time: '2026-11-20T12:06:00Z' }, 'date_time is in the future'],
    [{ vin: VIN, date_time: '2026-11-12T11:59:59Z' }, 'date_time is older than the data kept (7 days)'],
  ])('rejects %j: %s', (record, reason) => {
    expect(check(record)).toEqual({ ok: false, reason });
  });

  it('parses record instants strictly', () => {
    expect(parseRecordInstant('2026-11-20T09:00:00-03:00')).toBe(NOW);
    expect(parseRecordInstant('2026-11-20T12:00:00.5Z')).toBe(NOW + 500);
    expect(parseRecordInstant('2026-11-20T12:00:00')).toBeUndefined();
    expect(parseRecordInstant('2026-11-20')).toBeUndefined();
    expect(parseRecordInstant('2026-02-30T12:00:00Z')).toBeUndefined();
  });
});
