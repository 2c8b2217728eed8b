/**
 * What writes events, end to end through the real service: telemetry that carries an event,
 * trips as detection closes them (and detects them again after a rewind), command outcomes.
 * Each fact is one event, however often it is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TripInput } from '../../src/domain/trip-detection.js';
import { DEFAULT_TRIP_THRESHOLDS } from '../support/trip-settings.js';
import { MAX_INGEST_RECORDS } from '@telematics/contract';
import { runPresenceOnce } from '../../src/events/vehicle-presence.js';
import { readEventsAfter, type StoredEvent } from '../../src/store/events-queries.js';
import { runTripDetectionOnce } from '../../src/trips/trip-worker.js';
import { commandClient } from '../support/command-client.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { move, stand, syntheticDrive } from '../support/synthetic-drive.js';
import { iso, startTestService, type TestService } from '../support/test-service.js';

const MIN = 60;
const VIN = ALPHA_VINS[0];
const settings = { thresholds: DEFAULT_TRIP_THRESHOLDS, latenessMs: 60_000, retentionMs: 90 * 86_400_000, intervalMs: 5000 };
const toIngest = (records: readonly TripInput[]) => records.map((r) => ({ vin: VIN, date_time: iso(r.ts), speed: r.speed, latitude: r.latitude, longitude: r.longitude, odometer: r.odometer }));

describe.each(DATABASE_KINDS)('events written by telemetry, trips and commands on %s', (kind) => {
  let svc: TestService;
  let readFrom = 0;
  const newEvents = async (): Promise<StoredEvent[]> => {
    const events = await readEventsAfter(svc.store, readFrom, 10_000);
    if (events.length > 0) readFrom = events.at(-1)!.position;
    return events;
  };

  beforeAll(async () => { svc = await startTestService(kind); });
  afterAll(async () => { await svc?.close(); });

  it('when a record carries an ignition or charging event, then one event per record, and a resend makes none', async () => {
    const at = svc.clock.now() - 30_000;
    const batch = [
      { vin: VIN, date_time: iso(at), speed: 0, event: 'ignition on' },
      { vin: VIN, date_time: iso(at + 1000), speed: 0, event: 'charging plug status change' },
      { vin: VIN, date_time: iso(at + 2000), speed: 0, event: 'something else' },
      { vin: VIN, date_time: iso(at + 3000), speed: 0, event: 'ignition off' },
    ];
    expect((await svc.ingest(batch)).body).toEqual({ accepted: 4, rejected: [] });
    expect((await svc.ingest(batch)).body).toEqual({ accepted: 4, rejected: [] });
    const events = await newEvents();
    expect(events.map((e) => e.type)).toEqual(['vehicle.ignition_on', 'vehicle.charging', 'vehicle.ignition_off']);
    expect(events[0]).toMatchObject({ vin: VIN, companyId: 'alpha', applicationId: null, occurredAt: at - (at % 1000), data: { vin: VIN, event: 'ignition on' } });
  });

  it('when a full batch of records all carry events, then every one is stored with its event', async () => {
    const vin = VIN;
    const at = svc.clock.now() - 3 * 86_400_000;
    const batch = Array.from({ length: MAX_INGEST_RECORDS }, (_, i) => ({ vin, date_time: iso(at + i * 1000), event: i % 2 === 0 ? 'ignition on' : 'ignition off' }));
    expect((await svc.ingest(batch)).body).toEqual({ accepted: MAX_INGEST_RECORDS, rejected: [] });
    const events = (await newEvents()).filter((e) => e.vin === vin);
    expect(events).toHaveLength(MAX_INGEST_RECORDS);
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(['vehicle.ignition_on', 'vehicle.ignition_off']);
    expect((await svc.ingest(batch)).body.accepted).toBe(MAX_INGEST_RECORDS);
    expect(await newEvents()).toEqual([]);
  });

  it('when a record resent with an event was first stored without one, then no event: events follow what is stored', async () => {
    const at = svc.clock.now() - 20_000;
    expect((await svc.ingest([{ vin: VIN, date_time: iso(at), speed: 0 }])).body.accepted).toBe(1);
    expect((await svc.ingest([{ vin: VIN, date_time: iso(at), speed: 0, event: 'ignition on' }])).body.accepted).toBe(1);
    expect(await newEvents()).toEqual([]);
  });

  it('when detection opens and closes a trip, then trip.started says where it began and trip.ended carries the whole trip record; detected again after a rewind, still one of each', async () => {
    const start = svc.clock.now() - 60 * MIN * 1000;
    const drive = syntheticDrive(start, [stand(5 * MIN), move(60, 20 * MIN), stand(20 * MIN)]);
    expect((await svc.ingest(toIngest(drive))).body.rejected).toEqual([]);
    svc.clock.advance(30 * MIN * 1000);
    await runTripDetectionOnce(svc.store, svc.clock, settings, { expire: false });
    const [started, ended, ...rest] = await newEvents();
    expect(rest).toEqual([]);
    expect(ended).toMatchObject({ type: 'trip.ended', vin: VIN, companyId: 'alpha', applicationId: null });
    const trip = (await svc.store.db.selectFrom('trips').selectAll().where('vin', '=', VIN).executeTakeFirstOrThrow());
    expect(ended!.occurredAt).toBe(Number(trip.end_ts));
    // trip.started: when and where it began, the same instant and place as the trip's start.
    expect(started).toMatchObject({ type: 'trip.started', vin: VIN, companyId: 'alpha', applicationId: null, occurredAt: Number(trip.start_ts) });
    const endedData = ended!.data as Record<string, unknown>;
    expect(started!.data).toEqual({
      vin: VIN, start_date_time: endedData['start_date_time'], start_odometer: endedData['start_odometer'],
      start_latitude: endedData['start_latitude'], start_longitude: endedData['start_longitude'],
    });
    expect(Object.keys(ended!.data as object)).toEqual([
      'vin', 'start_date_time', 'end_date_time', 'duration', 'avg_speed', 'max_speed', 'start_odometer', 'end_odometer',
      'distance', 'avg_fuel_consumption', 'start_latitude', 'start_longitude', 'end_latitude', 'end_longitude',
    ]);
    expect((ended!.data as { vin: string; distance: number }).vin).toBe(VIN);
    expect((ended!.data as { distance: number }).distance).toBeCloseTo(20, 0);

    // A late record inside the trip: detection rewinds, deletes and finds the same trip again.
    const middle = drive[Math.floor(drive.length / 2)]!;
    expect((await svc.ingest([{ vin: VIN, date_time: iso(middle.ts + 5000), speed: 60 }])).body.rejected).toEqual([]);
    await runTripDetectionOnce(svc.store, svc.clock, settings, { expire: false });
    expect((await svc.store.db.selectFrom('trips').select('start_ts').where('vin', '=', VIN).execute())).toHaveLength(1);
    expect(await newEvents()).toEqual([]);
  });

  it('when a command reaches its outcome, then command.succeeded carries GET /vehicle-command/{id}\'s answer for its application', async () => {
    await svc.useSimulatedCloud({ latencyMs: [0, 0] });
    const client = commandClient(svc, await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client), SECRETS.alphaDispatch.sign);
    const created = await client.send({ vin: VIN, command: 'diagnostics' });
    expect(created.status).toBe(200);
    svc.clock.advance(2000);
    await svc.worker.runOnce();
    const status = await client.status(created.body.id);
    expect(status.body.status).toBe('Success');
    const events = await newEvents();
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe('command.succeeded');
    expect(events[0]!.data).toEqual(status.body);
    const app = await svc.store.db.selectFrom('applications').select('id').where('client_id', '=', 'alpha-dispatch').executeTakeFirstOrThrow();
    expect(events[0]!.applicationId).toBe(app.id);
  });
});

describe.each(DATABASE_KINDS)('vehicle.online and vehicle.offline on %s', (kind) => {
  let svc: TestService;
  const presence = { offlineAfterMs: 15 * MIN * 1000 };
  const types = async (after = 0) => (await readEventsAfter(svc.store, after, 1000)).map((e) => `${e.type} ${e.vin}`);
  beforeAll(async () => { svc = await startTestService(kind); });
  afterAll(async () => { await svc?.close(); });

  it('when a vehicle starts sending, falls silent for longer than the threshold, and comes back, then each change is one event', async () => {
    expect(await runPresenceOnce(svc.store, svc.clock.now(), presence)).toEqual({ online: 0, offline: 0 });
    expect(await types()).toEqual([]);

    await svc.ingest([{ vin: VIN, date_time: iso(svc.clock.now() - 1000), speed: 0 }]);
    expect(await runPresenceOnce(svc.store, svc.clock.now(), presence)).toEqual({ online: 1, offline: 0 });
    expect(await runPresenceOnce(svc.store, svc.clock.now(), presence)).toEqual({ online: 0, offline: 0 });

    svc.clock.advance(14 * MIN * 1000);
    expect(await runPresenceOnce(svc.store, svc.clock.now(), presence)).toEqual({ online: 0, offline: 0 });
    svc.clock.advance(2 * MIN * 1000);
    expect(await runPresenceOnce(svc.store, svc.clock.now(), presence)).toEqual({ online: 0, offline: 1 });

    await svc.ingest([{ vin: VIN, date_time: iso(svc.clock.now()), speed: 0 }]);
    expect(await runPresenceOnce(svc.store, svc.clock.now(), presence)).toEqual({ online: 1, offline: 0 });
    expect(await types()).toEqual([`vehicle.online ${VIN}`, `vehicle.offline ${VIN}`, `vehicle.online ${VIN}`]);
    const [first] = await readEventsAfter(svc.store, 0, 1);
    expect(first).toMatchObject({ companyId: 'alpha', data: { vin: VIN } });
  });

  it('when two processes run the pass at once, then a change is still one event', async () => {
    svc.clock.advance(20 * MIN * 1000);
    const before = (await types()).length;
    const passes = await Promise.all([0, 1, 2].map(() => runPresenceOnce(svc.store, svc.clock.now(), presence)));
    expect(passes.reduce((n, p) => n + p.offline, 0)).toBe(1);
    expect((await types()).slice(before)).toEqual([`vehicle.offline ${VIN}`]);
  });
});

describe.each(DATABASE_KINDS)('a trip changed by late records on %s', (kind) => {
  let svc: TestService;
  beforeAll(async () => { svc = await startTestService(kind); });
  afterAll(async () => { await svc?.close(); });

  it('when buffered records extend a trip already ended, then the extended trip is a second trip.ended with the same start, which receivers key trips by', async () => {
    const start = svc.clock.now() - 60 * MIN * 1000;
    const drive = syntheticDrive(start, [stand(2 * MIN), move(60, 25 * MIN), stand(10 * MIN)]);
    const cut = start + 12 * MIN * 1000;
    expect((await svc.ingest(toIngest(drive.filter((r) => r.ts <= cut)))).body.rejected).toEqual([]);
    await runTripDetectionOnce(svc.store, svc.clock, settings, { expire: false });
    expect((await svc.ingest(toIngest(drive.filter((r) => r.ts > cut)))).body.rejected).toEqual([]);
    await runTripDetectionOnce(svc.store, svc.clock, settings, { expire: false });

    const ended = (await readEventsAfter(svc.store, 0, 100)).filter((e) => e.type === 'trip.ended').map((e) => e.data as Record<string, unknown>);
    expect(ended).toHaveLength(2);
    expect(ended[1]!.start_date_time).toBe(ended[0]!.start_date_time);
    expect(Number(ended[1]!.distance)).toBeGreaterThan(Number(ended[0]!.distance));
    const trips = await svc.store.db.selectFrom('trips').select(['start_ts', 'distance_km']).where('vin', '=', VIN).execute();
    expect(trips).toHaveLength(1);
    expect(ended[1]!.distance).toBeCloseTo(Number(trips[0]!.distance_km), 3);
  });
});
