/**
 * Geofence events end to end (D13), on synthetic tracks sent through the real HTTP ingest and a
 * real Teltonika socket, judged by the evaluator's pass over the store, read back from the
 * outbox and the event feed: a parked vehicle with GPS jitter enters once and never leaves, a
 * drive through enters and exits once, sparse positions across a fence cross it, buffered history
 * gives events marked late.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DRIFT_RULES } from '../../src/domain/geofences/judge-fence.js';
import { CompanyFenceSets } from '../../src/geofences/company-fence-sets.js';
import { GeofenceFollower, runGeofenceWatchOnce } from '../../src/geofences/geofence-watch.js';
import { TeltonikaTrackerClient } from '../../src/gateway/teltonika/simulated-client.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { DEPOT, driveThrough, offset, parkedWithJitter, sparseAcross, type TrackPosition } from '../support/geofence-tracks.js';
import { iso, startTestService, type TestService } from '../support/test-service.js';
import { avlRecord, TRACKED, trackerFleet } from '../support/tracker-fleet.js';
import { scaled } from '../support/timeouts.js';

const SETTINGS = { rules: DEFAULT_DRIFT_RULES, latenessMs: 60_000, movingSpeedKmh: 3 };
/** Each scenario far from the others' fences (30 km apart), so a vehicle only meets its own. */
const place = (n: number) => offset(DEPOT, n * 30_000, 0);

