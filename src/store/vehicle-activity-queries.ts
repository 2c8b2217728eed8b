/**
 * Reads of `vehicle_activity` (migration 0020), the table the statement storing telemetry keeps
 * (telemetry/insert.ts): which vehicles changed, for the followers of the store.
 */
import type { Db } from './connection.js';

export interface ChangedVehicle {
  readonly vin: string;
  /** Instant of its newest stored record. */
  readonly lastSeen: number;
  /** When records of it were last stored. */
  readonly changedAt: number;
}

/** Where a page of changes ended: the next page starts after it. */
export interface ChangePosition {
  readonly changedAt: number;
  readonly vin: string;
}

/**
 * One page of the vehicles changed at or after `since` (every vehicle that has reported when
 * undefined), by change then VIN, after `after`: the (changed_at, vin) index answers it as a
 * range, so a follower reads the few vehicles that changed, not the fleet. A row changed again
 * while a follower pages moves to the end and is read again, which its cursor makes harmless.
 */
export async function listChangedVehicles(db: Db, since: number | undefined, after: ChangePosition | undefined, limit: number): Promise<ChangedVehicle[]> {
  let q = db.selectFrom('vehicle_activity').select(['vin', 'last_seen', 'changed_at']);
  if (since !== undefined) q = q.where('changed_at', '>=', since);
  if (after) q = q.where((eb) => eb(eb.refTuple('changed_at', 'vin'), '>', eb.tuple(after.changedAt, after.vin)));
  const rows = await q.orderBy('changed_at').orderBy('vin').limit(limit).execute();
  return rows.map((r) => ({ vin: r.vin, lastSeen: Number(r.last_seen), changedAt: Number(r.changed_at) }));
}

/** The instant of the vehicle's newest stored record; null when it has none. */
export async function lastSeenOf(db: Db, vin: string): Promise<number | null> {
  const row = await db.selectFrom('vehicle_activity').select('last_seen').where('vin', '=', vin).executeTakeFirst();
  return row === undefined ? null : Number(row.last_seen);
}
