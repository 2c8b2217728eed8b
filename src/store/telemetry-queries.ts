import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import type { TelemetryRecord } from '../domain/telemetry-record.js';
import type { Db } from './connection.js';
import type { TelemetryTable } from './schema.js';

export type TelemetryRow = Insertable<TelemetryTable>;

/** Rows per INSERT: 26 columns × 500 stays far below both dialects' bound-parameter limits. */
const INSERT_CHUNK = 500;

export function toTelemetryRow(record: TelemetryRecord, receivedAt: number): TelemetryRow {
  return {
    vin: record.vin,
    ts: record.ts,
    ...(record.values as Partial<TelemetryRow>),
    flag: record.flag === null ? null : JSON.stringify(record.flag),
    received_at: receivedAt,
  };
}

/**
 * Stores records; a (VIN, instant) already stored is kept as it was (first write wins), so a
 * batch resent after a timeout changes nothing. All rows of one call share a transaction.
 */
export async function insertTelemetry(db: Db, rows: readonly TelemetryRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const chunk = rows.slice(i, i + INSERT_CHUNK);
      await trx.insertInto('telemetry').values(chunk).onConflict((oc) => oc.columns(['vin', 'ts']).doNothing()).execute();
    }
  });
}

/** Which of `vins` are registered to the OEM. */
export async function vinsOfOem(db: Db, oem: string, vins: readonly string[]): Promise<Set<string>> {
  if (vins.length === 0) return new Set();
  const rows = await db.selectFrom('vehicles').select('vin').where('oem', '=', oem).where('vin', 'in', [...vins]).execute();
  return new Set(rows.map((r) => r.vin));
}

export type TelemetryColumn = Exclude<keyof TelemetryTable, 'received_at'>;

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
