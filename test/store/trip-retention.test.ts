import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TRIP_THRESHOLDS } from '../support/trip-settings.js';
import { insertTrips } from '../../src/store/trips-queries.js';
import { runTripDetectionOnce } from '../../src/trips/trip-worker.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS } from '../support/fixture-fleet.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';

const DAY = 86_400_000;
const trip = (endTs: number) => ({
  startTs: endTs - 600_000, endTs, durationSeconds: 600, distanceKm: 5, avgSpeedKmh: 30, maxSpeedKmh: 50,
  startOdometer: 1, endOdometer: 6, avgFuelConsumption: null, startLatitude: null, startLongitude: null, endLatitude: null, endLongitude: null,
});

describe.each(DATABASE_KINDS)('trip retention on %s', (kind) => {
  let svc: TestService;
  beforeAll(async () => { svc = await startTestService(kind); });
  afterAll(async () => { await svc?.close(); });

  it('when a pass runs, then trips that ended more than 90 days ago go and younger ones stay', async () => {
    await insertTrips(svc.store.db, ALPHA_VINS[0], [trip(T0 - 91 * DAY), trip(T0 - 90 * DAY + 1000), trip(T0 - DAY)], T0);
    const report = await runTripDetectionOnce(svc.store, svc.clock, { thresholds: DEFAULT_TRIP_THRESHOLDS, latenessMs: 60_000, retentionMs: 90 * DAY, intervalMs: 5000 });
    expect(report.expired).toBe(1);
    const left = await svc.store.db.selectFrom('trips').select('end_ts').where('vin', '=', ALPHA_VINS[0]).orderBy('end_ts').execute();
    expect(left.map((r) => r.end_ts)).toEqual([T0 - 90 * DAY + 1000, T0 - DAY]);
  });
});
