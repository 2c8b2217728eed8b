/**
 * The geofence statements on both databases: names in byte order whatever the database's
 * collation, what the evaluator reads of a company's fences, and revisions of many companies.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGeofence } from '../../src/geofences/manage-geofences.js';
import type { GeofenceDeps } from '../../src/geofences/geofence-deps.js';
import { listEvaluatorFences, listGeofences, readGeofenceRevisions } from '../../src/store/geofences-queries.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';

const circle = (name: string) => ({ name, geometry: { type: 'Point', coordinates: [-46.63, -23.55] }, radius_m: 100 });

describe.each(DATABASE_KINDS)('geofence statements on %s', (kind) => {
  let svc: TestService;
  let deps: GeofenceDeps;
  beforeAll(async () => {
    svc = await startTestService(kind);
    deps = { store: svc.store, clock: svc.clock, settings: { maxPerCompany: 100 } };
  });
  afterAll(async () => { await svc?.close(); });

  it('when names differ in case and accents, then the list is in byte order (upper case, then lower, then accented), on either database', async () => {
    for (const name of ['alpha', 'Zeta', 'Ärea', 'Beta', 'área']) await createGeofence(deps, 'alpha', circle(name));
    const names = (await listGeofences(svc.store.db, 'alpha', 10)).map((r) => r.name);
    expect(names).toEqual(['Beta', 'Zeta', 'alpha', 'Ärea', 'área']);
    const after = await listGeofences(svc.store.db, 'alpha', 10, { name: 'Zeta', id: 'ffffffff-ffff-4fff-bfff-ffffffffffff' });
    expect(after.map((r) => r.name)).toEqual(['alpha', 'Ärea', 'área']);
    if (kind === 'postgres') {
      const column = await sql<{ collation_name: string }>`select collation_name from information_schema.columns where table_name = 'geofences' and column_name = 'name'`.execute(svc.store.db);
      expect(column.rows).toEqual([{ collation_name: 'C' }]);
    }
  });

  it('when the evaluator reads a company\'s fences, then it gets each with its kind, geometry, size, bounds and change time, by id, and no other company\'s', async () => {
    const beta = await createGeofence(deps, 'beta', { name: 'Route', geometry: { type: 'LineString', coordinates: [[0, 0], [1, 1]] }, width_m: 40 });
    const fences = await listEvaluatorFences(svc.store.db, 'beta');
    expect(fences).toEqual([{
      id: beta.id, name: 'Route', kind: 'corridor', geometry: '{"type":"LineString","coordinates":[[0,0],[1,1]]}', radius_m: null, width_m: 40,
      min_lon: expect.any(Number), min_lat: expect.closeTo(-20 / 110_574, 9), max_lon: expect.any(Number), max_lat: expect.closeTo(1 + 20 / 110_574, 9), updated_at: T0,
    }]);
    const alpha = await listEvaluatorFences(svc.store.db, 'alpha');
    expect(alpha.map((f) => f.id)).toEqual(alpha.map((f) => f.id).sort());
    expect(alpha).toHaveLength(5);
  });

  it('when revisions of more companies than one statement takes are read, then those with a revision are answered, the rest left out', async () => {
    const ids = [...Array.from({ length: 1200 }, (_, i) => `company-${i}`), 'beta', 'alpha'];
    const found = await readGeofenceRevisions(svc.store.db, ids);
    expect([...found.entries()].sort()).toEqual([['alpha', 5], ['beta', 1]]);
  });
});
