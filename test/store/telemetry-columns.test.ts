/**
 * Migration 0002 creates the telemetry table from a frozen column list, not the live datapoint
 * list: a later datapoint's own migration must find its column missing on a fresh database. What
 * a fresh database ends up with must still equal what schema.ts declares and what the service stores.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORED_DATAPOINTS } from '../../src/domain/telemetry-record.js';
import type { StoreConnection } from '../../src/store/connection.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { TELEMETRY_DATAPOINT_COLUMNS_0002 } from '../../src/store/migrations/0002-telemetry.js';
import { openStore } from '../../src/store/open-store.js';
import { UNNEST_COLUMN_TYPES } from '../../src/store/telemetry/insert.js';
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from '../support/databases.js';

describe('migration 0002', () => {
  it('when its column list is read, then it is exactly the one it landed with (a new datapoint gets a migration of its own)', () => {
    expect(TELEMETRY_DATAPOINT_COLUMNS_0002).toEqual([
      ['speed', 'double precision'],
      ['latitude', 'double precision'],
      ['longitude', 'double precision'],
      ['heading', 'double precision'],
      ['rpm', 'double precision'],
      ['odometer', 'double precision'],
      ['fuel_level', 'double precision'],
      ['range', 'double precision'],
      ['left_front_tire_pressure', 'double precision'],
      ['right_front_tire_pressure', 'double precision'],
      ['left_rear_tire_pressure', 'double precision'],
      ['right_rear_tire_pressure', 'double precision'],
      ['oil_level', 'double precision'],
      ['engine_cooling_temperature', 'double precision'],
      ['lv_battery_voltage', 'double precision'],
      ['hv_battery_voltage', 'double precision'],
      ['hv_battery_soc', 'double precision'],
      ['hv_battery_charging_status', 'text'],
      ['seat_belt_status', 'text'],
      ['event', 'text'],
    ]);
  });
});

/**
 * The telemetry columns that are not datapoints, and why each is there: every other column holds
 * a datapoint of the interface. A column added here must not reach GET /vehicle-data.
 */
const NON_DATAPOINT_COLUMNS: Readonly<Record<string, string>> = {
  vin: 'whose record (the key, with ts)',
  ts: 'the record\'s instant, epoch ms (rendered as date_time)',
  flag: 'D8\'s corrections, rendered as the flag datapoint',
  received_at: 'when the edge received it; the geofence evaluator reads it to mark a record late',
  position_accuracy_m: 'the source\'s estimated horizontal accuracy, read by the geofence evaluator (D13), never shown',
};

/** A column's type as UNNEST_COLUMN_TYPES names it, from either dialect's own name for it. */
const TYPE_NAMES: Readonly<Record<string, string>> = {
  'varchar(17)': 'varchar', 'character varying': 'varchar', bigint: 'int8', 'double precision': 'float8', text: 'text',
};

describe.each(DATABASE_KINDS)('telemetry columns of a fresh database on %s', (kind) => {
  let database: TestDatabase;
  let store: StoreConnection;
  let columns: Record<string, string>;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = openStore(database.url, { poolSize: 1 });
    await migrateToLatest(store);
    const { rows } = kind === 'sqlite'
      ? await sql<{ name: string; type: string }>`select name, type from pragma_table_info('telemetry')`.execute(store.db)
      : await sql<{ name: string; type: string }>`select column_name as name, data_type as type from information_schema.columns
          where table_schema = current_schema() and table_name = 'telemetry'`.execute(store.db);
    columns = Object.fromEntries(rows.map((r) => [r.name, TYPE_NAMES[r.type.toLowerCase()] ?? r.type]));
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('when every migration has run, then its columns and their types are those schema.ts declares', () => {
    expect(columns).toEqual(UNNEST_COLUMN_TYPES);
  });

  it('when every migration has run, then every stored datapoint has its column and no other datapoint column exists', () => {
    const datapointColumns = Object.keys(columns).filter((name) => !Object.hasOwn(NON_DATAPOINT_COLUMNS, name));
    expect(datapointColumns.sort()).toEqual(STORED_DATAPOINTS.map((d) => d.name).sort());
  });

  it('when every migration has run, then each column that is not a datapoint is one of those listed with a reason, and each of them exists', () => {
    const datapoints = new Set(STORED_DATAPOINTS.map((d) => d.name));
    expect(Object.keys(columns).filter((name) => !datapoints.has(name)).sort()).toEqual(Object.keys(NON_DATAPOINT_COLUMNS).sort());
    expect(columns.position_accuracy_m).toBe('float8');
  });
});
