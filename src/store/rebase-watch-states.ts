/**
 * The per-vehicle states a replaced alert rule or geofence leaves, re-based in the transaction of
 * the replacement, with the version of each affected vehicle's watch cursor raised (migration
 * 0027): an evaluator keeping a copy of one of those states reads it again, and a judgement under
 * way with the old one is dropped instead of saved over the re-based state.
 */
import { sql } from 'kysely';
import { alertStateFromJson, type AlertState } from '../domain/alerts/judge-alert.js';
import type { RebasedAlertState } from '../domain/alerts/rebase-alert-state.js';
import type { Db } from './connection.js';

/** Raises the cursor version of every vehicle with a state row in `table` for `column` = `id`. */
async function bumpVersionsOf(trx: Db, table: 'alert_states' | 'geofence_states', column: 'rule_id' | 'geofence_id', id: string): Promise<void> {
  await trx.updateTable('watch_cursors').set({ version: sql<number>`version + 1` })
    .where('vin', 'in', sql<string>`(select vin from ${sql.table(table)} where ${sql.ref(column)} = ${id})`).execute();
}

/** Each vehicle's state of the rule through `rebase` (undefined: the row goes), in the caller's transaction. */
export async function rebaseAlertStates(
  trx: Db, ruleId: string, rebase: (vin: string, state: AlertState) => RebasedAlertState | undefined, now: number,
): Promise<void> {
  const rows = await trx.selectFrom('alert_states').select(['vin', 'state']).where('rule_id', '=', ruleId).execute();
  if (rows.length === 0) return;
  await bumpVersionsOf(trx, 'alert_states', 'rule_id', ruleId);
  for (const row of rows) {
    const rebased = rebase(row.vin, alertStateFromJson(row.state));
    if (rebased === undefined) await trx.deleteFrom('alert_states').where('vin', '=', row.vin).where('rule_id', '=', ruleId).execute();
    else {
      await trx.updateTable('alert_states').set({ state: JSON.stringify(rebased.state), due_at: rebased.dueAt, changed_at: now })
        .where('vin', '=', row.vin).where('rule_id', '=', ruleId).execute();
    }
  }
}

/**
 * A replaced geofence's states: a vehicle confirmed inside stays inside (inside the old shape and
 * the new one it sees no exit and entry; outside the new one, its next positions confirm an exit
 * as for any vehicle leaving), with any change pending its dwell dropped; every other state (an
 * entry pending, the last position outside kept for a crossing) was judged against the old shape
 * and goes: the vehicle is plain outside, and the new shape judges it from its next position.
 */
export async function rebaseFenceStates(trx: Db, geofenceId: string, now: number): Promise<void> {
  await bumpVersionsOf(trx, 'geofence_states', 'geofence_id', geofenceId);
  await trx.deleteFrom('geofence_states').where('geofence_id', '=', geofenceId).where('inside', '=', 0).execute();
  await trx.updateTable('geofence_states')
    .set({ pending_since: null, pending_count: 0, outside_latitude: null, outside_longitude: null, outside_accuracy_m: null, changed_at: now })
    .where('geofence_id', '=', geofenceId).execute();
}
