/**
 * The no_data sweep's statements (alerts/silence-sweep.ts): the vehicles whose newest record
 * crossed a rule's cutoff between two sweeps (the last-seen index of vehicle_activity), the
 * silences held back by the cooldown or the schedule that are now due (migration 0026), their
 * states, and the write of one judged silence.
 */
import { alertStateFromJson, type AlertState } from '../domain/alerts/judge-alert.js';
import type { Db } from './connection.js';

export interface SilentVehicle {
  readonly vin: string;
  readonly lastSeen: number;
}

/**
 * One page of the company's vehicles whose newest record is in [from, before), by last record
 * then VIN, after `after`: the ones that went silent between two sweeps (the last-seen index).
 */
export async function listGoneSilent(
  db: Db, companyId: string, from: number, before: number, after: SilentVehicle | undefined, limit: number,
): Promise<SilentVehicle[]> {
  let q = db.selectFrom('vehicle_activity as a').innerJoin('vehicles as v', 'v.vin', 'a.vin')
    .select(['a.vin', 'a.last_seen']).where('v.company_id', '=', companyId).where('a.last_seen', '>=', from).where('a.last_seen', '<', before);
  if (after) q = q.where((eb) => eb(eb.refTuple('a.last_seen', 'a.vin'), '>', eb.tuple(after.lastSeen, after.vin)));
  const rows = await q.orderBy('a.last_seen').orderBy('a.vin').limit(limit).execute();
  return rows.map((r) => ({ vin: r.vin, lastSeen: Number(r.last_seen) }));
}

/** One page, by VIN after `after`, of the rule's silences due at `now`, with their vehicle's newest record. */
export async function listSilencesDue(db: Db, ruleId: string, now: number, after: SilentVehicle | undefined, limit: number): Promise<SilentVehicle[]> {
  let q = db.selectFrom('alert_states as s').innerJoin('vehicle_activity as a', 'a.vin', 's.vin')
    .select(['s.vin', 'a.last_seen']).where('s.rule_id', '=', ruleId).where('s.due_at', '<=', now);
  if (after) q = q.where('s.vin', '>', after.vin);
  const rows = await q.orderBy('s.vin').limit(limit).execute();
  return rows.map((r) => ({ vin: r.vin, lastSeen: Number(r.last_seen) }));
}

export interface StoredSilence {
  readonly state: AlertState;
  readonly dueAt: number | null;
}

/** The rule's states of these vehicles, with when each is due; a vehicle without a row is quiet. */
export async function readSilenceStates(db: Db, ruleId: string, vins: readonly string[]): Promise<Map<string, StoredSilence>> {
  if (vins.length === 0) return new Map();
  const rows = await db.selectFrom('alert_states').select(['vin', 'state', 'due_at']).where('rule_id', '=', ruleId).where('vin', 'in', [...vins]).execute();
  return new Map(rows.map((r) => [r.vin, { state: alertStateFromJson(r.state), dueAt: r.due_at === null ? null : Number(r.due_at) }]));
}

/** Writes one vehicle's state of a no_data rule and when it is due, in the caller's transaction. */
export async function saveSilence(trx: Db, vin: string, ruleId: string, silence: StoredSilence, now: number): Promise<void> {
  const row = { state: JSON.stringify(silence.state), changed_at: now, due_at: silence.dueAt };
  await trx.insertInto('alert_states').values({ vin, rule_id: ruleId, ...row }).onConflict((oc) => oc.columns(['vin', 'rule_id']).doUpdateSet(row)).execute();
}
