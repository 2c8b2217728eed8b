/**
 * A record's position accuracy: what a source's estimate becomes, and that the intake's check
 * keeps it only beside a position and never refuses a record over it.
 */
import { describe, expect, it } from 'vitest';
import {
  accuracyFromHdop, accuracyFromSatellites, MAX_POSITION_ACCURACY_M, positionAccuracyOf,
} from '../../src/domain/position-accuracy.js';
import { checkIncomingRecord, checkTelemetryRecord } from '../../src/domain/telemetry-record.js';

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const VIN = '9BWZZZ377VT004251';
const check = (values: Record<string, unknown>, positionAccuracyM: unknown) =>
  checkIncomingRecord({ vin: VIN, ts: NOW, values, positionAccuracyM: positionAccuracyM as number | null }, NOW, 0);
const HERE = { latitude: -23.5505, longitude: -46.6333 };

describe('position accuracy estimates', () => {
  it('when a source reports metres, then a positive value up to 100 km is kept as it is', () => {
    expect([positionAccuracyOf(3.8), positionAccuracyOf(0.5), positionAccuracyOf(MAX_POSITION_ACCURACY_M)]).toEqual([3.8, 0.5, 100_000]);
  });

  it.each([
    ['zero (no estimate)', 0], ['negative', -1], ['NaN', Number.NaN], ['infinite', Number.POSITIVE_INFINITY], ['over 100 km', 100_000.5],
    ['a string', '5'], ['null', null], ['absent', undefined],
  ])('when the reported value is %s, then there is no estimate', (_label, raw) => {
    expect(positionAccuracyOf(raw)).toBeNull();
  });

  it('when an HDOP is given, then the accuracy is HDOP × 5 m, rounded to 0.1 m; an HDOP of 0 or not a number is none', () => {
    expect([accuracyFromHdop(1), accuracyFromHdop(1.1), accuracyFromHdop(2.5), accuracyFromHdop(50)]).toEqual([5, 5.5, 12.5, 250]);
    expect([accuracyFromHdop(0), accuracyFromHdop(-1), accuracyFromHdop(Number.NaN), accuracyFromHdop('1.2')]).toEqual([null, null, null, null]);
  });

  it('when only the satellite count is known, then 7 or more is 10 m, 4 to 6 is 25 m, 1 to 3 is 100 m and 0 is none', () => {
    expect([12, 7, 6, 4, 3, 1, 0].map(accuracyFromSatellites)).toEqual([10, 10, 25, 25, 100, 100, null]);
  });
});

describe('position accuracy through the intake check', () => {
  it('when a positioned record carries an accuracy, then the checked record keeps it', () => {
    const result = check(HERE, 12.5);
    expect(result.ok && result.record.positionAccuracyM).toBe(12.5);
  });

  it('when the record has no position, or an unusable one, then the accuracy is dropped and the record is kept', () => {
    for (const values of [{}, { latitude: null, longitude: null }, { latitude: -23.5 }, { latitude: 95, longitude: -46.6 }]) {
      const result = check(values, 10);
      expect(result.ok).toBe(true);
      expect(result.ok && result.record).not.toHaveProperty('positionAccuracyM');
    }
  });

  it('when the accuracy is out of range, then the record is kept without it and without a flag', () => {
    for (const raw of [-3, Number.NaN, 250_000, 0, '7']) {
      const result = check(HERE, raw);
      expect(result).toEqual({ ok: true, record: { vin: VIN, ts: NOW, values: HERE, flag: null } });
    }
  });

  it('when an automaker pushes a record naming position_accuracy_m, then it is neither a datapoint nor the accuracy', () => {
    const result = checkTelemetryRecord({ vin: VIN, date_time: '2026-11-20T12:00:00Z', ...HERE, position_accuracy_m: 4, positionAccuracyM: 4 }, NOW, 0);
    expect(result).toEqual({ ok: true, record: { vin: VIN, ts: NOW, values: HERE, flag: null } });
  });
});
