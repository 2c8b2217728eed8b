/**
 * The evaluator reads the companies' geofence and rule revisions only when one moved: an idle
 * pass asks one statement of one row about both (store/definition-totals.ts), and a change made
 * through another connection is still picked up by the next pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyRuleSets } from '../../src/alerts/company-rule-sets.js';
import { DEFAULT_DRIFT_RULES } from '../../src/domain/geofences/judge-fence.js';
import { CompanyFenceSets } from '../../src/geofences/company-fence-sets.js';
import { GeofenceFollower, runGeofenceWatchOnce } from '../../src/geofences/geofence-watch.js';
import { readDefinitionTotals } from '../../src/store/definition-totals.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { SECRETS } from '../support/fixture-fleet.js';
import { countedStore, type CountedStore } from '../support/statement-count.js';
import { startTestService, type TestService } from '../support/test-service.js';

const SETTINGS = { rules: DEFAULT_DRIFT_RULES, latenessMs: 60_000, movingSpeedKmh: 3 };

describe.each(DATABASE_KINDS)('the revisions an evaluator pass reads on %s', (kind) => {
  let svc: TestService;
  let counted: CountedStore;
  let follower: GeofenceFollower;

  beforeAll(async () => {
    svc = await startTestService(kind);
    counted = countedStore(svc.store);
    follower = new GeofenceFollower(counted.store, new CompanyFenceSets(counted.store), undefined, new CompanyRuleSets(counted.store));
  });
  afterAll(async () => { await svc?.close(); });

  it('when nothing changed, then the sets cost one statement a pass; a fence and a rule created elsewhere are seen by the next', async () => {
    const auth = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    const fence = { name: 'Yard', geometry: { type: 'Point', coordinates: [-46.63, -23.55] }, radius_m: 200 };
    expect((await svc.request('POST', '/geofences', { json: fence, headers: auth })).status).toBe(201);
    expect((await svc.request('POST', '/alert-rules', { json: { name: 'Fast', kind: 'overspeed', threshold: 90 }, headers: auth })).status).toBe(201);
    await runGeofenceWatchOnce(counted.store, svc.clock, SETTINGS, follower);
    // The totals as a pass reads them, once for both sets: nothing more while they have not moved.
    counted.reset();
    const totals = await readDefinitionTotals(counted.store.db);
    expect(await follower.fences.refresh(totals.fences)).toBe(true);
    expect(await follower.rules!.refresh(totals.rules)).toBe(true);
    expect(counted.statements).toEqual(['SelectQueryNode']);
    counted.reset();
    await runGeofenceWatchOnce(counted.store, svc.clock, SETTINGS, follower);
    const idle = counted.statements.length;
    svc.clock.advance(1000);
    counted.reset();
    await runGeofenceWatchOnce(counted.store, svc.clock, SETTINGS, follower);
    expect(counted.statements.length).toBe(idle);

    // Through the service's own connection, as another process would.
    expect((await svc.request('POST', '/geofences', { json: { ...fence, name: 'Gate' }, headers: auth })).status).toBe(201);
    expect((await svc.request('POST', '/alert-rules', { json: { name: 'Slow', kind: 'overspeed', threshold: 20 }, headers: auth })).status).toBe(201);
    await runGeofenceWatchOnce(counted.store, svc.clock, SETTINGS, follower);
    expect(follower.fences.of(await companyOf())?.size).toBe(2);
    expect(follower.rules!.of(await companyOf()).map((r) => r.name).sort()).toEqual(['Fast', 'Slow']);
  });

  const companyOf = async () => (await svc.store.db.selectFrom('geofences').select('company_id').executeTakeFirstOrThrow()).company_id;
});
