import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TRIP_THRESHOLDS } from '../support/trip-settings.js';
import { FleetSimulator } from '../../src/sim/fleet-simulator.js';
import { loadSimulatedFleet } from '../../src/sim/load-simulated-fleet.js';
import { runTripDetectionOnce } from '../../src/trips/trip-worker.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';

const HOURS = 24;

describe.each(DATABASE_KINDS)('trips of the simulated fleet on %s', (kind) => {
  let svc: TestService;
  let simulator: FleetSimulator;
  beforeAll(async () => {
    svc = await startTestService(kind);
    const vehicles = await loadSimulatedFleet(svc.store.db, svc.keyring, T0, HOURS * 3_600_000, 10_000);
    simulator = new FleetSimulator(vehicles, { ingestUrl: svc.url, periodSeconds: 10, glitchRate: 0.002, seed: 77 });
    await simulator.runUntil(T0);
    // Detection runs a little later, as it would in the service.
    svc.clock.advance(2 * 60_000);
    await runTripDetectionOnce(svc.store, svc.clock, { thresholds: DEFAULT_TRIP_THRESHOLDS, latenessMs: 60_000, retentionMs: 90 * 86_400_000, intervalMs: 5000 });
  });
  afterAll(async () => { await svc?.close(); });

  it('when the fleet has driven for a day, then each finished drive of the simulator is one trip of the same distance', async () => {
    let compared = 0;
    for (const vehicle of simulator.vehicles) {
      const drives = simulator.driveLog.filter((d) => d.vin === vehicle.vin);
      const trips = await svc.store.db.selectFrom('trips').selectAll().where('vin', '=', vehicle.vin).orderBy('start_ts').execute();
      expect(trips.length, vehicle.vin).toBe(drives.length);
      trips.forEach((trip, i) => {
        const drive = drives[i]!;
        // The simulator logs a drive from the step it decides to leave (the vehicle still stands)
        // to its arrival (already standing); the trip spans first to last moving record.
        expect(trip.start_ts).toBe(drive.start + 10_000);
        expect(trip.end_ts).toBe(drive.end - 10_000);
        expect(trip.distance_km).toBeCloseTo(trip.end_odometer! - trip.start_odometer!, 9);
        expect(Math.abs(trip.distance_km - drive.distanceKm)).toBeLessThan(0.15);
        compared += 1;
      });
    }
    expect(compared).toBeGreaterThan(10);
  });
});
