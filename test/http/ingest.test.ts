import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../support/databases.js';
import { ALPHA_VINS, BETA_VINS } from '../support/fixture-fleet.js';
import { iso, startTestService, T0, type TestService } from '../support/test-service.js';

describe.each(DATABASE_KINDS)('POST /ingest/{oem} on %s', (kind) => {
  let svc: TestService;
  beforeAll(async () => { svc = await startTestService(kind); });
  afterAll(async () => { await svc?.close(); });

  const stored = (vin: string) => svc.store.db.selectFrom('telemetry').selectAll().where('vin', '=', vin).orderBy('ts').execute();

  it('when a batch mixes good and bad records, then good ones are stored and each bad one is named with its reason', async () => {
    const res = await svc.ingest([
      { vin: ALPHA_VINS[0], date_time: iso(T0 - 60_000), speed: 50, latitude: -23.5, longitude: -46.6 },
      { vin: 'NOT-A-VIN', date_time: iso(T0) },
      { vin: ALPHA_VINS[0], date_time: 'yesterday' },
      { vin: ALPHA_VINS[2], date_time: iso(T0) },
      { vin: BETA_VINS[0], date_time: iso(T0 - 30_000), speed: 410 },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      accepted: 2,
      rejected: [
        { index: 1, reason: 'vin must be a 17-character VIN' },
        { index: 2, reason: 'date_time must be an ISO 8601 string with an offset, e.g. 2026-11-20T09:00:00-03:00' },
        { index: 3, reason: `VIN ${ALPHA_VINS[2]} is not registered to OEM simmotors` },
      ],
    });
    expect(await stored(ALPHA_VINS[2])).toEqual([]);
    const [row] = await stored(BETA_VINS[0]);
    expect(row).toMatchObject({ ts: T0 - 30_000, speed: null, flag: JSON.stringify({ speed: { value: 410, flag: 'out of range' } }) });
  });

  it('when the same (VIN, instant) arrives again, then it is stored once and the first values stay', async () => {
    const record = { vin: ALPHA_VINS[1], date_time: iso(T0 - 5000), odometer: 1000 };
    expect((await svc.ingest([record, { ...record, odometer: 2 }])).body).toEqual({ accepted: 2, rejected: [] });
    expect((await svc.ingest([{ ...record, odometer: 3 }])).body).toEqual({ accepted: 1, rejected: [] });
    const rows = await stored(ALPHA_VINS[1]);
    expect(rows.map((r) => [r.ts, r.odometer])).toEqual([[T0 - 5000, 1000]]);
  });

  it('when a vehicle is registered to the OEM or moved away, then the next batch sees it (the ownership read is cached)', async () => {
    const newVin = '9BWNEWVHC00000001';
    const record = { vin: newVin, date_time: iso(T0 - 7000), speed: 5 };
    expect((await svc.ingest([record])).body.rejected).toEqual([{ index: 0, reason: `VIN ${newVin} is not registered to OEM simmotors` }]);
    const company = await svc.store.db.selectFrom('vehicles').select(['company_id']).where('vin', '=', ALPHA_VINS[0]).executeTakeFirstOrThrow();
    await svc.store.db.insertInto('vehicles').values({
      vin: newVin, company_id: company.company_id, plate: 'NEW0001', oem: 'simmotors', model: 'Novo', year: 2025, status: 'active', ownership: 'owned',
      fuel_capacity: null, sim: null, created_at: T0, updated_at: T0,
    }).execute();
    expect((await svc.ingest([record])).body).toEqual({ accepted: 1, rejected: [] });
    await svc.store.db.updateTable('vehicles').set({ oem: 'othermotors' }).where('vin', '=', newVin).execute();
    expect((await svc.ingest([{ ...record, date_time: iso(T0 - 6000) }])).body.rejected).toHaveLength(1);
  });

  it('when the key is wrong, missing, or the OEM unknown, then 401 and nothing is stored', async () => {
    const record = { vin: ALPHA_VINS[0], date_time: iso(T0 - 1000) };
    for (const res of [
      await svc.ingest([record], { key: 'wrong-key-wrong-key-wrong-key-wrong' }),
      await svc.request('POST', '/ingest/simmotors', { json: { records: [record] } }),
      await svc.ingest([record], { oem: 'nosuchoem' }),
      await svc.ingest([record], { oem: 'othermotors' }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Invalid ingest key.' });
    }
    expect((await stored(ALPHA_VINS[0])).map((r) => r.ts)).not.toContain(T0 - 1000);
  });

  it('when the body is not a batch, then 400 with a detail; when it holds more than 5,000 records, then 400', async () => {
    const auth = { authorization: 'Bearer sim-ingest-key-0123456789abcdefghijklmnopqrstuv' };
    for (const json of [{}, { records: 'x' }, [], { records: {} }]) {
      const res = await svc.request('POST', '/ingest/simmotors', { json, headers: auth });
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(/^Invalid request: /);
    }
    const many = await svc.ingest(Array.from({ length: 5001 }, () => ({})));
    expect(many.status).toBe(400);
    const malformed = await svc.request('POST', '/ingest/simmotors', { raw: '{"records": [', headers: { ...auth, 'content-type': 'application/json' } });
    expect(malformed).toMatchObject({ status: 400, body: { detail: 'Malformed JSON body.' } });
  });
});
