/**
 * Time-partition upkeep and retention of telemetry, by dialect capability: PostgreSQL keeps one
 * partition per UTC day (created on demand, dropped whole); SQLite deletes in bounded batches.
 */
import { sql } from 'kysely';
import type { StoreConnection } from './connection.js';

const DAY_MS = 86_400_000;
/** Rows per DELETE on SQLite: a short write lock, so ingest is never held up for long. */
const DELETE_BATCH = 5_000;

const partitionName = (day: number) => `telemetry_d${new Date(day * DAY_MS).toISOString().slice(0, 10).replace(/-/g, '')}`;

/** Days (since epoch, UTC) whose partitions this process knows exist. */
const knownPartitions = new WeakMap<StoreConnection, Set<number>>();

/** Makes sure every instant in `timestamps` has a partition to go to. No-op without partitions. */
export async function ensureTelemetryPartitions(store: StoreConnection, timestamps: Iterable<number>): Promise<void> {
  if (!store.capabilities.rangePartitions) return;
  let known = knownPartitions.get(store);
  if (!known) knownPartitions.set(store, (known = new Set()));
  const days = new Set<number>();
  for (const ts of timestamps) days.add(Math.floor(ts / DAY_MS));
  for (const day of days) {
    if (known.has(day)) continue;
    const from = day * DAY_MS;
    try {
      await sql`create table if not exists ${sql.id(partitionName(day))} partition of telemetry for values from (${sql.lit(from)}) to (${sql.lit(from + DAY_MS)})`.execute(store.db);
    } catch (error) {
      // Two instances creating the same partition at once: the loser sees a duplicate; fine.
      if (!/already exists|duplicate key/i.test(String((error as Error).message))) throw error;
    }
    known.add(day);
  }
}

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
      const m = /^telemetry_d(\d{4})(\d{2})(\d{2})$/.exec(name);
      if (!m) continue;
      const dayEnd = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) + DAY_MS;
      if (dayEnd > cutoff) continue;
      await sql`drop table if exists ${sql.id(name)}`.execute(store.db);
      knownPartitions.get(store)?.delete(Math.floor((dayEnd - DAY_MS) / DAY_MS));
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
