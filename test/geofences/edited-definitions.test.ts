/**
 * A geofence or alert rule replaced (PUT) while vehicles have states under it: the states are
 * re-based in the transaction of the change (store/rebase-watch-states.ts), and the evaluator's
 * kept copy of them notices (the cursor version). A vehicle inside both the old and new shape
 * sees no exit and entry; a change pending its dwell starts again under the new shape; a rule's
 * episode is judged afresh under the new condition.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyRuleSets } from '../../src/alerts/company-rule-sets.js';
import { DEFAULT_DRIFT_RULES } from '../../src/domain/geofences/judge-fence.js';
import { CompanyFenceSets } from '../../src/geofences/company-fence-sets.js';
import { GeofenceFollower, runGeofenceWatchOnce } from '../../src/geofences/geofence-watch.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { DEPOT, offset } from '../support/geofence-tracks.js';
import { iso, startTestService, type TestService } from '../support/test-service.js';

const SETTINGS = { rules: DEFAULT_DRIFT_RULES, latenessMs: 60_000, movingSpeedKmh: 3 };

describe.each(DATABASE_KINDS)('definitions edited under watched vehicles on %s', (kind) => {
  let svc: TestService;
  let follower: GeofenceFollower;
  let auth: Record<string, string>;

  beforeAll(async () => {
    svc = await startTestService(kind);
    follower = new GeofenceFollower(svc.store, new CompanyFenceSets(svc.store), undefined, new CompanyRuleSets(svc.store));
    auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
  });
  afterAll(async () => { await svc?.close(); });

  const watch = () => runGeofenceWatchOnce(svc.store, svc.clock, SETTINGS, follower);
  const send = async (vin: string, values: Record<string, unknown>) => {
    svc.clock.advance(10_000);
    expect((await svc.ingest([{ vin, date_time: iso(svc.clock.now() - 500), ...values }])).body).toMatchObject({ accepted: 1, rejected: [] });
    await watch();
  };
  const at = (p: { readonly lat: number; readonly lon: number }) => ({ latitude: p.lat, longitude: p.lon, speed: 0 });
  const fenceBody = (radius: number) => ({ name: 'Yard', geometry: { type: 'Point', coordinates: [DEPOT.lon, DEPOT.lat] }, radius_m: radius });
  const eventsOf = async (vin: string, prefix: string) => (await svc.store.db.selectFrom('events').select(['type', 'occurred_at']).where('vin', '=', vin)
    .where('type', 'like', `${prefix}.%`).orderBy('seq').execute()).map((e) => [e.type, Number(e.occurred_at)] as const);

  it('when a fence grows around a vehicle inside it, then no exit and entry; an entry pending its dwell starts its dwell again', async () => {
    const res = await svc.request('POST', '/geofences', { json: fenceBody(200), headers: auth });
    expect(res.status).toBe(201);
    const id = (res.body as { id: string }).id;
    const [inside, pending] = [ALPHA_VINS[0], ALPHA_VINS[1]];
    for (const vin of [inside, pending]) await send(vin, at(offset(DEPOT, 2000, 0)));
    for (let i = 0; i < 5; i += 1) await send(inside, at(DEPOT));
    expect((await eventsOf(inside, 'geofence')).map(([type]) => type)).toEqual(['geofence.entered']);
    // One position inside: an entry pending, kept by the evaluator between passes.
    await send(pending, at(DEPOT));
    const firstInside = svc.clock.now() - 500;

    const put = await svc.request('PUT', `/geofences/${id}`, { json: fenceBody(400), headers: auth });
    expect(put.status).toBe(200);
    for (let i = 0; i < 6; i += 1) {
      await send(inside, at(DEPOT));
      await send(pending, at(DEPOT));
    }
    expect((await eventsOf(inside, 'geofence')).map(([type]) => type)).toEqual(['geofence.entered']);
    const entered = await eventsOf(pending, 'geofence');
    expect(entered.map(([type]) => type)).toEqual(['geofence.entered']);
    // Positions every 20 s: confirmed by 30 s of them after the change (the third, 60 s on), not
    // by the one before it with the second after (40 s on).
    expect(entered[0]![1] - firstInside).toBeGreaterThan(50_000);
  });

  it('when an overspeed rule that fired is replaced by a higher limit the vehicle still exceeds, then the new rule fires for it', async () => {
    const vin = ALPHA_VINS[0];
    const body = (threshold: number) => ({ name: 'Speeding', kind: 'overspeed', threshold, duration_s: 0, cooldown_s: 0, vins: [vin] });
    const res = await svc.request('POST', '/alert-rules', { json: body(90), headers: auth });
    expect(res.status).toBe(201);
    const id = (res.body as { id: string }).id;
    for (let i = 0; i < 3; i += 1) await send(vin, { speed: 110 });
    expect((await eventsOf(vin, 'alert')).map(([type]) => type)).toEqual(['alert.overspeed']);
    expect((await svc.request('PUT', `/alert-rules/${id}`, { json: body(100), headers: auth })).status).toBe(200);
    for (let i = 0; i < 3; i += 1) await send(vin, { speed: 110 });
    expect((await eventsOf(vin, 'alert')).map(([type]) => type)).toEqual(['alert.overspeed', 'alert.overspeed']);
  });
});
