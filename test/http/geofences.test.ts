/**
 * /geofences over real HTTP on both databases: each kind created and read back exactly, the list
 * by name in pages, PUT, DELETE, another company's fences, every refused body with its detail,
 * the per-company cap (under concurrent creations too), the revision every change raises, and the
 * console reading the same routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGeofenceRevisions } from '../../src/store/geofences-queries.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { SECRETS } from '../support/fixture-fleet.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { addPerson, consoleSignIn, TEST_CONSOLE_USERS, withSession } from '../support/console-people.js';

const MIN = 60_000;
/** T0 at -03:00, as `created` is written. */
const CREATED = '2026-11-20T09:00:00-03:00';
const SQUARE = [[-46.64, -23.56], [-46.62, -23.56], [-46.62, -23.54], [-46.64, -23.54], [-46.64, -23.56]];
const HOLE = [[-46.635, -23.555], [-46.635, -23.545], [-46.625, -23.545], [-46.625, -23.555], [-46.635, -23.555]];
const DEPOT = { name: 'Depot', description: 'Main yard, gate 2', geometry: { type: 'Point', coordinates: [-46.63, -23.55] }, radius_m: 150 };
const CENTRE = { name: 'Centre', geometry: { type: 'Polygon', coordinates: [SQUARE, HOLE] } };
const ROUTE = { name: 'Route 1', geometry: { type: 'LineString', coordinates: [[-46.7, -23.5], [-46.65, -23.52], [-46.6, -23.6]] }, width_m: 80 };

/** A simple ring of `n` distinct positions around São Paulo, closed. */
function ringOf(n: number): number[][] {
  const ring = Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / n;
    const r = 0.01 * (1 + 0.3 * Math.sin(7 * a));
    return [-46.6 + r * Math.cos(a), -23.5 + r * Math.sin(a)];
  });
  return [...ring, ring[0]!];
}

