import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { validateFleetFile, type Fleet } from '../../src/domain/fleet-file.js';
import { applyFleet, FleetRejected } from '../../src/registry/apply-fleet.js';
import { openSignSecret } from '../../src/registry/application-secrets.js';
import { generateKeyringDocument, keyringFromDocument } from '../../src/security/keyring.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-store.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';
import { fixtureFleet, SECRETS } from '../support/fixture-fleet.js';

const keyring = keyringFromDocument(generateKeyringDocument(), 'test');

function fleetOf(input: unknown): Fleet {
  const v = validateFleetFile(input);
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.fleet;
}

/** Every row of every registry table, for before/after comparisons. */
async function snapshot(store: StoreConnection) {
  const tables = ['plans', 'oems', 'companies', 'applications', 'vehicles'] as const;
  const out: Record<string, unknown[]> = {};
  for (const t of tables) out[t] = await store.db.selectFrom(t).selectAll().execute().then((rows) => rows.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))));
  return out;
}

describe.each(DATABASE_KINDS)('admin apply on %s', (kind) => {
  let database: TestDatabase;
  let store: StoreConnection;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = openStore(database.url, { poolSize: 3 });
    await migrateToLatest(store);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('when a fleet file is applied to an empty database, then everything is created', async () => {
    const result = await applyFleet(store.db, fleetOf(fixtureFleet()), keyring, 1000);
    expect(result.summary).toEqual({
      plans: { created: 2, updated: 0, unchanged: 0 },
      oems: { created: 2, updated: 0, unchanged: 0 },
      companies: { created: 2, updated: 0, unchanged: 0 },
      applications: { created: 5, updated: 0, unchanged: 0 },
      vehicles: { created: 5, updated: 0, unchanged: 0 },
    });
    // The file gives every application secret; only the OEM without an ingest key gets one generated.
    expect(result.credentials).toEqual([{ oem: 'othermotors', ingest_key: expect.stringMatching(/^tik_/) }]);
  });

  it('when the same file is applied again, then nothing changes at all', async () => {
    const before = await snapshot(store);
    const result = await applyFleet(store.db, fleetOf(fixtureFleet()), keyring, 2000);
    expect(result.changed).toBe(false);
    expect(result.credentials).toEqual([]);
    expect(Object.values(result.summary).every((c) => c.created === 0 && c.updated === 0)).toBe(true);
    expect(await snapshot(store)).toEqual(before);
  });

  it('when one field changes, then only that entity is updated', async () => {
    const file = fixtureFleet();
    file.companies[1]!.vehicles[0]!.plate = 'NEW9Z99';
    const result = await applyFleet(store.db, fleetOf(file), keyring, 3000);
    expect(result.summary.vehicles).toEqual({ created: 0, updated: 1, unchanged: 4 });
    expect(result.summary.companies).toEqual({ created: 0, updated: 0, unchanged: 2 });
    const row = await store.db.selectFrom('vehicles').selectAll().where('vin', '=', file.companies[1]!.vehicles[0]!.vin).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ plate: 'NEW9Z99', updated_at: 3000, created_at: 1000 });
  });

  it('when a file references something unknown or owned elsewhere, then nothing is written and each bad entry is named', async () => {
    const full = fixtureFleet();
    const [alpha, beta] = full.companies as [typeof full.companies[0], typeof full.companies[0]];
    alpha.name = 'Renamed, but must not be applied';
    beta.plan = 'platinum';
    beta.vehicles.push({ vin: alpha.vehicles[0]!.vin, plate: 'X', oem: 'simmotors', model: 'M', year: 2020 });
    beta.vehicles[0]!.oem = 'nosuchoem';
    // Only the database knows that the VIN is alpha's: the file holds alpha first, then beta alone.
    const file = { ...full, companies: [alpha, { ...beta, applications: [] }] };
    file.companies[0] = { ...alpha, vehicles: [] };
    const before = await snapshot(store);
    const error = await applyFleet(store.db, fleetOf(file), keyring, 4000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FleetRejected);
    expect((error as FleetRejected).problems).toEqual([
      { path: 'companies[1].plan', message: 'unknown plan "platinum"' },
      { path: 'companies[1].vehicles[0].oem', message: 'unknown OEM "nosuchoem"' },
      { path: 'companies[1].vehicles[2].vin', message: `${alpha.vehicles[0]!.vin} is registered to company "alpha"` },
    ]);
    expect(await snapshot(store)).toEqual(before);
  });

  it('when stored, then no client secret, sign-secret or ingest key appears in clear in any raw row', async () => {
    const raw = await sql<Record<string, unknown>>`select * from applications`.execute(store.db);
    const oems = await sql<Record<string, unknown>>`select * from oems`.execute(store.db);
    const dump = JSON.stringify([raw.rows, oems.rows]);
    for (const s of [SECRETS.alphaDispatch, SECRETS.alphaReports, SECRETS.alphaShort, SECRETS.alphaOff, SECRETS.betaOps]) {
      expect(dump).not.toContain(s.client);
      expect(dump).not.toContain(s.sign);
      // Not even as base64 of the plaintext.
      expect(dump).not.toContain(Buffer.from(s.sign).toString('base64').slice(0, 24));
    }
    expect(dump).not.toContain(SECRETS.ingest);
    for (const row of raw.rows) {
      expect(row.client_secret_hash).toMatch(/^hmac-sha256\.[\w-]+\.[\w-]{43}$/);
      expect(row.sign_secret_sealed).toMatch(/^v1\.[\w-]+\.[\w-]{16}\.[\w-]+$/);
    }
  });

  it('when a sealed sign-secret is copied onto another application, then it does not open there', async () => {
    const apps = await store.db.selectFrom('applications').selectAll().orderBy('client_id').execute();
    const [a, b] = apps as [typeof apps[0], typeof apps[0]];
    expect(openSignSecret(a.id, a.sign_secret_sealed!, keyring)).toMatch(/sign-secret/);
    expect(() => openSignSecret(b.id, a.sign_secret_sealed!, keyring)).toThrow();
  });

  it('when a secret in the file differs from the stored one, then the file is refused unless replacing secrets is asked for', async () => {
    const file = fixtureFleet();
    file.companies[1]!.applications[0]!.sign_secret = 'a-brand-new-sign-secret-for-beta-ops-0123456789';
    file.companies[1]!.applications[0]!.client_secret = 'a-brand-new-client-secret-for-beta-ops-012345';
    const before = await snapshot(store);
    const error = await applyFleet(store.db, fleetOf(file), keyring, 5000).catch((e: unknown) => e);
    expect((error as FleetRejected).problems).toEqual([
      { path: 'companies[1].applications[0].client_secret', message: 'differs from the stored secret; pass --replace-secrets to replace it, or leave it out of the file' },
      { path: 'companies[1].applications[0].sign_secret', message: 'differs from the stored secret; pass --replace-secrets to replace it, or leave it out of the file' },
    ]);
    expect(await snapshot(store)).toEqual(before);
  });

  it('when a secret in the file changes and replacing is asked for, then the application is updated and its credentials version moves on', async () => {
    const file = fixtureFleet();
    file.companies[1]!.applications[0]!.sign_secret = 'a-brand-new-sign-secret-for-beta-ops-0123456789';
    const before = await store.db.selectFrom('applications').selectAll().where('client_id', '=', 'beta-ops').executeTakeFirstOrThrow();
    const result = await applyFleet(store.db, fleetOf(file), keyring, 5000, { replaceSecrets: true });
    expect(result.summary.applications.updated).toBe(1);
    const after = await store.db.selectFrom('applications').selectAll().where('client_id', '=', 'beta-ops').executeTakeFirstOrThrow();
    expect(after.credentials_version).toBe(before.credentials_version + 1);
    expect(openSignSecret(after.id, after.sign_secret_sealed!, keyring)).toBe('a-brand-new-sign-secret-for-beta-ops-0123456789');
  });

  it('when the operator changed something the file does not mention, then re-applying the file keeps the change', async () => {
    await store.db.updateTable('applications').set({ enabled: 0 }).where('client_id', '=', 'alpha-reports').execute();
    // The fixture states no status for this vehicle, but does state its ownership.
    await store.db.updateTable('vehicles').set({ status: 'inactive' }).where('vin', '=', fixtureFleet().companies[0]!.vehicles[2]!.vin).execute();
    const file = fixtureFleet();
    file.companies[1]!.applications[0]!.sign_secret = 'a-brand-new-sign-secret-for-beta-ops-0123456789';
    const result = await applyFleet(store.db, fleetOf(file), keyring, 5500);
    expect(result.changed).toBe(false);
    const app = await store.db.selectFrom('applications').selectAll().where('client_id', '=', 'alpha-reports').executeTakeFirstOrThrow();
    expect(app.enabled).toBe(0);
    const vehicle = await store.db.selectFrom('vehicles').selectAll().where('vin', '=', file.companies[0]!.vehicles[2]!.vin).executeTakeFirstOrThrow();
    expect(vehicle).toMatchObject({ status: 'inactive', ownership: 'rental' });
  });

  it('when the file does state a field, then it wins over the operator\'s change', async () => {
    const file = fixtureFleet();
    file.companies[1]!.applications[0]!.sign_secret = 'a-brand-new-sign-secret-for-beta-ops-0123456789';
    file.companies[0]!.applications[1]!.enabled = true;
    const result = await applyFleet(store.db, fleetOf(file), keyring, 5600);
    expect(result.summary.applications.updated).toBe(1);
    const app = await store.db.selectFrom('applications').selectAll().where('client_id', '=', 'alpha-reports').executeTakeFirstOrThrow();
    expect(app.enabled).toBe(1);
  });

  it('when an application omits its secrets, then they are generated once and not again on re-apply', async () => {
    const file = { companies: [{ id: 'alpha', name: 'Alpha Logistics', plan: 'full', applications: [{ name: 'generated' }] }] };
    const first = await applyFleet(store.db, fleetOf(file), keyring, 6000);
    expect(first.credentials).toEqual([{
      company: 'alpha', application: 'generated', client_id: expect.stringMatching(/^app_[0-9a-f]{20}$/),
      client_secret: expect.stringMatching(/^tcs_[\w-]{43}$/), sign_secret: expect.stringMatching(/^tss_[\w-]{43}$/),
    }]);
    const second = await applyFleet(store.db, fleetOf(file), keyring, 7000);
    expect(second.credentials).toEqual([]);
    expect(second.changed).toBe(false);
  });
});
