import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectCapabilities } from '../dialect.js';
import { STORED_DATAPOINTS } from '../../domain/telemetry-record.js';

/**
 * Telemetry: one row per (VIN, instant), a typed column per datapoint, the flag object as JSON.
 * The primary key is the read path (one VIN, a time range, ascending). On PostgreSQL the table is
 * partitioned by day so retention drops whole partitions; partitions are created on demand by
 * `telemetry-partitions.ts`. On SQLite it is a WITHOUT ROWID table clustered on the key.
 */
export function telemetryMigration(capabilities: DialectCapabilities): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const columns = STORED_DATAPOINTS.map((d) => sql`${sql.id(d.name)} ${d.kind === 'number' ? sql`double precision` : sql`text`}`);
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