describe.each(DATABASE_KINDS)('geofences on %s', (kind) => {
  let svc: TestService;
  let alpha: Record<string, string>;
  let alphaReports: Record<string, string>;
  let beta: Record<string, string>;
  const revisions = async () => {
    const found = await readGeofenceRevisions(svc.store.db, ['alpha', 'beta']);
    return { alpha: found.get('alpha') ?? 0, beta: found.get('beta') ?? 0 };
  };
  const create = async (body: unknown, headers = alpha) => {
    const res = await svc.request('POST', '/geofences', { json: body, headers });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string } & Record<string, unknown>;
  };

  beforeAll(async () => {
    svc = await startTestService(kind, undefined, { http: { console: { sessions: { idleMs: 30 * MIN, maxMs: 60 * MIN }, basemap: null, users: TEST_CONSOLE_USERS } } });
    alpha = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    alphaReports = { authorization: `Bearer ${await svc.token('alpha-reports', SECRETS.alphaReports.client)}` };
    beta = { authorization: `Bearer ${await svc.token('beta-ops', SECRETS.betaOps.client)}` };
  });
  afterAll(async () => { await svc?.close(); });

  it('when each kind is created, then 201 answers it exactly, and reading it back, by any application of the company, answers the same', async () => {
    for (const body of [DEPOT, CENTRE, ROUTE]) {
      const created = await create(body);
      const { description = null, ...rest } = body as typeof body & { description?: string };
      expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), ...rest, description, created: CREATED, updated: CREATED });
      const read = await svc.request('GET', `/geofences/${created.id}`, { headers: alphaReports });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created);
    }
  });

  it('when a fence is stored, then its kind and bounds are in the row for the evaluator', async () => {
    const rows = await svc.store.db.selectFrom('geofences').selectAll().where('company_id', '=', 'alpha').orderBy('name').execute();
    expect(rows.map((r) => [r.name, r.kind, r.radius_m, r.width_m])).toEqual([['Centre', 'polygon', null, null], ['Depot', 'circle', 150, null], ['Route 1', 'corridor', null, 80]]);
    const centre = rows[0]!;
    expect([centre.min_lon, centre.min_lat, centre.max_lon, centre.max_lat]).toEqual([-46.64, -23.56, -46.62, -23.54]);
    const depot = rows[1]!;
    expect(depot.min_lat).toBeLessThan(-23.55 - 150 / 111_000);
    expect(depot.max_lon).toBeGreaterThan(-46.63 + 150 / 102_000);
  });

  it('when listing, then the company\'s fences come by name, a page at a time, and another company sees none of them', async () => {
    const all = await svc.request('GET', '/geofences', { headers: alpha });
    expect(all.status).toBe(200);
    expect(all.body.data.map((f: { name: string }) => f.name)).toEqual(['Centre', 'Depot', 'Route 1']);
    expect(all.body.next_cursor).toBeNull();
    const first = await svc.request('GET', '/geofences?limit=2', { headers: alpha });
    expect(first.body.data.map((f: { name: string }) => f.name)).toEqual(['Centre', 'Depot']);
    // The cursor holds when the fence it ends at is deleted in between.
    const depotId = first.body.data[1].id as string;
    const copy = await create({ ...DEPOT, name: 'Depot' });
    expect((await svc.request('DELETE', `/geofences/${depotId}`, { headers: alpha })).status).toBe(204);
    const second = await svc.request('GET', `/geofences?limit=2&after=${first.body.next_cursor}`, { headers: alpha });
    const names = second.body.data.map((f: { id: string; name: string }) => (f.id === copy.id ? 'copy' : f.name));
    expect(names).toEqual(copy.id > depotId ? ['copy', 'Route 1'] : ['Route 1']);
    expect(second.body.next_cursor).toBeNull();
    expect((await svc.request('GET', '/geofences', { headers: beta })).body).toEqual({ data: [], next_cursor: null });
  });

  it.each([
    ['limit=0', 'limit must be an integer from 1 to 200.'],
    ['limit=201', 'limit must be an integer from 1 to 200.'],
    ['limit=ten', 'limit must be an integer from 1 to 200.'],
    ['after=not-a-cursor!', 'Invalid cursor: use a next_cursor of GET /geofences.'],
    [`after=${Buffer.from('{"name":1}').toString('base64url')}`, 'Invalid cursor: use a next_cursor of GET /geofences.'],
    [`after=${Buffer.from(JSON.stringify(['a\u0000', '00000000-0000-4000-8000-000000000000'])).toString('base64url')}`, 'Invalid cursor: use a next_cursor of GET /geofences.'],
  ])('when listing with %s, then 400 with its text', async (query, detail) => {
    const res = await svc.request('GET', `/geofences?${query}`, { headers: alpha });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail });
  });

  it('when a fence is replaced, then the body replaces it whole (kind, geometry, description), keeping its id and creation', async () => {
    const fence = await create(DEPOT);
    svc.clock.advance(90_000);
    const res = await svc.request('PUT', `/geofences/${fence.id}`, { json: { ...CENTRE, name: '  Yard  ' }, headers: alphaReports });
    expect(res.status, res.text).toBe(200);
    const replaced = { id: fence.id, name: 'Yard', description: null, geometry: CENTRE.geometry, created: CREATED, updated: '2026-11-20T09:01:30-03:00' };
    expect(res.body).toEqual(replaced);
    expect((await svc.request('GET', `/geofences/${fence.id.toUpperCase()}`, { headers: alpha })).body).toEqual(replaced);
    const row = await svc.store.db.selectFrom('geofences').selectAll().where('id', '=', fence.id).executeTakeFirstOrThrow();
    expect([row.kind, row.radius_m]).toEqual(['polygon', null]);
  });

  it('when a fence is deleted, then it answers 404 after, and deleting it again is 404 too', async () => {
    const fence = await create(ROUTE);
    const res = await svc.request('DELETE', `/geofences/${fence.id}`, { headers: alpha });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    for (const method of ['GET', 'DELETE'] as const) {
      const gone = await svc.request(method, `/geofences/${fence.id}`, { headers: alpha });
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual({ detail: 'Geofence not found.' });
    }
    expect((await svc.request('PUT', `/geofences/${fence.id}`, { json: ROUTE, headers: alpha })).status).toBe(404);
  });

  it('when another company asks for a fence, or the id is no UUID, then 404 for every method, and the fence is unchanged', async () => {
    const fence = await create(DEPOT);
    const before = await revisions();
    for (const id of [fence.id, 'not-a-uuid', '00000000-0000-4000-8000-000000000000', 'x'.repeat(300)]) {
      for (const [method, json] of [['GET', undefined], ['PUT', ROUTE], ['DELETE', undefined]] as const) {
        const res = await svc.request(method, `/geofences/${id}`, { headers: id === fence.id ? beta : alpha, ...(json ? { json } : {}) });
        expect(res.status, `${method} ${id}`).toBe(404);
        expect(res.body).toEqual({ detail: 'Geofence not found.' });
      }
    }
    expect((await svc.request('GET', `/geofences/${fence.id}`, { headers: alpha })).body).toEqual(fence);
    expect(await revisions()).toEqual(before);
  });

  it.each<[string, unknown, string]>([
    ['a Feature', { name: 'x', geometry: { type: 'Feature', geometry: DEPOT.geometry } }, 'geometry must be a GeoJSON geometry, not a Feature: send the Point, Polygon or LineString itself'],
    ['a MultiPolygon', { name: 'x', geometry: { type: 'MultiPolygon', coordinates: [[SQUARE]] } }, 'geometry type MultiPolygon is not supported: use one Point, Polygon or LineString per geofence'],
    ['no name', { geometry: DEPOT.geometry, radius_m: 100 }, 'name is required'],
    ['no geometry', { name: 'x' }, 'geometry is required: a GeoJSON Point, Polygon or LineString'],
    ['an unknown field', { ...DEPOT, colour: 'red' }, 'unknown field "colour": the fields are name, description, geometry, radius_m and width_m'],
    ['radius_m too small', { ...DEPOT, radius_m: 5 }, 'radius_m must be a number from 10 to 50000'],
    ['radius_m on a Polygon', { ...CENTRE, radius_m: 100 }, 'radius_m is only for a Point geometry'],
    ['a LineString without width_m', { name: 'x', geometry: ROUTE.geometry }, 'width_m is required with a LineString geometry'],
    ['a bow tie', { name: 'x', geometry: { type: 'Polygon', coordinates: [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]] } }, 'geometry: ring 0 intersects itself: the edge from position 2 crosses or touches the edge from position 0'],
    ['a ring not closed', { name: 'x', geometry: { type: 'Polygon', coordinates: [SQUARE.slice(0, 4).concat([[0, 0]])] } }, 'geometry: ring 0 is not closed: its last position must equal its first'],
    ['a hole outside', { name: 'x', geometry: { type: 'Polygon', coordinates: [SQUARE, [[0, 0], [1, 0], [1, 1], [0, 0]]] } }, 'geometry: ring 1 (a hole) is not inside ring 0'],
    ['latitude first', { ...DEPOT, geometry: { type: 'Point', coordinates: [-23.55, -146.63] } }, 'geometry.coordinates: latitude -146.63 is outside -90 to 90'],
    ['1,300 positions', { name: 'x', geometry: { type: 'Polygon', coordinates: [ringOf(1299)] } }, 'geometry has 1,300 positions; at most 1,024'],
    ['a name with NUL', { ...DEPOT, name: 'a\u0000b' }, 'name must not contain control or invisible formatting characters (U+0000)'],
  ])('when the body has %s, then POST and PUT answer 400 naming the problem, and nothing changes', async (_label, body, problem) => {
    const fence = await create(DEPOT);
    const before = await revisions();
    for (const [method, path] of [['POST', '/geofences'], ['PUT', `/geofences/${fence.id}`]] as const) {
      const res = await svc.request(method, path, { json: body, headers: alpha });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: `Invalid geofence: ${problem}.` });
    }
    expect((await svc.request('GET', `/geofences/${fence.id}`, { headers: alpha })).body).toEqual(fence);
    expect(await revisions()).toEqual(before);
  });

  it.each([
    ['malformed JSON', { raw: '{"name":', headers: { 'content-type': 'application/json' } }, 'Malformed JSON body.'],
    ['a JSON array', { json: [DEPOT] }, 'Invalid request: body must be object.'],
    ['a form', { form: { name: 'x' } }, 'Unsupported content type. Expected application/json.'],
  ])('when the body is %s, then a 4xx with the catalogue\'s text', async (_label, options, detail) => {
    const res = await svc.request('POST', '/geofences', { ...options, headers: { ...alpha, ...(options as { headers?: Record<string, string> }).headers } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body).toEqual({ detail });
  });

  it('when a polygon has 1,024 positions in two rings, then the body fits the body limit and is kept exactly', async () => {
    const outer = ringOf(999).map(([lon, lat]) => [lon! * 1.0000001, lat!]);
    outer[outer.length - 1] = outer[0]!;
    const hole = ringOf(23).map(([lon, lat]) => [-46.6 + (lon! + 46.6) / 10, -23.5 + (lat! + 23.5) / 10]);
    const fence = await create({ name: 'Big', geometry: { type: 'Polygon', coordinates: [outer, hole] } });
    expect((await svc.request('GET', `/geofences/${fence.id}`, { headers: alpha })).body.geometry.coordinates).toEqual([outer, hole]);
  });

  it('when fences are created, replaced and deleted, then the company\'s revision rises by one with each, and no other company\'s', async () => {
    const start = await revisions();
    const fence = await create(DEPOT);
    expect(await revisions()).toEqual({ ...start, alpha: start.alpha + 1 });
    expect((await svc.request('PUT', `/geofences/${fence.id}`, { json: ROUTE, headers: alpha })).status).toBe(200);
    expect((await svc.request('DELETE', `/geofences/${fence.id}`, { headers: alpha })).status).toBe(204);
    await create(DEPOT, beta);
    expect(await revisions()).toEqual({ alpha: start.alpha + 3, beta: start.beta + 1 });
  });

  it('when the console is signed in, then it reads and writes the same fences through /console/api', async () => {
    const headers = withSession(await consoleSignIn(svc, await addPerson(svc, 'beta', 'admin')), { 'x-telematics-console': '1' });
    const created = await svc.request('POST', '/console/api/geofences', { json: ROUTE, headers });
    expect(created.status).toBe(201);
    const listed = await svc.request('GET', '/console/api/geofences', { headers });
    expect(listed.body.data.map((f: { id: string }) => f.id)).toContain(created.body.id);
    expect((await svc.request('GET', `/geofences/${created.body.id}`, { headers: beta })).body).toEqual(created.body);
  });
});

