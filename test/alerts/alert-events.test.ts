/**
 * Alert rules end to end (D13): rules created over the API, records sent through the real HTTP
 * ingest, the evaluator's pass over the store (and its silence sweep as the clock moves), the
 * events read back from the outbox. Each condition fires once per episode; the cooldown keeps a
 * vehicle flapping in and out of reporting to one alert.no_data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyRuleSets } from '../../src/alerts/company-rule-sets.js';
import { DEFAULT_DRIFT_RULES } from '../../src/domain/geofences/judge-fence.js';
import { CompanyFenceSets } from '../../src/geofences/company-fence-sets.js';
import { GeofenceFollower, runGeofenceWatchOnce } from '../../src/geofences/geofence-watch.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { iso, startTestService, type TestService } from '../support/test-service.js';

const SETTINGS = { rules: DEFAULT_DRIFT_RULES, latenessMs: 60_000, movingSpeedKmh: 3 };

describe.each(DATABASE_KINDS)('alert events on %s', (kind) => {
  let svc: TestService;
  let follower: GeofenceFollower;

  beforeAll(async () => {
    svc = await startTestService(kind);
    follower = new GeofenceFollower(svc.store, new CompanyFenceSets(svc.store), undefined, new CompanyRuleSets(svc.store));
  });
  afterAll(async () => { await svc?.close(); });

  const rule = async (body: Record<string, unknown>): Promise<string> => {
    const auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const res = await svc.request('POST', '/alert-rules', { json: body, headers: auth });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return (res.body as { id: string }).id;
  };
  const preview = async (json: unknown) => {
    const auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const res = await svc.request('POST', '/alert-rules/preview', { json, headers: auth });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { events: { id: string; type: string; data: Record<string, unknown> }[] };
  };
  const watch = () => runGeofenceWatchOnce(svc.store, svc.clock, SETTINGS, follower);
  const alertsOf = async (ruleId: string) => (await svc.store.db.selectFrom('events').select(['id', 'type', 'data', 'occurred_at']).where('type', 'like', 'alert.%').orderBy('seq').execute())
    .map((e) => ({ ...e, data: JSON.parse(e.data) as Record<string, unknown> }))
    .filter((e) => e.data['rule_id'] === ruleId);
  /** Sends records a `stepS` apart from the clock on, live (the clock follows), running the pass after each. */
  const drive = async (vin: string, values: readonly Record<string, unknown>[], stepS = 10) => {
    for (const v of values) {
      svc.clock.advance(stepS * 1000);
      const res = await svc.ingest([{ vin, date_time: iso(svc.clock.now() - 500), ...v }]);
      expect(res.body).toMatchObject({ accepted: 1, rejected: [] });
      await watch();
    }
  };

  it('when a vehicle speeds for two minutes, slows, and speeds again within the cooldown, then one alert.overspeed with the episode\'s top speed', async () => {
    const id = await rule({ name: 'Speeding', kind: 'overspeed', threshold: 90, duration_s: 30, vins: [ALPHA_VINS[0]] });
    await drive(ALPHA_VINS[0], [
      ...Array.from({ length: 12 }, (_, i) => ({ speed: 95 + i, latitude: -23.5, longitude: -46.6 })),
      ...Array.from({ length: 3 }, () => ({ speed: 60 })),
      ...Array.from({ length: 6 }, () => ({ speed: 120 })),
    ]);
    const events = await alertsOf(id);
    expect(events.map((e) => e.type)).toEqual(['alert.overspeed']);
    expect(events[0]!.data).toMatchObject({ vin: ALPHA_VINS[0], rule_id: id, rule_name: 'Speeding', limit: 90, latitude: -23.5, longitude: -46.6 });
    expect(events[0]!.data['speed']).toBeGreaterThan(90);

    // Tried over the same records: the very event the evaluator wrote; unsaved, the same firing.
    const tried = await preview({ rule_id: id, vins: [ALPHA_VINS[0]], days: 1 });
    expect(tried.events.map((e) => [e.id, e.type, e.data])).toEqual(events.map((e) => [e.id, e.type, e.data]));
    const auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const off = await svc.request('PUT', `/alert-rules/${id}`, { json: { name: 'Speeding', kind: 'overspeed', threshold: 90, duration_s: 30, vins: [ALPHA_VINS[0]], enabled: false }, headers: auth });
    expect(off.status).toBe(200);
    // Switched off, it is tried as if on: that is what trying is for.
    expect((await preview({ rule_id: id, days: 1 })).events.map((e) => e.id)).toEqual(events.map((e) => e.id));
    const unsaved = await preview({ rule: { name: 'Speeding', kind: 'overspeed', threshold: 90, duration_s: 30, vins: [ALPHA_VINS[0]] }, days: 1 });
    expect(unsaved.events.map((e) => [e.type, e.data['date_time'], e.data['rule_id']])).toEqual(events.map((e) => [e.type, e.data['date_time'], null]));
  });

  it('when a vehicle flaps in and out of reporting 9 times in 10 minutes, then at most one alert.no_data', async () => {
    const vin = ALPHA_VINS[1];
    const id = await rule({ name: 'Silent', kind: 'no_data', duration_s: 60, vins: [vin] });
    for (let flap = 0; flap < 9; flap += 1) {
      await drive(vin, [{ speed: 0 }], 1);
      for (let s = 0; s < 65; s += 5) {
        svc.clock.advance(5000);
        await watch();
      }
    }
    const events = await alertsOf(id);
    expect(events.map((e) => e.type)).toEqual(['alert.no_data']);
    expect(events[0]!.data).toMatchObject({ vin, rule_id: id });
    expect(events[0]!.data['silent_s']).toBeGreaterThanOrEqual(60);
    // The silences found again in the recorded gaps: the same episode, so the same event id.
    expect((await preview({ rule_id: id, days: 1 })).events.map((e) => e.id)).toEqual(events.map((e) => e.id));
  });

  it('when a preview is asked wrongly, then 400 or 404 naming the problem', async () => {
    const ask = async (json: unknown) => {
      const auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
      return svc.request('POST', '/alert-rules/preview', { json, headers: auth });
    };
    expect((await ask({ rule: { name: 'x', kind: 'overspeed', threshold: 90 }, days: 0 })).body).toEqual({ detail: 'Invalid alert rule: days must be a whole number from 1 to 7.' });
    expect((await ask({})).status).toBe(400);
    expect((await ask({ rule: { name: 'x', kind: 'overspeed' } })).status).toBe(400);
    expect((await ask({ rule_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
    expect((await ask({ rule: { name: 'x', kind: 'overspeed', threshold: 90 }, vins: ['9BWAB45U8NT100004'] })).status).toBe(400);
  });

  it('when the engine runs with the vehicle standing for six minutes, then one alert.idling; records without rpm change nothing', async () => {
    const vin = ALPHA_VINS[0];
    const id = await rule({ name: 'Idling', kind: 'idling', duration_s: 300, vins: [vin] });
    await drive(vin, Array.from({ length: 40 }, (_, i) => (i % 5 === 4 ? { speed: 0 } : { speed: 0, rpm: 800 })));
    expect((await alertsOf(id)).map((e) => e.type)).toEqual(['alert.idling']);
  });

  it('when the fuel level flickers at the threshold, then one alert.low_fuel for the episode', async () => {
    const vin = ALPHA_VINS[0];
    const id = await rule({ name: 'Fuel', kind: 'low_fuel', threshold: 10, cooldown_s: 0, vins: [vin] });
    await drive(vin, [11, 9.5, 10.5, 9.8, 10.9, 9.1, 11.0, 9.4].map((fuel_level) => ({ fuel_level })));
    expect((await alertsOf(id)).map((e) => [e.type, e.data['fuel_level']])).toEqual([['alert.low_fuel', 9.5]]);
  });
});
