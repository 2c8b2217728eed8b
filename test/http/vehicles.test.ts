import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateVehicle } from '../../src/store/registry-queries.js';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS, SECRETS } from '../support/fixture-fleet.js';
import { startTestService, T0, type TestService } from '../support/test-service.js';

const VEHICLE_FIELDS = ['company', 'created', 'model', 'oem', 'plate', 'status', 'vin', 'year'];

describe.each(DATABASE_KINDS)('vehicles on %s', (kind) => {
  let svc: TestService;
  let alpha: Record<string, string>;
  let beta: Record<string, string>;
  beforeAll(async () => {
    svc = await startTestService(kind);
    alpha = { authorization: `Bearer ${await svc.token('alpha-dispatch', SECRETS.alphaDispatch.client)}` };
    beta = { authorization: `Bearer ${await svc.token('beta-ops', SECRETS.betaOps.client)}` };
  });
  afterAll(async () => { await svc?.close(); });

  it('when listing, then every vehicle of the company in any status is returned, ordered by VIN, with exactly the Vehicle fields', async () => {
    const res = await svc.request('GET', '/vehicle', { headers: alpha });
    expect(res.status).toBe(200);
    expect(res.body.map((v: { vin: string }) => v.vin)).toEqual([...ALPHA_VINS].sort());
    for (const v of res.body) expect(Object.keys(v).sort()).toEqual(VEHICLE_FIELDS);
    expect(res.body.find((v: { vin: string }) => v.vin === ALPHA_VINS[1]).status).toBe('inactive');
  });

  it('when reading one VIN, then the fields match the registry and created is rendered at -03:00 without offset', async () => {
    const res = await svc.request('GET', `/vehicle/${ALPHA_VINS[0]}`, { headers: alpha });
    expect(res.status).toBe(200);
    // T0 is 2026-11-20T12:00:00Z, which is 09:00:00 at -03:00.
    expect(res.body).toEqual({
      company: 'Alpha Logistics', vin: ALPHA_VINS[0], plate: 'ABC1D23', oem: 'simmotors', model: 'Gol',
      year: 2022, status: 'active', created: '2026-11-20T09:00:00',
    });
  });

  it('when the creation instant is just after midnight UTC, then the date of created is the previous day at -03:00', async () => {
    await updateVehicle(svc.store.db, ALPHA_VINS[2], { created_at: Date.UTC(2026, 0, 1, 2, 30, 5) });
    const res = await svc.request('GET', `/vehicle/${ALPHA_VINS[2]}`, { headers: alpha });
    expect(res.body.created).toBe('2025-12-31T23:30:05');
    await updateVehicle(svc.store.db, ALPHA_VINS[2], { created_at: T0 });
  });

  it('when company B lists, then none of company A\'s vehicles appear', async () => {
    const res = await svc.request('GET', '/vehicle', { headers: beta });
    expect(res.body.map((v: { vin: string }) => v.vin)).toEqual([...BETA_VINS].sort());
    expect(res.body.every((v: { company: string }) => v.company === 'Beta Transportes')).toBe(true);
  });

  it.each([...ALPHA_VINS])('when company B asks for company A\'s VIN %s, then 404 VIN not found or unauthorized access.', async (vin) => {
    const res = await svc.request('GET', `/vehicle/${vin}`, { headers: beta });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'VIN not found or unauthorized access.' });
  });

  it.each([
    ['unknown', '9BWZZZ377VT999999'],
    ['lower-case', ALPHA_VINS[0].toLowerCase()],
    ['too short', '9BWZZZ377VT00425'],
    ['containing I, O or Q', '9BWZZZ377VT00425O'],
    ['url-encoded garbage', '%00%27%22%3Cscript%3E'],
    ['long', 'A'.repeat(250)],
    ['very long', 'A'.repeat(2000)],
  ])('when the VIN is %s, then 404 with the same text', async (_label, vin) => {
    const res = await svc.request('GET', `/vehicle/${vin}`, { headers: alpha });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'VIN not found or unauthorized access.' });
  });

  it('when a path parameter is absurdly long, then 414 with a detail body', async () => {
    const res = await svc.request('GET', `/vehicle/${'A'.repeat(9000)}`, { headers: alpha });
    expect(res.status).toBe(414);
    expect(res.body).toEqual({ detail: 'A path parameter of the URL is too long.' });
  });

  it('when the URL has a malformed percent-escape, then 400 with a detail body', async () => {
    const res = await svc.request('GET', '/vehicle/%ZZ', { headers: alpha });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Invalid request: the URL is malformed.' });
  });

  it('when a route is unknown, then 404 with a detail body', async () => {
    const res = await svc.request('GET', '/vehicles', { headers: alpha });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found.' });
  });
});
