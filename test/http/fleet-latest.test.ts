import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATAPOINT_NAMES } from '@telematics/contract';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { iso, startTestService, T0, type TestService } from '../support/test-service.js';

const MIN = 60_000;
/** Every datapoint of the contract, in its order: a new datapoint must reach the latest record too. */
const RECORD_FIELDS = DATAPOINT_NAMES;

describe.each(DATABASE_KINDS)('GET /vehicle-data/latest on %s', (kind) => {
  let svc: TestService;
  let alpha: Record<string, string>;
  let beta: Record<string, string>;

  beforeAll(async () => {
    svc = await startTestService(kind);
    alpha = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    beta = { authorization: `Bearer ${await svc.token('beta-ops', SECRETS.betaOps.client)}` };
  });
  afterAll(async () => { await svc?.close(); });

  const latest = (headers = alpha) => svc.request('GET', '/vehicle-data/latest', { headers });
  type Latest = { vin: string; state: string; record: Record<string, unknown> | null };
  const byVin = (body: Latest[]) => new Map(body.map((v) => [v.vin, v] as const));

  it('when no vehicle has reported, then every vehicle of the company is listed by VIN with no_data and no record', async () => {
    const res = await latest();
    expect(res.status).toBe(200);
    expect(res.body).toEqual([...ALPHA_VINS].sort().map((vin) => ({ vin, state: 'no_data', record: null })));
  });

  it('when vehicles report, then each has its newest record (not an older one) with every datapoint it may read, absent ones null', async () => {
    const res0 = await svc.ingest([
      { vin: ALPHA_VINS[0], date_time: iso(T0 - 10 * MIN), speed: 80, rpm: 2500, latitude: -23.5, longitude: -46.6, fuel_level: 40 },
      { vin: ALPHA_VINS[0], date_time: iso(T0 - 2 * MIN), speed: 42.5, rpm: 1900, latitude: -23.51, longitude: -46.61, fuel_level: 39.5, seat_belt_status: 'buckled' },
      { vin: BETA_VINS[0], date_time: iso(T0 - MIN), speed: 0, rpm: 900, fuel_level: 70 },
    ]);
    expect(res0.body.rejected).toEqual([]);
    const res = await latest();
    const first = byVin(res.body).get(ALPHA_VINS[0]) as Latest & { record: Record<string, unknown> };
    expect(first.state).toBe('moving');
    expect(Object.keys(first.record)).toEqual(RECORD_FIELDS);
    expect(first.record).toMatchObject({
      vin: ALPHA_VINS[0], date_time: '2026-11-20 08:58:00', speed: 42.5, rpm: 1900, latitude: -23.51, longitude: -46.61,
      fuel_level: 39.5, seat_belt_status: 'buckled', heading: null, odometer: null, hv_battery_soc: null, event: null, flag: {},
    });
  });

  it('when a vehicle\'s automaker provides only some datapoints, then its record holds only those and the others are absent, not null', async () => {
    // othermotors sends no ingest: its records arrive some other way, written here directly.
    await svc.store.db.insertInto('telemetry').values({ vin: ALPHA_VINS[2], ts: T0 - 3 * MIN, speed: 0, rpm: 700, received_at: T0 }).execute();
    const res = await latest();
    // othermotors provides vin and speed only: no rpm, so standing still reads as parked, not idle.
    expect(byVin(res.body).get(ALPHA_VINS[2])).toEqual({ vin: ALPHA_VINS[2], state: 'parked', record: { vin: ALPHA_VINS[2], speed: 0 } });
  });

  it('when the plan holds only vin, date_time and speed, then the record holds those and the state cannot say idle', async () => {
    const res = await latest(beta);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { vin: BETA_VINS[0], state: 'parked', record: { vin: BETA_VINS[0], date_time: '2026-11-20 08:59:00', speed: 0 } },
      { vin: BETA_VINS[1], state: 'no_data', record: null },
    ]);
  });

  it('when a value was corrected at ingest, then the flag is shown only to a company that may read that datapoint', async () => {
    await svc.ingest([{ vin: BETA_VINS[1], date_time: iso(T0 - MIN), speed: 999, rpm: 'fast' }]);
    const res = await latest(beta);
    expect(byVin(res.body).get(BETA_VINS[1])).toEqual({ vin: BETA_VINS[1], state: 'parked', record: { vin: BETA_VINS[1], date_time: '2026-11-20 08:59:00', speed: null } });
  });

  it('when the vehicle stands with the engine running, then idle; stopped, then parked; silent past the offline threshold, then offline', async () => {
    await svc.ingest([{ vin: ALPHA_VINS[0], date_time: iso(T0 - MIN), speed: 0, rpm: 850 }]);
    expect(byVin((await latest()).body).get(ALPHA_VINS[0])).toMatchObject({ state: 'idle' });
    await svc.ingest([{ vin: ALPHA_VINS[0], date_time: iso(T0), speed: 2, rpm: 0 }]);
    expect(byVin((await latest()).body).get(ALPHA_VINS[0])).toMatchObject({ state: 'parked' });
    svc.clock.advance(15 * MIN + 1000);
    try {
      const res = await latest();
      expect(byVin(res.body).get(ALPHA_VINS[0])).toMatchObject({ state: 'offline', record: { date_time: '2026-11-20 09:00:00', speed: 2 } });
    } finally {
      svc.clock.advance(-(15 * MIN + 1000));
    }
  });

  it('when a flagged value is the newest, then the record carries null and the flag with the value received', async () => {
    await svc.ingest([{ vin: ALPHA_VINS[0], date_time: iso(T0 + 1000), speed: 999, rpm: 800 }]);
    svc.clock.advance(1000);
    try {
      const record = byVin((await latest()).body).get(ALPHA_VINS[0])!.record!;
      expect(record.speed).toBeNull();
      expect(record.flag).toEqual({ speed: expect.objectContaining({ value: 999 }) });
    } finally {
      svc.clock.advance(-1000);
    }
  });

  it('when there is no token or a bad one, then 401 with the interface texts', async () => {
    expect((await latest({})).body).toEqual({ detail: 'Not authenticated.' });
    const res = await latest({ authorization: 'Bearer nope' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid or expired token.' });
  });
});
