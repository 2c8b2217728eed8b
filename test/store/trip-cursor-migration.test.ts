/**
 * Migration 0009 moves "this cursor holds an open trip" out of the state JSON into a column: a
 * database migrated before it keeps its open trips findable.
 */
import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreConnection } from '../../src/store/connection.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { openStore } from '../../src/store/open-store.js';
import { listOpenTripsQuietBefore } from '../../src/store/trips-queries.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';

describe.each(DATABASE_KINDS)('migration 0009 on %s', (kind) => {
  let database: TestDatabase;
  let store: StoreConnection;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = openStore(database.url, { poolSize: 2 });
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('when cursors were saved before it, then those with an open trip are found by the column afterwards', async () => {
    const migrator = new Migrator({ db: store.db, provider: migrationProvider(store.capabilities) });
    const { error } = await migrator.migrateTo('0008-events');
    expect(error).toBeUndefined();
    const now = Date.UTC(2026, 10, 20);
    await store.db.insertInto('plans').values({ name: 'p', datapoints: '"*"', commands: '"*"', created_at: now, updated_at: now }).execute();
    await store.db.insertInto('companies').values({ id: 'acme', name: 'Acme', plan: 'p', created_at: now, updated_at: now }).execute();
    await store.db.insertInto('oems').values({ name: 'o', connector: 'sim', base_url: null, ingest_key_hash: null, datapoints: '"*"', commands: '"*"', created_at: now, updated_at: now }).execute();
    const vehicle = (vin: string) => ({ vin, company_id: 'acme', plate: 'X', oem: 'o', model: 'M', year: 2020, status: 'active', ownership: 'owned', fuel_capacity: null, sim: null, created_at: now, updated_at: now });
    await store.db.insertInto('vehicles').values([vehicle('9BWZZZ377VT100001'), vehicle('9BWZZZ377VT100002')]).execute();
    const cursor = (vin: string, state: unknown) => ({ vin, processed_until: now, rewind_from: null, state: JSON.stringify(state), updated_at: now });
    await store.db.insertInto('trip_cursors').values([
      cursor('9BWZZZ377VT100001', { lastTs: now - 5000, trip: { start: { ts: now - 60_000 } } }),
      cursor('9BWZZZ377VT100002', { lastTs: now - 5000, trip: null }),
    ] as never).execute();
    await migrateToLatest(store);
    expect(await listOpenTripsQuietBefore(store.db, Number.MAX_SAFE_INTEGER, undefined, 100)).toEqual([{ vin: '9BWZZZ377VT100001', fuel_capacity: null, lastTs: now - 5000 }]);
  });
});
