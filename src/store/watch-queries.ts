/**
 * The geofence evaluator's statements (migration 0023): which changed vehicles have records past
 * their watch cursor, their state, their positions after it, and the guarded write of what a
 * judgement changed.
 */
import type { FenceState } from '../domain/geofences/judge-fence.js';
import type { WatchedPosition } from '../domain/geofences/watch-fences.js';
import { sql } from 'kysely';
import type { Db } from './connection.js';
import { readPositionsAfter } from './telemetry/positions.js';
import { recordsAfter } from './telemetry/read.js';
import { alertStateFromJson, type AlertRecord, type AlertState } from '../domain/alerts/judge-alert.js';

/** Every company's geofence revision: one row per company whose fences ever changed, a small table. */
export async function readAllGeofenceRevisions(db: Db): Promise<Map<string, number>> {
  const rows = await db.selectFrom('geofence_revisions').select(['company_id', 'revision']).execute();
  return new Map(rows.map((r) => [r.company_id, Number(r.revision)]));
}

export interface WatchCandidate {
  readonly vin: string;
  readonly companyId: string;
  /** Instant of the last record judged; null when the vehicle was never judged. */
  readonly judgedUntil: number | null;
  /** The cursor's version (migration 0027); null with no cursor. */
  readonly version: number | null;
}

/** The given vehicles with their company and watch cursor (one indexed statement per page of the feed). */
export async function listWatchCandidates(db: Db, vins: readonly string[]): Promise<WatchCandidate[]> {
  if (vins.length === 0) return [];
  const rows = await db.selectFrom('vehicles as v').leftJoin('watch_cursors as c', 'c.vin', 'v.vin')
    .select(['v.vin', 'v.company_id', 'c.judged_until', 'c.version']).where('v.vin', 'in', [...vins]).execute();
  return rows.map((r) => ({
    vin: r.vin, companyId: r.company_id, judgedUntil: r.judged_until === null ? null : Number(r.judged_until), version: r.version === null ? null : Number(r.version),
  }));
}

export interface StoredWatch {
  readonly previous: { ts: number; lat: number; lon: number; accuracyM: number | null } | undefined;
  readonly fences: Map<string, FenceState>;
  readonly alerts: Map<string, AlertState>;
}

export async function readWatchState(db: Db, vin: string): Promise<StoredWatch> {
  const cursor = await db.selectFrom('watch_cursors').selectAll().where('vin', '=', vin).executeTakeFirst();
  const rows = await db.selectFrom('geofence_states').selectAll().where('vin', '=', vin).execute();
  const previous = cursor?.previous_ts == null || cursor.previous_latitude === null || cursor.previous_longitude === null ? undefined : {
    ts: Number(cursor.previous_ts), lat: cursor.previous_latitude, lon: cursor.previous_longitude, accuracyM: cursor.previous_accuracy_m,
  };
  const fences = new Map(rows.map((r) => [r.geofence_id, {
    inside: Number(r.inside) === 1, pendingSince: r.pending_since === null ? null : Number(r.pending_since), pendingCount: Number(r.pending_count),
    outsideAt: r.outside_latitude === null || r.outside_longitude === null ? null : { lat: r.outside_latitude, lon: r.outside_longitude, accuracyM: r.outside_accuracy_m },
  }]));
  const alertRows = await db.selectFrom('alert_states').select(['rule_id', 'state']).where('vin', '=', vin).execute();
  return { previous, fences, alerts: new Map(alertRows.map((r) => [r.rule_id, alertStateFromJson(r.state)])) };
}

/** A record as the watch reads it: its position (if it has one) for geofences, the rest for alert rules. */
export interface WatchRecord {
  readonly position: WatchedPosition | undefined;
  readonly alert: AlertRecord;
}

/** Every record after `afterTs` (and at or before `upTo` when given), oldest first, with what geofences and alert rules read. */
export async function watchRecordsAfter(db: Db, vin: string, afterTs: number, limit: number, upTo?: number): Promise<WatchRecord[]> {
  const rows = await recordsAfter(db, vin, afterTs, upTo)
    .select(['ts', 'latitude', 'longitude', 'position_accuracy_m', 'received_at', 'speed', 'rpm', 'fuel_level', 'lv_battery_voltage', 'event'])
    .limit(limit).execute();
  return rows.map((r) => {
    const ts = Number(r.ts);
    const receivedAt = Number(r.received_at);
    const hasPosition = r.latitude !== null && r.longitude !== null;
    return {
      position: hasPosition ? { ts, lat: r.latitude!, lon: r.longitude!, accuracyM: r.position_accuracy_m, receivedAt } : undefined,
      alert: {
        ts, receivedAt, speed: r.speed, rpm: r.rpm, fuelLevel: r.fuel_level, lvBatteryVoltage: r.lv_battery_voltage, event: r.event,
        latitude: r.latitude, longitude: r.longitude,
      },
    };
  });
}

/** Positions (records with a fix) recorded after `afterTs` (and at or before `upTo`), oldest first, as the judge reads them. */
export async function watchedPositionsAfter(db: Db, vin: string, afterTs: number, limit: number, upTo?: number): Promise<WatchedPosition[]> {
  return (await readPositionsAfter(db, vin, afterTs, limit, upTo)).map((r) => ({
    ts: Number(r.ts), lat: r.latitude, lon: r.longitude, accuracyM: r.position_accuracy_m, receivedAt: Number(r.received_at),
  }));
}

