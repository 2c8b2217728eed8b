/**
 * Telemetry's time partitions, where the dialect has them (PostgreSQL): one per UTC day, created
 * on demand and dropped whole by retention (retention.ts).
 */
import { sql } from 'kysely';
import type { StoreConnection } from '../connection.js';

export const DAY_MS = 86_400_000;

const partitionName = (day: number) => `telemetry_d${new Date(day * DAY_MS).toISOString().slice(0, 10).replace(/-/g, '')}`;

/** The day (since epoch, UTC) a partition named by `partitionName` holds; undefined for any other name. */
export function partitionDay(name: string): number | undefined {
  const m = /^telemetry_d(\d{4})(\d{2})(\d{2})$/.exec(name);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / DAY_MS : undefined;
}

/** Makes sure every instant in `timestamps` has a partition to go to. No-op without partitions. */
export async function ensureTelemetryPartitions(store: StoreConnection, timestamps: Iterable<number>): Promise<void> {
  if (!store.capabilities.rangePartitions) return;
  const known = store.telemetryPartitions;
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
