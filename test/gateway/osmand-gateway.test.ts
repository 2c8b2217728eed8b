/**
 * Phone tracking apps (OsmAnd protocol) end to end over real HTTP: the query-string form of the
 * OsmAnd app and Traccar Client ≤ 8 (speed in knots), the JSON form of Traccar Client 9 (speed in
 * m/s, -1 unknown), and refusals with the protocol's statuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATAPOINTS } from '../../src/domain/datapoints.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { SECRETS } from '../support/fixture-fleet.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';
import { TRACKED, trackerFleet } from '../support/tracker-fleet.js';

const { vin, id } = TRACKED.phone;

describe.each(DATABASE_KINDS)('OsmAnd gateway on %s', (kind) => {
  let svc: TestService;
  let auth: Record<string, string>;
  let base: string;

  beforeAll(async () => {
    svc = await startTestService(kind, trackerFleet(), { gateway: true });
    auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    base = `http://127.0.0.1:${svc.gateway!.listening.osmand!.port}`;
  });
  afterAll(async () => { await svc?.close(); });

  const read = async (at: number) => {
    const local = new Date(at - 3 * 3_600_000).toISOString().slice(0, 19);
    const res = await svc.request('POST', '/vehicle-data', { json: { vins: [vin], datapoints: ['date_time', 'latitude', 'longitude', 'speed', 'heading'], start_date: local, end_date: local }, headers: auth });
    return res.body[vin] as Record<string, unknown>[];
  };

  it('when the app sends the query form (POST with an empty body, as the Android client does), then 200 and the speed in knots is stored as km/h', async () => {
    const at = T0 - 60_000;
    const res = await fetch(`${base}/?id=${id}&timestamp=${at / 1000}&lat=-23.5505&lon=-46.6333&speed=10&bearing=270&altitude=760&accuracy=5&batt=87`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect(await read(at)).toEqual([{ date_time: '2026-11-20 08:59:00', latitude: -23.5505, longitude: -46.6333, speed: 18.52, heading: 270 }]);
  });

  it('when the query form comes as GET with an ISO timestamp, or as a form body, then it is read the same way', async () => {
    const at = T0 - 50_000;
    expect((await fetch(`${base}/?deviceid=${id}&timestamp=${new Date(at).toISOString()}&lat=-23.56&lon=-46.64&speed=0`)).status).toBe(200);
    const form = await fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `id=${id}&timestamp=${at + 5000}&lat=-23.57&lon=-46.65` });
    expect(form.status).toBe(200);
    expect((await read(at))[0]).toMatchObject({ latitude: -23.56, speed: 0 });
    expect((await read(at + 5000))[0]).toMatchObject({ latitude: -23.57, longitude: -46.65 });
  });

  it('when Traccar Client 9 sends JSON, then speed in m/s is km/h and -1 (unknown) is left out', async () => {
    const at = T0 - 40_000;
    const body = { device_id: id, location: { timestamp: new Date(at).toISOString(), coords: { latitude: -23.58, longitude: -46.66, speed: 10, heading: -1, accuracy: 5, altitude: 700 }, is_moving: true, battery: { level: 0.8, is_charging: false } } };
    const res = await fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    expect(await read(at)).toEqual([{ date_time: '2026-11-20 08:59:20', latitude: -23.58, longitude: -46.66, speed: 36, heading: null }]);
  });

  it('when a phone sends its accuracy, then it is kept with the record (the first of a second wins, with its own), never with a record without a fix, and vehicle-data does not show it', async () => {
    const at = T0 - 30_000;
    const location = (ms: number, latitude: number, accuracy: number, longitude = -46.67) => ({ timestamp: new Date(ms).toISOString(), coords: { latitude, longitude, speed: 0, heading: -1, accuracy } });
    const post = (body: unknown) => fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const batch = [location(at, -23.59, 4.5), location(at + 500, -23.591, 40), location(at + 1000, 0, 5, 0)];
    expect((await post({ device_id: id, location: batch })).status).toBe(200);
    expect((await post({ device_id: id, location: location(at, -23.59, 60) })).status).toBe(200);
    expect((await fetch(`${base}/?id=${id}&timestamp=${(at + 2000) / 1000}&lat=-23.592&lon=-46.67&hdop=1.5`)).status).toBe(200);
    const stored = await svc.store.db.selectFrom('telemetry').select(['ts', 'latitude', 'position_accuracy_m'])
      .where('vin', '=', vin).where('ts', '>=', at).where('ts', '<=', at + 2000).orderBy('ts').execute();
    expect(stored).toEqual([
      { ts: at, latitude: -23.59, position_accuracy_m: 4.5 },
      { ts: at + 1000, latitude: null, position_accuracy_m: null },
      { ts: at + 2000, latitude: -23.592, position_accuracy_m: 7.5 },
    ]);
    const local = new Date(at - 3 * 3_600_000).toISOString().slice(0, 19);
    const res = await svc.request('POST', '/vehicle-data', { json: { vins: [vin], datapoints: DATAPOINTS.map((d) => d.name), start_date: local, end_date: local }, headers: auth });
    expect(res.status).toBe(200);
    const [record] = res.body[vin] as Record<string, unknown>[];
    expect(Object.keys(record!).sort()).toEqual(DATAPOINTS.map((d) => d.name).sort());
  });

  it('when the id is missing, unknown or the request unreadable, then a 4xx with a detail, and nothing is stored', async () => {
    const before = (await svc.store.db.selectFrom('telemetry').select('ts').where('vin', '=', vin).execute()).length;
    const missing = await fetch(`${base}/?lat=1&lon=2`);
    expect([missing.status, await missing.json()]).toEqual([400, { detail: expect.stringContaining('id') }]);
    const unknown = await fetch(`${base}/?id=nobody&lat=1&lon=2`);
    expect([unknown.status, await unknown.json()]).toEqual([400, { detail: 'This device id is not registered.' }]);
    const unknownJson = await fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ device_id: 'nobody', location: { coords: { latitude: 1, longitude: 2 } } }) });
    expect(unknownJson.status).toBe(404);
    const garbage = await fetch(`${base}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"device_id":' });
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toEqual({ detail: expect.any(String) });
    const teltonikaId = await fetch(`${base}/?id=${TRACKED.teltonika.imei}&lat=1&lon=2`);
    expect(teltonikaId.status).toBe(400); // a Teltonika tracker's id is not an OsmAnd device
    expect((await svc.store.db.selectFrom('telemetry').select('ts').where('vin', '=', vin).execute()).length).toBe(before);
    expect(svc.logs.some((l) => l.includes('"deviceId":"nobody"'))).toBe(true);
  });
});
