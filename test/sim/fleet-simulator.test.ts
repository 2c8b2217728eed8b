import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distanceKm } from '../../src/domain/geo.js';
import { FleetSimulator } from '../../src/sim/fleet-simulator.js';
import { loadSimulatedFleet } from '../../src/sim/load-simulated-fleet.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';

const HOURS = 12;
const PERIOD_S = 10;

describe.each(DATABASE_KINDS)('simulated fleet through ingest on %s', (kind) => {
  let svc: TestService;
  let simulator: FleetSimulator;
  let report: Awaited<ReturnType<FleetSimulator['runUntil']>>;

  beforeAll(async () => {
    svc = await startTestService(kind);
    const vehicles = await loadSimulatedFleet(svc.store.db, svc.keyring, T0, HOURS * 3_600_000, PERIOD_S * 1000);
    simulator = new FleetSimulator(vehicles, { ingestUrl: svc.url, periodSeconds: PERIOD_S, glitchRate: 0.01, seed: 42 });
    report = await simulator.runUntil(T0);
  });
  afterAll(async () => { await svc?.close(); });

  const rows = (vin: string) => svc.store.db.selectFrom('telemetry').selectAll().where('vin', '=', vin).orderBy('ts').execute();

  it('when it backfills, then it simulates every vehicle of a sim OEM and ingest rejects nothing', async () => {
    expect(simulator.vehicles.map((v) => v.vin).sort()).toEqual([ALPHA_VINS[0], ALPHA_VINS[1], BETA_VINS[0], BETA_VINS[1]].sort());
    const expected = 4 * (HOURS * 360 + 1);
    expect(report).toEqual({ records: expected, accepted: expected, rejected: 0 });
  });

  it('when glitches are injected, then ingest flags them and stores the value as null', async () => {
    const flagged = (await rows(ALPHA_VINS[0])).filter((r) => r.flag !== null);
    expect(flagged.length).toBeGreaterThan(10);
    for (const r of flagged) {
      const flag = JSON.parse(r.flag!) as Record<string, { flag: string }>;
      for (const [name, entry] of Object.entries(flag)) {
        expect(['out of range', 'invalid type']).toContain(entry.flag);
        expect((r as Record<string, unknown>)[name]).toBeNull();
      }
    }
  });

  it.each([...ALPHA_VINS.slice(0, 2), ...BETA_VINS])('when %s is read back, then its odometer never falls and matches the distance between positions', async (vin) => {
    const data = (await rows(vin)).filter((r) => r.flag === null);
    let moved = 0;
    for (let i = 1; i < data.length; i += 1) {
      const [a, b] = [data[i - 1]!, data[i]!];
      expect(b.odometer!).toBeGreaterThanOrEqual(a.odometer!);
      const odo = b.odometer! - a.odometer!;
      const gps = distanceKm({ lat: a.latitude!, lon: a.longitude! }, { lat: b.latitude!, lon: b.longitude! });
      // Positions carry ~2 m of GPS noise each; consecutive samples may skip a glitched one.
      expect(Math.abs(gps - odo)).toBeLessThan(0.01 + 0.005 * ((b.ts - a.ts) / 10_000));
      expect(odo).toBeLessThanOrEqual((120 * (b.ts - a.ts)) / 3_600_000 + 0.001);
      moved += odo;
    }
    expect(moved).toBeGreaterThan(1);
  });

  it('when drives are logged by the simulator, then the stored odometer covers the same distance', async () => {
    const drives = simulator.driveLog.filter((d) => d.vin === ALPHA_VINS[0]);
    expect(drives.length).toBeGreaterThan(0);
    const data = (await rows(ALPHA_VINS[0])).filter((r) => r.odometer !== null);
    const odometerAt = (t: number) => data.find((r) => r.ts >= t)!.odometer!;
    for (const d of drives) expect(odometerAt(d.end) - odometerAt(d.start)).toBeCloseTo(d.distanceKm, 1);
  });

  it('when the API is asked for simulated data, then it serves it', async () => {
    const token = await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client);
    const res = await svc.request('POST', '/vehicle-data', {
      json: { vins: [ALPHA_VINS[0]], datapoints: ['date_time', 'speed', 'fuel_level', 'odometer'], start_date: '2026-11-20T08:00:00' },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(res.body[ALPHA_VINS[0]]).toHaveLength(361);
  });

  it('when the simulator restarts, then each vehicle resumes from its stored position and odometer', async () => {
    const last = (await rows(ALPHA_VINS[0])).filter((r) => r.odometer !== null && r.latitude !== null).at(-1)!;
    const resumed = await loadSimulatedFleet(svc.store.db, svc.keyring, T0 + 60_000, HOURS * 3_600_000, PERIOD_S * 1000);
    const vehicle = resumed.find((v) => v.start.vin === ALPHA_VINS[0])!;
    expect(vehicle.from).toBe(T0 + PERIOD_S * 1000);
    expect(vehicle.start.resume).toMatchObject({ odometerKm: last.odometer, position: { lat: last.latitude, lon: last.longitude } });
  });
});
