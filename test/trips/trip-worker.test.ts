import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TripInput } from '../../src/domain/trip-detection.js';
import { DEFAULT_TRIP_THRESHOLDS } from '../support/trip-settings.js';
import { runTripDetectionOnce } from '../../src/trips/trip-worker.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS } from '../support/fixture-fleet.js';
import { move, stand, syntheticDrive } from '../support/synthetic-drive.js';
import { iso, startTestService, T0, type TestService } from '../support/test-service.js';

const MIN = 60;
const settings = { thresholds: DEFAULT_TRIP_THRESHOLDS, latenessMs: 60_000, retentionMs: 90 * 86_400_000, intervalMs: 5000 };
const toIngest = (vin: string, records: readonly TripInput[]) => records.map((r) => ({
  vin, date_time: iso(r.ts), speed: r.speed, latitude: r.latitude, longitude: r.longitude, odometer: r.odometer, fuel_level: r.fuelLevel,
}));

describe.each(DATABASE_KINDS)('trip worker passes on %s', (kind) => {
  let svc: TestService;
  const vin = ALPHA_VINS[0];
  const detect = () => runTripDetectionOnce(svc.store, svc.clock, settings, { expire: false });
  const cursors = () => svc.store.db.selectFrom('trip_cursors').select(['vin', 'processed_until', 'updated_at']).orderBy('vin').execute();
  const tripCount = async () => (await svc.store.db.selectFrom('trips').select('start_ts').where('vin', '=', vin).execute()).length;

  beforeAll(async () => { svc = await startTestService(kind); });
  afterAll(async () => { await svc?.close(); });

  it('when the fleet has nothing new, then a pass touches no vehicle and rewrites no cursor', async () => {
    // A registered vehicle that never reported is not the trip worker's business: no cursor.
    expect(await detect()).toEqual({ vehicles: 0, records: 0, trips: 0, expired: 0, changed: 0 });
    expect(await cursors()).toEqual([]);

    svc.clock.advance(5000);
    expect(await detect()).toEqual({ vehicles: 0, records: 0, trips: 0, expired: 0, changed: 0 });
    expect(await cursors()).toEqual([]);
  });

  it('when one vehicle drives, then only it is visited, and once its data stops, time alone closes the trip', async () => {
    // Parked, then 20 minutes at 60 km/h that are still going on at the horizon.
    const start = svc.clock.now() - 40 * MIN * 1000;
    const drive = syntheticDrive(start, [stand(10 * MIN), move(60, 25 * MIN)]);
    expect((await svc.ingest(toIngest(vin, drive))).body.rejected).toEqual([]);

    const fed = await detect();
    expect(fed.vehicles).toBe(1);
    expect(fed.records).toBeGreaterThan(0);
    expect(await tripCount()).toBe(0);

    // The trip stays open with no new data, within the gap threshold: nothing to do, nothing rewritten.
    const before = await cursors();
    svc.clock.advance(5000);
    expect(await detect()).toEqual({ vehicles: 0, records: 0, trips: 0, expired: 0, changed: 1 });
    expect(await cursors()).toEqual(before);

    // Data stopped long enough: the pass closes the trip, then the vehicle is idle again.
    svc.clock.advance(30 * MIN * 1000);
    expect(await detect()).toMatchObject({ vehicles: 1, trips: 1 });
    expect(await tripCount()).toBe(1);
    svc.clock.advance(5000);
    expect((await detect()).vehicles).toBe(0);
  });

  it('when a record arrives behind the cursor, then the next pass visits that vehicle and rewinds', async () => {
    const cursor = (await cursors()).find((c) => c.vin === vin)!;
    const late = Number(cursor.processed_until) - 30 * MIN * 1000;
    // A stop record inside the trip already detected: detection rewinds and finds the same trip.
    expect((await svc.ingest([{ vin, date_time: iso(late + 5000), speed: 60 }])).body.rejected).toEqual([]);
    const pass = await detect();
    expect(pass.vehicles).toBe(1);
    expect(await tripCount()).toBe(1);
    svc.clock.advance(5000);
    expect((await detect()).vehicles).toBe(0);
  });
});