describe.each(DATABASE_KINDS)('geofence events on %s', (kind) => {
  let svc: TestService;
  let auth: Record<string, string> = {};
  let follower: GeofenceFollower;
  const trackers: TeltonikaTrackerClient[] = [];

  beforeAll(async () => {
    svc = await startTestService(kind, trackerFleet(), { gateway: true });
    follower = new GeofenceFollower(svc.store, new CompanyFenceSets(svc.store));
  });
  afterAll(async () => {
    for (const t of trackers) t.close();
    await svc?.close();
  });

  const circle = async (name: string, center: { lat: number; lon: number }, radiusM: number): Promise<string> => {
    // The test clock has moved on since the last token: a fresh one.
    auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const res = await svc.request('POST', '/geofences', { json: { name, geometry: { type: 'Point', coordinates: [center.lon, center.lat] }, radius_m: radiusM }, headers: auth });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return (res.body as { id: string }).id;
  };
  const watch = () => runGeofenceWatchOnce(svc.store, svc.clock, SETTINGS, follower);
  const eventsOf = async (vin: string, geofenceId: string) => (await svc.store.db.selectFrom('events').select(['id', 'type', 'data', 'occurred_at']).where('vin', '=', vin).where('type', 'like', 'geofence.%').orderBy('seq').execute())
    .map((e) => ({ ...e, data: JSON.parse(e.data) as Record<string, unknown> }))
    .filter((e) => e.data['geofence_id'] === geofenceId);
  const ingestLive = async (vin: string, track: readonly TrackPosition[], perBatch: number) => {
    for (let i = 0; i < track.length; i += perBatch) {
      const batch = track.slice(i, i + perBatch);
      svc.clock.t = batch.at(-1)!.ts + 1000;
      const res = await svc.ingest(batch.map((p) => ({ vin, date_time: iso(p.ts), latitude: p.lat, longitude: p.lon, speed: p.speed })));
      expect(res.body).toMatchObject({ accepted: batch.length, rejected: [] });
      await watch();
    }
  };

  it('when a vehicle parks for an hour 60 m from the centre of a 100 m circle with ±40 m jitter, sent live through the ingest, then one geofence.entered and no exit', async () => {
    const center = place(1);
    const id = await circle('Depot', center, 100);
    const start = svc.clock.now() + 60_000;
    await ingestLive(ALPHA_VINS[0], parkedWithJitter(start, center, 60, 40, 3600), 3);
    const events = await eventsOf(ALPHA_VINS[0], id);
    expect(events.map((e) => e.type)).toEqual(['geofence.entered']);
    expect(events[0]!.data).toMatchObject({ vin: ALPHA_VINS[0], geofence_id: id, geofence_name: 'Depot', late: false });
    expect(Number(events[0]!.occurred_at) - start).toBeGreaterThanOrEqual(30_000);

    auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const feed = await svc.request('GET', `/events?types=geofence.entered&vin=${ALPHA_VINS[0]}`, { headers: auth });
    expect(feed.status).toBe(200);
    expect((feed.body as { data: { id: string }[] }).data.map((e) => e.id)).toEqual([events[0]!.id]);
  });

  it('when a tracker drives through a 500 m circle, sent live over a Teltonika socket, then exactly one entered and one exited', async () => {
    const center = place(2);
    const id = await circle('Yard', center, 500);
    const t = new TeltonikaTrackerClient({ host: '127.0.0.1', port: svc.gateway!.listening.teltonika!.port, imei: TRACKED.teltonika.imei, responseTimeoutMs: scaled(5000) });
    trackers.push(t);
    await t.connect();
    const track = driveThrough(svc.clock.now() + 60_000, center, 1500, 36);
    for (let i = 0; i < track.length; i += 6) {
      const batch = track.slice(i, i + 6);
      svc.clock.t = batch.at(-1)!.ts + 1000;
      expect(await t.send(batch.map((p) => avlRecord(p.ts, { lat: p.lat, lon: p.lon, speed: p.speed })))).toBe(batch.length);
      await watch();
    }
    const events = await eventsOf(TRACKED.teltonika.vin, id);
    expect(events.map((e) => [e.type, e.data['late']])).toEqual([['geofence.entered', false], ['geofence.exited', false]]);

    // The same track tried over history: the very events the live evaluator wrote, by id.
    auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const saved = await svc.request('POST', '/geofences/preview', { json: { geofence_id: id, vins: [TRACKED.teltonika.vin], days: 1 }, headers: auth });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const answer = saved.body as { events: { id: string; type: string; data: Record<string, unknown> }[]; vehicles: number; truncated: boolean; geofence_id: string };
    expect(answer).toMatchObject({ vehicles: 1, truncated: false, geofence_id: id });
    expect(answer.events.map((e) => [e.id, e.type, e.data])).toEqual(events.map((e) => [e.id, e.type, e.data]));
    // A fence not saved yet, drawn the same: the same transitions at the same records.
    const drawn = await svc.request('POST', '/geofences/preview', {
      json: { geofence: { name: 'Yard', geometry: { type: 'Point', coordinates: [center.lon, center.lat] }, radius_m: 500 }, vins: [TRACKED.teltonika.vin], days: 1 }, headers: auth,
    });
    expect((drawn.body as typeof answer).events.map((e) => [e.type, e.data['date_time'], e.data['geofence_id']])).toEqual(events.map((e) => [e.type, e.data['date_time'], null]));
  });

  it('when a preview is asked wrongly, then 400 or 404 naming the problem, never a 500', async () => {
    auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const ask = async (json: unknown) => svc.request('POST', '/geofences/preview', { json, headers: auth });
    const circleBody = { name: 'X', geometry: { type: 'Point', coordinates: [-46.6, -23.5] }, radius_m: 100 };
    expect((await ask({ geofence: circleBody, days: 9 })).body).toEqual({ detail: 'Invalid geofence: days must be a whole number from 1 to 7.' });
    expect((await ask({})).status).toBe(400);
    expect((await ask({ geofence: circleBody, geofence_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(400);
    expect((await ask({ geofence: { ...circleBody, radius_m: 5 } })).status).toBe(400);
    expect((await ask({ geofence: circleBody, vins: ['9BWAB45U8NT100004'] })).body).toEqual({ detail: 'Invalid geofence: vins: 9BWAB45U8NT100004 is not a vehicle of the company.' });
    expect((await ask({ geofence_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
    expect((await ask({ geofence: circleBody, extra: 1 })).status).toBe(400);
  });

  it('when two positions 2 km apart lie on either side of a 200 m fence, then one geofence.crossed', async () => {
    const center = place(3);
    const id = await circle('Gate', center, 200);
    await ingestLive(ALPHA_VINS[1], sparseAcross(svc.clock.now() + 60_000, center, 2000, 120), 1);
    expect((await eventsOf(ALPHA_VINS[1], id)).map((e) => e.type)).toEqual(['geofence.crossed']);
  });

  it('when an hour of buffered history arrives at once over the socket, then its events are marked late', async () => {
    const center = place(4);
    const id = await circle('Warehouse', center, 500);
    const t = new TeltonikaTrackerClient({ host: '127.0.0.1', port: svc.gateway!.listening.teltonika!.port, imei: TRACKED.silent.imei, responseTimeoutMs: scaled(5000) });
    trackers.push(t);
    await t.connect();
    const recorded = svc.clock.now() + 60_000;
    const track = driveThrough(recorded, center, 1500, 36);
    svc.clock.t = recorded + 3_600_000;
    for (let i = 0; i < track.length; i += 50) expect(await t.send(track.slice(i, i + 50).map((p) => avlRecord(p.ts, { lat: p.lat, lon: p.lon, speed: p.speed })))).toBe(Math.min(50, track.length - i));
    await watch();
    expect((await eventsOf(TRACKED.silent.vin, id)).map((e) => [e.type, e.data['late']])).toEqual([['geofence.entered', true], ['geofence.exited', true]]);
  });

  it('when a record is stamped minutes ahead of now, then the live records after it are still judged', async () => {
    const center = place(5);
    const id = await circle('Ahead', center, 500);
    const vin = ALPHA_VINS[1];
    svc.clock.advance(60_000);
    // One record 4 minutes ahead (the intake allows 5), far outside; then a live drive through.
    const ahead = offset(center, -5000, 0);
    expect((await svc.ingest([{ vin, date_time: iso(svc.clock.now() + 240_000), latitude: ahead.lat, longitude: ahead.lon, speed: 0 }])).body).toMatchObject({ accepted: 1 });
    await watch();
    const track = driveThrough(svc.clock.now() + 1000, center, 1500, 36);
    for (let i = 0; i < track.length; i += 3) {
      const batch = track.slice(i, i + 3);
      svc.clock.t = batch.at(-1)!.ts + 1000;
      expect((await svc.ingest(batch.map((p) => ({ vin, date_time: iso(p.ts), latitude: p.lat, longitude: p.lon, speed: p.speed })))).body).toMatchObject({ rejected: [] });
      await watch();
    }
    expect((await eventsOf(vin, id)).map((e) => e.type).slice(0, 2)).toEqual(['geofence.entered', 'geofence.exited']);
  });

  it('when the pass runs again with nothing new, then it writes nothing and repeats nothing', async () => {
    const before = await svc.store.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('type', 'like', 'geofence.%').executeTakeFirstOrThrow();
    const pass = await watch();
    expect(pass).toMatchObject({ positions: 0, events: 0 });
    const after = await svc.store.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('type', 'like', 'geofence.%').executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});
