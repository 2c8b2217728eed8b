import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectCapabilities } from '../dialect.js';

/**
 * The datapoint columns this migration creates, as they were when it landed. Frozen, not read from
 * the live datapoint list: a datapoint added later comes with a migration of its own, which would
 * fail on a fresh database if this one had already created its column.
 */
export const TELEMETRY_DATAPOINT_COLUMNS_0002 = [
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
] as const;

/**
 * Telemetry: one row per (VIN, instant), a typed column per datapoint, the flag object as JSON.
 * The primary key is the read path (one VIN, a time range, ascending). On PostgreSQL the table is
 * partitioned by day so retention drops whole partitions; partitions are created on demand by
 * `store/telemetry/partitions.ts`. On SQLite it is a WITHOUT ROWID table clustered on the key.
 */
export function telemetryMigration(capabilities: DialectCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const columns = TELEMETRY_DATAPOINT_COLUMNS_0002.map(([name, type]) => sql`${sql.id(name)} ${sql.raw(type)}`);
      const body = sql.join([
        sql`vin varchar(17) not null`,
        sql`ts bigint not null`,
        ...columns,
        sql`flag text`,
        sql`received_at bigint not null`,
        sql`primary key (vin, ts)`,
      ]);
      if (capabilities.rangePartitions) {
        await sql`create table telemetry (${body}) partition by range (ts)`.execute(db);
      } else {
        await sql`create table telemetry (${body}) without rowid`.execute(db);
      }
    },
  };
}
