import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TRIP_THRESHOLDS } from '../support/trip-settings.js';
import { detectTripsForVin, safeRebuildStart } from '../../src/trips/detect-trips.js';
import { insertTrips, markTripRewind } from '../../src/store/trips-queries.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS } from '../support/fixture-fleet.js';
import { move, stand, syntheticDrive } from '../support/synthetic-drive.js';
import { iso, startTestService, T0, type TestService } from '../support/test-service.js';

const DAY = 86_400_000;
const settings = { thresholds: DEFAULT_TRIP_THRESHOLDS, latenessMs: 60_000 };

describe.each(DATABASE_KINDS)('trips rebuild on %s', (kind) => {
  let svc: TestService;
  beforeAll(async () => { svc = await startTestService(kind); });
  afterAll(async () => { await svc?.close(); });

  it('when asked to rebuild from before the oldest stored telemetry, then older trips are kept and newer ones recomputed', async () => {
    const vin = ALPHA_VINS[0];
    // A trip from 30 days ago whose telemetry is long gone, then a day of data with one drive.
    const old = { startTs: T0 - 30 * DAY, endTs: T0 - 30 * DAY + 600_000, durationSeconds: 600, distanceKm: 7, avgSpeedKmh: 42, maxSpeedKmh: 60, startOdometer: 1, endOdometer: 8, avgFuelConsumption: null, startLatitude: null, startLongitude: null, endLatitude: null, endLongitude: null };
    await insertTrips(svc.store.db, vin, [old], T0);
    const drive = syntheticDrive(T0 - 6 * 3_600_000, [stand(30 * 60), move(50, 15 * 60), stand(30 * 60)]);
    await svc.ingest(drive.map((r) => ({ vin, date_time: iso(r.ts), speed: r.speed, latitude: r.latitude, longitude: r.longitude, odometer: r.odometer })));
    await detectTripsForVin(svc.store, vin, 55, T0, settings);
    const before = await svc.store.db.selectFrom('trips').select(['start_ts', 'end_ts']).where('vin', '=', vin).orderBy('start_ts').execute();
    expect(before).toHaveLength(2);

    const start = await safeRebuildStart(svc.store, vin, T0 - 60 * DAY, settings);
    expect(start).toBeGreaterThan(old.endTs);
    await markTripRewind(svc.store.db, svc.store.capabilities, vin, start!);
    await detectTripsForVin(svc.store, vin, 55, T0, settings);
    const after = await svc.store.db.selectFrom('trips').select(['start_ts', 'end_ts']).where('vin', '=', vin).orderBy('start_ts').execute();
    expect(after).toEqual(before);
  });
});