export interface WatchWrite {
  readonly vin: string;
  /** The cursor the judgement started from: the write happens only if it is still there. */
  readonly expectedJudgedUntil: number | null;
  /** And the version it was read at (null with no cursor): a write by anyone since drops this one. */
  readonly expectedVersion: number | null;
  readonly judgedUntil: number;
  readonly previous: { ts: number; lat: number; lon: number; accuracyM: number | null } | undefined;
  /** The fences whose state changed, with the new state; undefined: back to plain outside. */
  readonly states: ReadonlyMap<string, FenceState | undefined>;
  /** The alert rules whose state changed, with the new state; undefined: back to quiet. */
  readonly alerts: ReadonlyMap<string, AlertState | undefined>;
  readonly now: number;
}

/**
 * Moves the cursor and writes the states, in the caller's transaction; false (nothing written)
 * when another process moved the cursor first, so its judgement stands and this one is dropped.
 */
export async function saveWatch(trx: Db, w: WatchWrite): Promise<boolean> {
  const cursor = {
    judged_until: w.judgedUntil, previous_ts: w.previous?.ts ?? null, previous_latitude: w.previous?.lat ?? null,
    previous_longitude: w.previous?.lon ?? null, previous_accuracy_m: w.previous?.accuracyM ?? null, updated_at: w.now,
  };
  const moved = w.expectedJudgedUntil === null
    ? Number((await trx.insertInto('watch_cursors').values({ vin: w.vin, ...cursor }).onConflict((oc) => oc.column('vin').doNothing()).executeTakeFirst()).numInsertedOrUpdatedRows ?? 0n)
    : Number((await trx.updateTable('watch_cursors').set({ ...cursor, version: sql<number>`version + 1` }).where('vin', '=', w.vin)
      .where('judged_until', '=', w.expectedJudgedUntil).where('version', '=', w.expectedVersion ?? 0).executeTakeFirst()).numUpdatedRows);
  if (moved !== 1) return false;
  for (const [geofenceId, state] of w.states) {
    if (state === undefined) {
      await trx.deleteFrom('geofence_states').where('vin', '=', w.vin).where('geofence_id', '=', geofenceId).execute();
      continue;
    }
    const row = {
      inside: state.inside ? 1 : 0, pending_since: state.pendingSince, pending_count: state.pendingCount,
      outside_latitude: state.outsideAt?.lat ?? null, outside_longitude: state.outsideAt?.lon ?? null, outside_accuracy_m: state.outsideAt?.accuracyM ?? null, changed_at: w.now,
    };
    await trx.insertInto('geofence_states').values({ vin: w.vin, geofence_id: geofenceId, ...row })
      .onConflict((oc) => oc.columns(['vin', 'geofence_id']).doUpdateSet(row)).execute();
  }
  await saveAlertStates(trx, w.vin, w.alerts, w.now);
  return true;
}

/** Writes a vehicle's changed alert states (undefined: quiet, the row goes), in the caller's transaction. */
export async function saveAlertStates(trx: Db, vin: string, states: ReadonlyMap<string, AlertState | undefined>, now: number): Promise<void> {
  for (const [ruleId, state] of states) {
    if (state === undefined) {
      await trx.deleteFrom('alert_states').where('vin', '=', vin).where('rule_id', '=', ruleId).execute();
      continue;
    }
    // A state judged from records is never a silence waiting to fire (a record ends it).
    const row = { state: JSON.stringify(state), changed_at: now, due_at: null };
    await trx.insertInto('alert_states').values({ vin, rule_id: ruleId, ...row }).onConflict((oc) => oc.columns(['vin', 'rule_id']).doUpdateSet(row)).execute();
  }
}

/**
 * Raises the vehicle's cursor version, as a write of its watch state other than the evaluator's
 * (the no_data sweep) must, in the caller's transaction, guarded as the evaluator's own write is:
 * false (nothing to write) when the version is no longer `expectedVersion`, someone having written
 * the vehicle's state since it was read. A vehicle without a cursor gets one dated
 * `judgedUntilIfNew`, where the evaluator would start it anyway.
 */
export async function bumpWatchVersion(trx: Db, vin: string, expectedVersion: number | null, judgedUntilIfNew: number, now: number): Promise<boolean> {
  const moved = expectedVersion === null
    ? (await trx.insertInto('watch_cursors').values({ vin, judged_until: judgedUntilIfNew, updated_at: now }).onConflict((oc) => oc.column('vin').doNothing()).executeTakeFirst()).numInsertedOrUpdatedRows ?? 0n
    : (await trx.updateTable('watch_cursors').set({ version: sql<number>`version + 1` }).where('vin', '=', vin).where('version', '=', expectedVersion).executeTakeFirst()).numUpdatedRows;
  return Number(moved) === 1;
}

/** The cursor versions of these vehicles; a vehicle without a cursor is absent. */
export async function readWatchVersions(db: Db, vins: readonly string[]): Promise<Map<string, number>> {
  if (vins.length === 0) return new Map();
  const rows = await db.selectFrom('watch_cursors').select(['vin', 'version']).where('vin', 'in', [...vins]).execute();
  return new Map(rows.map((r) => [r.vin, Number(r.version)]));
}
