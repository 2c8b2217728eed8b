/**
 * Whether each vehicle is online (it sent a record lately), kept so that `vehicle.online` and
 * `vehicle.offline` are written once per change, by whichever process sees the change first.
 */
import type { Db } from './connection.js';

export interface PresenceCandidate {
  readonly vin: string;
  readonly companyId: string;
  /** What was recorded last time: true online, false offline, undefined never looked at. */
  readonly online: boolean | undefined;
}

/** The recorded presence of `vins` (vehicles that changed), with their companies. */
export async function listPresenceOf(db: Db, vins: readonly string[]): Promise<PresenceCandidate[]> {
  if (vins.length === 0) return [];
  const rows = await db.selectFrom('vehicles as v').leftJoin('vehicle_presence as p', 'p.vin', 'v.vin')
    .select(['v.vin', 'v.company_id', 'p.online']).where('v.vin', 'in', [...vins]).execute();
  return rows.map((r) => ({ vin: r.vin, companyId: r.company_id, online: r.online === null ? undefined : r.online === 1 }));
}

/** A vehicle going quiet, with the instant of its newest record (where the next page starts). */
export interface QuietCandidate extends PresenceCandidate {
  readonly lastSeen: number;
}

/**
 * The vehicles recorded online whose newest record is older than `cutoff`: those going offline,
 * one page by newest record then VIN, after `after`. With `from`, only those whose newest record
 * is at or after it (the ones that crossed the cutoff since the pass before): a range of the
 * last-seen index of migration 0020, so the pass reads the vehicles changing state, not every
 * quiet one.
 */
export async function listGoneQuiet(
  db: Db, cutoff: number, from: number | undefined, after: { lastSeen: number; vin: string } | undefined, limit: number,
): Promise<QuietCandidate[]> {
  let q = db.selectFrom('vehicle_activity as a')
    .innerJoin('vehicle_presence as p', 'p.vin', 'a.vin').innerJoin('vehicles as v', 'v.vin', 'a.vin')
    .select(['a.vin', 'a.last_seen', 'v.company_id']).where('p.online', '=', 1).where('a.last_seen', '<', cutoff);
  if (from !== undefined) q = q.where('a.last_seen', '>=', from);
  if (after) q = q.where((eb) => eb(eb.refTuple('a.last_seen', 'a.vin'), '>', eb.tuple(after.lastSeen, after.vin)));
  const rows = await q.orderBy('a.last_seen').orderBy('a.vin').limit(limit).execute();
  return rows.map((r) => ({ vin: r.vin, companyId: r.company_id, online: true, lastSeen: Number(r.last_seen) }));
}

/**
 * Records a vehicle's presence if it is not what is recorded (`from`: the state it was read in;
 * undefined, no row yet). True when this call made the change: only then is it an event.
 */
export async function changePresence(db: Db, vin: string, from: boolean | undefined, to: boolean, lastSeen: number | null, now: number): Promise<boolean> {
  if (from === undefined) {
    const inserted = await db.insertInto('vehicle_presence').values({ vin, online: to ? 1 : 0, last_seen: lastSeen, changed_at: now })
      .onConflict((oc) => oc.column('vin').doNothing()).returning('vin').execute();
    return inserted.length === 1;
  }
  const updated = await db.updateTable('vehicle_presence').set({ online: to ? 1 : 0, last_seen: lastSeen, changed_at: now })
    .where('vin', '=', vin).where('online', '=', from ? 1 : 0).executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}
