/**
 * Retention of telemetry, by dialect capability: PostgreSQL drops whole day partitions
 * (partitions.ts); SQLite deletes in bounded batches.
 */
import { sql } from 'kysely';
import type { StoreConnection } from '../connection.js';
import { DAY_MS, partitionDay } from './partitions.js';

/** Rows per DELETE on SQLite: a short write lock, so ingest is never held up for long. */
const DELETE_BATCH = 5_000;

export interface RetentionReport {
  readonly deletedRows: number;
  readonly droppedPartitions: readonly string[];
}

/** Removes telemetry older than `cutoff` (epoch ms). Nothing at or after the cutoff is touched. */
export async function dropTelemetryBefore(store: StoreConnection, cutoff: number): Promise<RetentionReport> {
  if (store.capabilities.rangePartitions) {
    const { rows } = await sql<{ name: string }>`
      select c.relname as name from pg_inherits i
      join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
      where p.relname = 'telemetry'`.execute(store.db);
    const dropped: string[] = [];
    for (const { name } of rows) {
      const day = partitionDay(name);
      if (day === undefined) continue;
      const dayEnd = (day + 1) * DAY_MS;
      if (dayEnd > cutoff) continue;
      await sql`drop table if exists ${sql.id(name)}`.execute(store.db);
      store.telemetryPartitions.delete(day);
      dropped.push(name);
    }
    // The day that straddles the cutoff keeps its partition; its older rows are deleted.
    const deleted = await store.db.deleteFrom('telemetry').where('ts', '<', cutoff).executeTakeFirst();
    return { deletedRows: Number(deleted.numDeletedRows), droppedPartitions: dropped };
  }
  const vins = await store.db.selectFrom('vehicles').select('vin').execute();
  let deletedRows = 0;
  for (const { vin } of vins) {
    for (;;) {
      const result = await sql`delete from telemetry where vin = ${vin} and ts in (
        select ts from telemetry where vin = ${vin} and ts < ${cutoff} order by ts limit ${DELETE_BATCH})`.execute(store.db);
      const n = Number(result.numAffectedRows ?? 0n);
      deletedRows += n;
      if (n < DELETE_BATCH) break;
    }
  }
  // Rows of VINs no longer registered (deleted vehicles) go too.
  const orphans = await store.db.deleteFrom('telemetry').where('ts', '<', cutoff)
    .where('vin', 'not in', store.db.selectFrom('vehicles').select('vin')).executeTakeFirst();
  return { deletedRows: deletedRows + Number(orphans.numDeletedRows), droppedPartitions: [] };
}
