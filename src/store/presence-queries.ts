/**
 * Whether each vehicle is online (it sent a record lately), kept so that `vehicle.online` and
 * `vehicle.offline` are written once per change, by whichever process sees the change first.
 */
import { sql } from 'kysely';
import type { Db } from './connection.js';

export interface PresenceCandidate {
  readonly vin: string;
  readonly companyId: string;
  /** Whether the vehicle has a record at or after the cutoff. */
  readonly recent: boolean;
  /** What was recorded last time: true online, false offline, undefined never looked at. */
  readonly online: boolean | undefined;
}

/**
 * Every vehicle, whether it has a record since `cutoff` (one index probe per vehicle, bounded by
 * time so PostgreSQL looks at recent partitions only), and its recorded presence.
 */
export async function listPresence(db: Db, cutoff: number): Promise<PresenceCandidate[]> {
  const { rows } = await sql<{ vin: string; company_id: string; recent: number | boolean; online: number | null }>`
    select v.vin, v.company_id, exists (select 1 from telemetry t where t.vin = v.vin and t.ts >= ${cutoff}) as recent, p.online
    from vehicles v left join vehicle_presence p on p.vin = v.vin`.execute(db);
  return rows.map((r) => ({
    vin: r.vin, companyId: r.company_id, recent: r.recent === true || r.recent === 1,
    online: r.online === null ? undefined : r.online === 1,
  }));
}

/** The instant of the vehicle's newest record; null when it has none. */
export async function newestRecordTs(db: Db, vin: string): Promise<number | null> {
  const row = await db.selectFrom('telemetry').select((eb) => eb.fn.max('ts').as('ts')).where('vin', '=', vin).executeTakeFirst();
  return row?.ts === null || row?.ts === undefined ? null : Number(row.ts);
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
