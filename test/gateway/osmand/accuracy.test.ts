/**
 * The OsmAnd decoder's position accuracy: `accuracy` in metres in both forms, the query form's
 * `hdop` × 5 m when there is none, nothing for a record without a position, and an unusable
 * value dropped without refusing the request.
 */
import { describe, expect, it } from 'vitest';
import { checkIncomingRecord } from '../../../src/domain/telemetry-record.js';
import { decodeOsmandJson, decodeOsmandQuery, type OsmandDecode } from '../../../src/gateway/osmand/decode.js';

const RECEIVED = Date.UTC(2026, 10, 20, 12, 0, 0);
const query = (params: string): OsmandDecode => decodeOsmandQuery(new URLSearchParams(`id=123456&timestamp=${RECEIVED / 1000}&${params}`), RECEIVED);
const json = (coords: Record<string, unknown>): OsmandDecode =>
  decodeOsmandJson({ device_id: '48241179', location: { timestamp: new Date(RECEIVED).toISOString(), coords } }, RECEIVED);

function only(result: OsmandDecode) {
  if (!result.ok) throw new Error(`expected ok, got 400: ${result.reason}`);
  expect(result.records).toHaveLength(1);
  return result.records[0]!;
}
const accuracyOf = (result: OsmandDecode) => only(result).positionAccuracyM;

describe('OsmAnd position accuracy, query form', () => {
  it('when accuracy is sent in metres, then it is the accuracy, before any hdop', () => {
    expect(accuracyOf(query('lat=-23.55&lon=-46.63&accuracy=12.5'))).toBe(12.5);
    expect(accuracyOf(query('lat=-23.55&lon=-46.63&accuracy=8&hdop=3'))).toBe(8);
  });

  it('when accuracy is absent or 0 (Traccar Client\'s "none") and hdop is sent, then the accuracy is hdop × 5 m', () => {
    expect(accuracyOf(query('lat=-23.55&lon=-46.63&hdop=2.5'))).toBe(12.5);
    expect(accuracyOf(query('lat=-23.55&lon=-46.63&accuracy=0&hdop=1.2'))).toBe(6);
  });

  it.each([
    ['negative', 'accuracy=-1'], ['not a number', 'accuracy=abc'], ['over 100 km', 'accuracy=100001'], ['hdop 0', 'hdop=0.0'], ['hdop not a number', 'hdop=x'],
  ])('when the estimate is %s, then there is none and the position is kept', (_label, params) => {
    const record = only(query(`lat=-23.55&lon=-46.63&${params}`));
    expect(record).toEqual({ ts: RECEIVED, values: { latitude: -23.55, longitude: -46.63 } });
  });

  it('when the record has no position (valid=false, 0,0, or none sent), then there is no accuracy', () => {
    for (const params of ['lat=-23.55&lon=-46.63&valid=false&accuracy=5', 'lat=0&lon=0&accuracy=5', 'accuracy=5&hdop=1', 'lat=-23.55&accuracy=5']) {
      expect(only(query(params))).not.toHaveProperty('positionAccuracyM');
    }
  });
});

describe('OsmAnd position accuracy, JSON form', () => {
  it('when coords.accuracy is sent (Traccar Client 9), then it is the accuracy', () => {
    expect(accuracyOf(json({ latitude: 37.4219983, longitude: -122.084, accuracy: 4.32, speed: 0 }))).toBe(4.32);
  });

  it('when coords.accuracy is -1, 0, a string or absent, or the position is 0,0, then there is no accuracy and the record is kept', () => {
    for (const accuracy of [-1, 0, '5', undefined]) {
      expect(only(json({ latitude: 37.42, longitude: -122.08, accuracy }))).toEqual({ ts: RECEIVED, values: { latitude: 37.42, longitude: -122.08 } });
    }
    expect(only(json({ latitude: 0, longitude: 0, accuracy: 5 }))).not.toHaveProperty('positionAccuracyM');
  });

  it('when a decoded record goes through the intake check, then the accuracy is kept with it', () => {
    const record = only(json({ latitude: 37.42, longitude: -122.08, accuracy: 3.8 }));
    const checked = checkIncomingRecord({ vin: '9BWZZZ377VT004251', ...record }, RECEIVED, 0);
    expect(checked.ok && checked.record.positionAccuracyM).toBe(3.8);
  });
});