describe.each(DATABASE_KINDS)('the geofence cap on %s', (kind) => {
  let svc: TestService;
  let alpha: Record<string, string>;
  let beta: Record<string, string>;
  beforeAll(async () => {
    svc = await startTestService(kind, undefined, { http: { geofences: { maxPerCompany: 3 } } });
    alpha = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    beta = { authorization: `Bearer ${await svc.token('beta-ops', SECRETS.betaOps.client)}` };
  });
  afterAll(async () => { await svc?.close(); });

  it('when creations race past the cap, then exactly the cap is created, the rest 409; a deletion makes room; another company is not counted', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => svc.request('POST', '/geofences', { json: { ...DEPOT, name: `Depot ${i}` }, headers: alpha })));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
    expect(answers.find((r) => r.status === 409)!.body).toEqual({ detail: 'A company may have at most 3 geofences.' });
    expect((await svc.request('GET', '/geofences', { headers: alpha })).body.data).toHaveLength(3);
    expect((await svc.request('POST', '/geofences', { json: DEPOT, headers: beta })).status).toBe(201);
    const id = answers.find((r) => r.status === 201)!.body.id as string;
    expect((await svc.request('DELETE', `/geofences/${id}`, { headers: alpha })).status).toBe(204);
    expect((await svc.request('POST', '/geofences', { json: DEPOT, headers: alpha })).status).toBe(201);
    expect((await svc.request('POST', '/geofences', { json: DEPOT, headers: alpha })).status).toBe(409);
  });
});
