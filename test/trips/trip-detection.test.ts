import { describe, expect, it } from 'vitest';
import { TripDetector, type DetectedTrip, type TripInput } from '../../src/domain/trip-detection.js';
import { DEFAULT_TRIP_THRESHOLDS } from '../support/trip-settings.js';
import { gap, move, stand, syntheticDrive } from '../support/synthetic-drive.js';

const T = Date.UTC(2026, 10, 20, 10, 0, 0);
const MIN = 60;

function detect(records: readonly TripInput[], tank: number | null = 50, flushAt?: number): DetectedTrip[] {
  const detector = new TripDetector(DEFAULT_TRIP_THRESHOLDS, tank);
  const trips = records.map((r) => detector.push(r)).filter((t): t is DetectedTrip => t !== undefined);
  const last = detector.flush(flushAt ?? records.at(-1)!.ts + 11 * 60_000);
  return last ? [...trips, last] : trips;
}

describe('trip detection (D9)', () => {
  it('when a vehicle drives 10 minutes at 60 km/h between two long parkings, then one trip with hand-computed numbers', () => {
    const trips = detect(syntheticDrive(T, [stand(10 * MIN), move(60, 10 * MIN), stand(10 * MIN)]));
    expect(trips).toHaveLength(1);
    const [trip] = trips as [DetectedTrip];
    // First moving record 10 s after the parking ends; last moving record 600 s after that parking.
    expect(trip.startTs).toBe(T + (10 * MIN + 10) * 1000);
    expect(trip.endTs).toBe(T + (20 * MIN) * 1000);
    expect(trip.durationSeconds).toBe(590);
    // 59 steps of 60 km/h × 10 s = 59 × 1/6 km between the first and last moving record.
    expect(trip.distanceKm).toBeCloseTo(59 / 6, 6);
    expect(trip.avgSpeedKmh).toBeCloseTo(60, 4);
    expect(trip.maxSpeedKmh).toBe(60);
    expect(trip.endOdometer! - trip.startOdometer!).toBeCloseTo(59 / 6, 6);
    // Fuel falls 0.2 % of 50 l per km: 0.1 l/km, so 10 km/l.
    expect(trip.avgFuelConsumption).toBeCloseTo(10, 4);
    expect(trip.endLongitude!).toBeGreaterThan(trip.startLongitude!);
  });

  it('when a stop inside the drive is shorter than 5 minutes, then it stays one trip', () => {
    const trips = detect(syntheticDrive(T, [stand(10 * MIN), move(40, 8 * MIN), stand(4 * MIN + 50), move(40, 8 * MIN), stand(10 * MIN)]));
    expect(trips).toHaveLength(1);
    expect(trips[0]!.durationSeconds).toBe((8 * MIN - 10) + (4 * MIN + 50) + 8 * MIN);
    expect(trips[0]!.avgSpeedKmh).toBeLessThan(40);
  });

  it('when a stop lasts 5 minutes or more, then the drive splits in two', () => {
    const trips = detect(syntheticDrive(T, [stand(10 * MIN), move(40, 8 * MIN), stand(5 * MIN + 10), move(40, 8 * MIN), stand(10 * MIN)]));
    expect(trips).toHaveLength(2);
    expect(trips[0]!.endTs).toBeLessThan(trips[1]!.startTs);
    for (const t of trips) expect(t.durationSeconds).toBe(8 * MIN - 10);
  });

  it('when the data stops for more than 10 minutes, then the trip ends at the last record before the gap', () => {
    const records = syntheticDrive(T, [stand(5 * MIN), move(50, 6 * MIN), gap(11 * MIN), move(50, 6 * MIN), stand(10 * MIN)]);
    const trips = detect(records);
    expect(trips).toHaveLength(2);
    expect(trips[0]!.endTs).toBe(T + (11 * MIN) * 1000);
    expect(trips[1]!.startTs).toBe(T + (22 * MIN + 10) * 1000);
  });

  it('when the data stops during a trip and nothing follows, then the trip closes once the clock passes the gap', () => {
    const records = syntheticDrive(T, [stand(5 * MIN), move(50, 6 * MIN)]);
    expect(detect(records, 50, records.at(-1)!.ts + 10 * 60_000)).toEqual([]);
    expect(detect(records, 50, records.at(-1)!.ts + 10 * 60_000 + 1)).toHaveLength(1);
  });

  it('when a parked vehicle\'s GPS wanders and its speed flickers below 3 km/h, then there is no trip', () => {
    expect(detect(syntheticDrive(T, [stand(3 * 60 * MIN, 2.9)]))).toEqual([]);
  });

  it('when a movement is under a minute or under 0.5 km, then it is discarded', () => {
    expect(detect(syntheticDrive(T, [stand(5 * MIN), move(25, 50), stand(10 * MIN)]))).toEqual([]);
    expect(detect(syntheticDrive(T, [stand(5 * MIN), move(4, 5 * MIN), stand(10 * MIN)]))).toEqual([]);
  });

  it('when the odometer is missing, then distance is the sum of great-circle steps; without a tank capacity, consumption is null', () => {
    const records = syntheticDrive(T, [stand(5 * MIN), move(60, 10 * MIN), stand(10 * MIN)]).map((r) => ({ ...r, odometer: null }));
    const [trip] = detect(records, null) as [DetectedTrip];
    expect(trip.distanceKm).toBeCloseTo(59 / 6, 3);
    expect(trip.startOdometer).toBeNull();
    expect(trip.avgFuelConsumption).toBeNull();
  });

  it('when the detector state is serialized mid-trip and restored, then it finishes the same trips', () => {
    const records = syntheticDrive(T, [stand(5 * MIN), move(45, 10 * MIN), stand(3 * MIN), move(45, 5 * MIN), stand(10 * MIN)]);
    const whole = detect(records);
    const first = new TripDetector(DEFAULT_TRIP_THRESHOLDS, 50);
    const out: DetectedTrip[] = [];
    const cut = 100;
    for (const r of records.slice(0, cut)) { const t = first.push(r); if (t) out.push(t); }
    const second = new TripDetector(DEFAULT_TRIP_THRESHOLDS, 50, JSON.parse(JSON.stringify(first.state)));
    for (const r of records.slice(cut)) { const t = second.push(r); if (t) out.push(t); }
    const last = second.flush(records.at(-1)!.ts + 11 * 60_000);
    if (last) out.push(last);
    expect(out).toEqual(whole);
  });
});
