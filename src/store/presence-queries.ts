/**
 * Whether each vehicle is online (it sent a record lately), kept so that `vehicle.online` and
 * `vehicle.offline` are written once per change, by whichever process sees the change first.
 */
import { sql } from 'kysely';
import type { Db } from './connection.js';

export interface PresenceCandidate {
  readonly vin: string;
  readonly companyId: string;
  /** Instant of the vehicle's newest record; null when it has none. */
  readonly lastSeen: number | null;
  /** What was recorded last time: true online, false offline, undefined never looked at. */
  readonly online: boolean | undefined;
}

/** Every vehicle with its newest record (one index probe per vehicle) and its recorded presence. */
export async function listPresence(db: Db): Promise<PresenceCandidate[]> {
  const { rows } = await sql<{ vin: string; company_id: string; last_seen: number | string | null; online: number | null }>`
    select v.vin, v.company_id, (select max(t.ts) from telemetry t where t.vin = v.vin) as last_seen, p.online
    from vehicles v left join vehicle_presence p on p.vin = v.vin`.execute(db);
  return rows.map((r) => ({
    vin: r.vin, companyId: r.company_id, lastSeen: r.last_seen === null ? null : Number(r.last_seen),
    online: r.online === null ? undefined : r.online === 1,
  }));
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
