/**
 * Position accuracy in the store: migration 0022 gives the column to telemetry already stored
 * (on PostgreSQL, to the day partitions that exist and to those made later), and
 * readPositionsAfter answers a vehicle's positions past an instant, as the geofence evaluator
 * reads them.
 */
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreConnection } from '../../src/store/connection.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { openStore } from '../../src/store/open-store.js';
import { insertTelemetry, type TelemetryRow } from '../../src/store/telemetry/insert.js';
import { DAY_MS, ensureTelemetryPartitions } from '../../src/store/telemetry/partitions.js';
import { readPositionsAfter } from '../../src/store/telemetry/positions.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';

const T = Date.UTC(2026, 10, 20, 12, 0, 0);
const VIN = '9BWZZZ377VT200001';

describe.each(DATABASE_KINDS)('position accuracy in the store on %s', (kind) => {
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

  it('when telemetry was stored before migration 0022, then those rows read as unknown accuracy and rows of old and new partitions keep theirs', async () => {
    const migrator = new Migrator({ db: store.db, provider: migrationProvider(store.capabilities) });
    expect((await migrator.migrateTo('0020-vehicle-activity')).error).toBeUndefined();
    await ensureTelemetryPartitions(store, [T]);
    await sql`insert into telemetry (vin, ts, latitude, longitude, received_at) values (${VIN}, ${T}, -23.5, -46.6, ${T})`.execute(store.db);
    await migrateToLatest(store);
    // A day that had no partition before the migration gets one now, made by the live code.
    await ensureTelemetryPartitions(store, [T + DAY_MS]);
    const row = (ts: number, position_accuracy_m: number | null): TelemetryRow => ({ vin: VIN, ts, latitude: -23.5, longitude: -46.6, flag: null, received_at: ts, position_accuracy_m });
    await insertTelemetry(store, [row(T + 1000, 8.5), row(T + DAY_MS, 25), row(T + DAY_MS + 1000, null)], T + DAY_MS);
    const stored = await store.db.selectFrom('telemetry').select(['ts', 'position_accuracy_m']).where('vin', '=', VIN).orderBy('ts').execute();
    expect(stored).toEqual([
      { ts: T, position_accuracy_m: null }, { ts: T + 1000, position_accuracy_m: 8.5 },
      { ts: T + DAY_MS, position_accuracy_m: 25 }, { ts: T + DAY_MS + 1000, position_accuracy_m: null },
    ]);
    if (kind === 'postgres') {
      const { rows } = await sql<{ table_name: string }>`select table_name from information_schema.columns
        where table_schema = current_schema() and column_name = 'position_accuracy_m' order by table_name`.execute(store.db);
      expect(rows.map((r) => r.table_name)).toEqual(['telemetry', 'telemetry_d20261120', 'telemetry_d20261121']);
    }
  });

  it('when positions are read after an instant, then they come ascending with their accuracy and arrival, records without a position skipped, up to the limit and the bound', async () => {
    const vin = '9BWZZZ377VT200002';
    const other = '9BWZZZ377VT200003';
    const at = (s: number) => T + s * 1000;
    const positioned = (v: string, s: number, accuracy: number | null): TelemetryRow => ({
      vin: v, ts: at(s), latitude: -23.5 - s / 1e4, longitude: -46.6, speed: s, flag: null, received_at: at(s) + 700, position_accuracy_m: accuracy,
    });
    await insertTelemetry(store, [
      positioned(vin, 5, 12), positioned(vin, 1, 6), positioned(vin, 3, null), positioned(other, 2, 9),
      { vin, ts: at(2), latitude: null, longitude: null, speed: 0, flag: null, received_at: at(2) },
      { vin, ts: at(4), latitude: -23.5, longitude: null, flag: null, received_at: at(4) },
      { vin, ts: at(6), odometer: 10, flag: null, received_at: at(6) },
      positioned(vin, 7, 30),
    ], at(10));
    const expected = (s: number, accuracy: number | null) => ({ ts: at(s), latitude: -23.5 - s / 1e4, longitude: -46.6, speed: s, position_accuracy_m: accuracy, received_at: at(s) + 700 });
    expect(await readPositionsAfter(store.db, vin, at(0), 100)).toEqual([expected(1, 6), expected(3, null), expected(5, 12), expected(7, 30)]);
    expect(await readPositionsAfter(store.db, vin, at(1), 2)).toEqual([expected(3, null), expected(5, 12)]);
    expect(await readPositionsAfter(store.db, vin, at(1), 100, at(5))).toEqual([expected(3, null), expected(5, 12)]);
    expect(await readPositionsAfter(store.db, vin, at(7), 100)).toEqual([]);
  });
});
