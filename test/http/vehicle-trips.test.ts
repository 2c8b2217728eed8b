import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TripInput } from '../../src/domain/trip-detection.js';
import { DEFAULT_TRIP_THRESHOLDS } from '../support/trip-settings.js';
import { formatIsoLocal } from '../../src/domain/time.js';
import { runTripDetectionOnce } from '../../src/trips/trip-worker.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { move, stand, syntheticDrive } from '../support/synthetic-drive.js';
import { iso, startTestService, T0, type TestService } from '../support/test-service.js';

const MIN = 60;
const HOUR = 3_600_000;
/** 2026-11-19 13:00 at -03:00: three trips that afternoon, the second with a short stop inside. */
const DAY_START = T0 - 20 * HOUR;
const AFTERNOON = [
  stand(30 * MIN), move(60, 20 * MIN), stand(60 * MIN), move(40, 15 * MIN), stand(3 * MIN), move(40, 10 * MIN),
  stand(120 * MIN), move(50, 10 * MIN), stand(30 * MIN),
];
const settings = { thresholds: DEFAULT_TRIP_THRESHOLDS, latenessMs: 60_000, retentionMs: 90 * 24 * HOUR, intervalMs: 5000 };
const ALL = ['start_date_time', 'end_date_time', 'duration', 'avg_speed', 'max_speed', 'start_odometer', 'end_odometer', 'distance', 'avg_fuel_consumption', 'start_latitude', 'start_longitude', 'end_latitude', 'end_longitude'];

const toIngest = (vin: string, records: readonly TripInput[]) => records.map((r) => ({
  vin, date_time: iso(r.ts), speed: r.speed, latitude: r.latitude, longitude: r.longitude, odometer: r.odometer, fuel_level: r.fuelLevel,
}));

