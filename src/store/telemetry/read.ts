/** Stored records of single vehicles: pages of a window, whether a window holds any, the first, last and newest values. */
import { sql } from 'kysely';
import type { Db } from '../connection.js';
import type { TelemetryTable } from '../schema.js';

/** The columns a datapoint read may ask for: not the service's own bookkeeping, which the interface never shows. */
export type TelemetryColumn = Exclude<keyof TelemetryTable, 'received_at' | 'position_accuracy_m'>;

/**
 * A VIN's records in (after, upTo], ascending: what the followers of the store (trip detection,
 * the geofence evaluator) read past their per-VIN cursor, one range of the primary key. Without
 * `upTo`, every record after `after`. The caller picks the columns and the page size.
 */
export function recordsAfter(db: Db, vin: string, after: number, upTo?: number) {
  const range = db.selectFrom('telemetry').where('vin', '=', vin).where('ts', '>', after);
  return (upTo === undefined ? range : range.where('ts', '<=', upTo)).orderBy('ts');
}

/** One page of a VIN's records in [start, end], ascending, strictly after `afterTs` (keyset paging). */
export function readTelemetryPage(
  db: Db, vin: string, start: number, end: number, afterTs: number, limit: number, columns: readonly TelemetryColumn[],
) {
  return db.selectFrom('telemetry').select(['ts', ...columns])
    .where('vin', '=', vin).where('ts', '>=', Math.max(start, afterTs + 1)).where('ts', '<=', end)
    .orderBy('ts').limit(limit).execute();
}

/** Whether any of the VINs has a record in [start, end]: one index probe per VIN. */
export async function anyTelemetry(db: Db, vins: readonly string[], start: number, end: number): Promise<boolean> {
  for (const vin of vins) {
    const row = await db.selectFrom('telemetry').select(sql<number>`1`.as('one'))
      .where('vin', '=', vin).where('ts', '>=', start).where('ts', '<=', end).limit(1).executeTakeFirst();
    if (row) return true;
  }
  return false;
}

/** The oldest instant stored for a VIN. */
export async function oldestTelemetryTs(db: Db, vin: string): Promise<number | undefined> {
  const row = await db.selectFrom('telemetry').select('ts').where('vin', '=', vin).orderBy('ts').limit(1).executeTakeFirst();
  return row?.ts;
}

/** The latest instant stored for a VIN. */
export async function latestTelemetryTs(db: Db, vin: string): Promise<number | undefined> {
  const row = await db.selectFrom('telemetry').select('ts').where('vin', '=', vin).orderBy('ts', 'desc').limit(1).executeTakeFirst();
  return row?.ts;
}

/** The latest record of a VIN with a position and an odometer (the simulator resumes from it). */
export function latestPositionedTelemetry(db: Db, vin: string) {
  return db.selectFrom('telemetry').select(['ts', 'latitude', 'longitude', 'odometer', 'fuel_level', 'hv_battery_soc'])
    .where('vin', '=', vin).where('latitude', 'is not', null).where('longitude', 'is not', null).where('odometer', 'is not', null)
    .orderBy('ts', 'desc').limit(1).executeTakeFirst();
}

/** The latest record of a VIN with a position (a share link's page), not older than `since`. */
export async function latestPosition(db: Db, vin: string, since: number) {
  const row = await db.selectFrom('telemetry').select(['ts', 'latitude', 'longitude'])
    .where('vin', '=', vin).where('ts', '>=', since).where('latitude', 'is not', null).where('longitude', 'is not', null)
    .orderBy('ts', 'desc').limit(1).executeTakeFirst();
  return row && { ...row, ts: Number(row.ts) };
}

/** The newest non-null value of each of `columns` for a VIN (a diagnostics answer from stored data). */
export async function latestValues<C extends TelemetryColumn>(db: Db, vin: string, columns: readonly C[]): Promise<Partial<Record<C, number | string | null>>> {
  const values: Partial<Record<C, number | string | null>> = {};
  for (const column of columns) {
    const row = await db.selectFrom('telemetry').select(column).where('vin', '=', vin).where(column, 'is not', null)
      .orderBy('ts', 'desc').limit(1).executeTakeFirst();
    if (row) values[column] = (row as unknown as Record<C, number | string | null>)[column];
  }
  return values;
}