describe.each(DATABASE_KINDS)('trips on %s', (kind) => {
  let svc: TestService;
  let alpha: Record<string, string>;
  let beta: Record<string, string>;
  const drive = syntheticDrive(DAY_START, AFTERNOON);

  const detect = () => runTripDetectionOnce(svc.store, svc.clock, settings);
  const query = (body: unknown, headers = alpha) => svc.request('POST', '/vehicle-trips', { json: body, headers });
  const tripsOf = async (vin: string, headers = alpha) => (await query({ vins: [vin], datapoints: ALL }, headers)).body[vin];

  beforeAll(async () => {
    svc = await startTestService(kind);
    alpha = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    beta = { authorization: `Bearer ${await svc.token('beta-ops', SECRETS.betaOps.client)}` };
    // In order, in batches of 500, detecting after each batch as the service would.
    const records = toIngest(ALPHA_VINS[0], drive);
    for (let i = 0; i < records.length; i += 500) {
      expect((await svc.ingest(records.slice(i, i + 500))).body.rejected).toEqual([]);
      await detect();
    }
  });
  afterAll(async () => { await svc?.close(); });

  it('when the afternoon is detected, then three trips come back with every field in its format', async () => {
    const trips = await tripsOf(ALPHA_VINS[0]);
    expect(trips).toHaveLength(3);
    expect(trips[0]).toEqual({
      start_date_time: '2026-11-19T13:30:10', end_date_time: '2026-11-19T13:50:00', duration: '00:19:50',
      avg_speed: 60, max_speed: 60, start_odometer: expect.any(Number), end_odometer: expect.any(Number),
      // Fuel falls 0.2 % of this vehicle's 55 l tank per km: 1 / 0.11 l = 9.09 km/l.
      distance: 19.833, avg_fuel_consumption: 9.09, start_latitude: expect.any(Number), start_longitude: expect.any(Number),
      end_latitude: expect.any(Number), end_longitude: expect.any(Number),
    });
    expect(trips[0].end_odometer - trips[0].start_odometer).toBeCloseTo(19.833, 3);
    // The 3-minute stop stays inside the second trip.
    expect(trips[1]).toMatchObject({ start_date_time: '2026-11-19T14:50:10', end_date_time: '2026-11-19T15:18:00', duration: '00:27:50' });
    expect(trips[2]).toMatchObject({ start_date_time: '2026-11-19T17:18:10', duration: '00:09:50' });
  });

  it('when only some fields are asked for, then each trip holds exactly those, in that order', async () => {
    const res = await query({ vins: [ALPHA_VINS[0], ALPHA_VINS[1]], datapoints: ['distance', 'vin', 'duration'] });
    expect(Object.keys(res.body)).toEqual([ALPHA_VINS[0], ALPHA_VINS[1]]);
    expect(res.body[ALPHA_VINS[1]]).toEqual([]);
    for (const t of res.body[ALPHA_VINS[0]]) expect(Object.keys(t)).toEqual(['distance', 'vin', 'duration']);
  });

  it('when the period touches a trip at either end, then the trip is selected (overlap, inclusive)', async () => {
    const [first] = await tripsOf(ALPHA_VINS[0]);
    const startMs = Date.parse(`${first.start_date_time}-03:00`);
    const endMs = Date.parse(`${first.end_date_time}-03:00`);
    const count = async (start: number, end: number) =>
      (await query({ vins: [ALPHA_VINS[0]], datapoints: ['start_date_time'], start_date: formatIsoLocal(start), end_date: formatIsoLocal(end) })).body[ALPHA_VINS[0]].length;
    expect(await count(startMs - 3600_000, startMs)).toBe(1);
    expect(await count(startMs - 3600_000, startMs - 1000)).toBe(0);
    expect(await count(endMs, endMs + 60_000)).toBe(1);
    expect(await count(endMs + 1000, endMs + 60_000)).toBe(0);
    expect(await count(startMs + 60_000, startMs + 120_000)).toBe(1);
  });

  it('when dates are date-only, then a start means T00:00:00 and an end T23:59:59 at -03:00', async () => {
    const n = async (dates: object) => (await query({ vins: [ALPHA_VINS[0]], datapoints: ['duration'], ...dates })).body[ALPHA_VINS[0]].length;
    expect(await n({ start_date: '2026-11-19', end_date: '2026-11-19' })).toBe(3);
    expect(await n({ start_date: '2026-11-20' })).toBe(0);
    expect(await n({ end_date: '2026-11-18' })).toBe(0);
    expect(await n({ start_date: '2026-11-19T17:00:00', end_date: '2026-11-19' })).toBe(1);
    expect(await n({})).toBe(3);
  });

  it.each([
    [{ vins: [BETA_VINS[0]], datapoints: ['duration'] }, 404, 'VIN not found or unauthorized access.'],
    [{ vins: [ALPHA_VINS[0]], datapoints: ['duration', 'top_speed'] }, 400, 'Unknown datapoint: top_speed.'],
    [{ vins: Array.from({ length: 101 }, (_, i) => `9BWZZZ377VT${300000 + i}`), datapoints: ['duration'] }, 400, 'Too many VINs provided. Maximum allowed is 100.'],
    [{ vins: [ALPHA_VINS[0]], datapoints: ['duration'], start_date: '2026-11-19T12:00:00', end_date: '2026-11-19T11:00:00' }, 400, 'start_date is greater than end_date.'],
    [{ vins: [ALPHA_VINS[0]], datapoints: ['duration'], start_date: 'last week' }, 400, 'Invalid start_date: use YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS or YYYY-MM-DDTHH:MM:SS±HH:MM.'],
    [{ vins: [ALPHA_VINS[0]] }, 400, 'Invalid request: body must have required property \'datapoints\'.'],
    [{ vins: [ALPHA_VINS[0]], datapoints: ['__proto__'] }, 400, 'Unknown datapoint: __proto__.'],
    [{ vins: [ALPHA_VINS[0]], datapoints: ['constructor'] }, 400, 'Unknown datapoint: constructor.'],
    [{ vins: [ALPHA_VINS[0]], datapoints: ['valueOf'] }, 400, 'Unknown datapoint: valueOf.'],
  ])('when the request is %j, then %i %s', async (body, status, detail) => {
    expect(await query(body)).toMatchObject({ status, body: { detail } });
  });

  it('when another company asks for the trips, then it gets 404, and its own VINs hold none of them', async () => {
    expect((await query({ vins: [ALPHA_VINS[0]], datapoints: ['duration'] }, beta)).status).toBe(404);
    expect((await query({ vins: [BETA_VINS[0]], datapoints: ['duration'] }, beta)).body).toEqual({ [BETA_VINS[0]]: [] });
  });

  it('when the same afternoon arrives out of order, late, and in pieces, then detection finds the same trips', async () => {
    const records = toIngest(ALPHA_VINS[1], drive);
    // The second half first, detected; then the first half, late; then a shuffled resend of everything.
    const half = Math.floor(records.length / 2);
    await svc.ingest(records.slice(half, half + 500));
    await detect();
    await svc.ingest(records.slice(half + 500));
    await detect();
    for (let i = 0; i < half; i += 400) {
      await svc.ingest(records.slice(i, Math.min(half, i + 400)).reverse());
      await detect();
    }
    await detect();
    // ALPHA_VINS[1] has the same tank as ALPHA_VINS[0], so every field must match.
    expect(await tripsOf(ALPHA_VINS[1])).toEqual(await tripsOf(ALPHA_VINS[0]));
  });

  it('when a vehicle loses coverage mid-trip and uploads its buffered records after the gap closed the trip, then it is still one trip', async () => {
    const vin = BETA_VINS[1];
    const start = T0 - 3 * HOUR;
    const records = toIngest(vin, syntheticDrive(start, [stand(10 * MIN), move(50, 20 * MIN), stand(10 * MIN)]));
    const cut = start + 17 * 60_000;
    const clockWas = svc.clock.t;
    try {
      // Live until minute 17, then silence: 13 minutes later the open trip is closed by the gap rule.
      svc.clock.t = cut;
      await svc.ingest(records.filter((r) => Date.parse(r.date_time) <= cut));
      await detect();
      svc.clock.t = cut + 13 * 60_000;
      await detect();
      expect(await svc.store.db.selectFrom('trips').select('start_ts').where('vin', '=', vin).execute()).toHaveLength(1);
      // Then the buffered minutes arrive, and the rest of the drive.
      svc.clock.t = start + 45 * 60_000;
      await svc.ingest(records.filter((r) => Date.parse(r.date_time) > cut));
      await detect();
    } finally {
      svc.clock.t = clockWas;
    }
    await detect();
    const trips = await svc.store.db.selectFrom('trips').select(['start_ts', 'end_ts']).where('vin', '=', vin).execute();
    expect(trips).toEqual([{ start_ts: start + (10 * MIN + 10) * 1000, end_ts: start + 30 * MIN * 1000 }]);
  });

  it('when detection stops mid-trip and starts again (a restart), then no trip is lost or doubled', async () => {
    const records = toIngest(BETA_VINS[0], drive);
    const middleOfFirstTrip = DAY_START + 40 * 60_000;
    const clockWas = svc.clock.t;
    svc.clock.t = middleOfFirstTrip;
    try {
      await svc.ingest(records.filter((r) => Date.parse(r.date_time) <= middleOfFirstTrip));
      await detect();
      const cursor = await svc.store.db.selectFrom('trip_cursors').selectAll().where('vin', '=', BETA_VINS[0]).executeTakeFirstOrThrow();
      expect(JSON.parse(cursor.state).trip).not.toBeNull();
    } finally {
      svc.clock.t = clockWas;
    }
    await svc.ingest(records.filter((r) => Date.parse(r.date_time) > middleOfFirstTrip));
    await detect();
    await detect();
    const all = await svc.store.db.selectFrom('trips').select(['start_ts', 'end_ts', 'distance_km']).where('vin', '=', BETA_VINS[0]).orderBy('start_ts').execute();
    const reference = await svc.store.db.selectFrom('trips').select(['start_ts', 'end_ts', 'distance_km']).where('vin', '=', ALPHA_VINS[0]).orderBy('start_ts').execute();
    expect(all).toEqual(reference);
  });
});
