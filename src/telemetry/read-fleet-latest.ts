/**
 * GET /vehicle-data/latest: every vehicle of the company with its newest record and the state that
 * record implies. A record holds what POST /vehicle-data would let the company ask for of that
 * vehicle (its plan ∩ the vehicle automaker's datapoints), so a fleet of mixed automakers reads in
 * one call instead of failing on the datapoint one of them lacks.
 */
import type { FleetLatest } from '@telematics/contract';
import { DATAPOINTS } from '../domain/datapoints.js';
import { formatSpacedLocal } from '../domain/time.js';
import { vehicleState, type StateSettings } from '../domain/vehicle-state.js';
import type { DatapointAllowed } from '../domain/event-visibility.js';
import type { StoreConnection } from '../store/connection.js';
import { newestRecordsOfCompany, recordsBefore, type NewestTelemetryRow } from '../store/telemetry/newest-records.js';
import { checkStoredRow, type OnUnreadableRow, type StoredFlag } from '../domain/stored-record.js';
import { datapointAllowancesByOem } from '../events/datapoint-allowances.js';

/** Records looked at, newest first, behind a newest record that cannot be read (checkStoredRow). */
const FALLBACK_ROWS = 100;

/**
 * A vehicle whose newest record cannot be read is answered with its newest readable one of the
 * FALLBACK_ROWS before it (none: `no_data`); each skipped row goes to `onUnreadable`.
 */
export async function readFleetLatest(
  store: StoreConnection, companyId: string, now: number, settings: StateSettings, onUnreadable: OnUnreadableRow,
): Promise<FleetLatest> {
  const [rows, allowancesOf] = await Promise.all([newestRecordsOfCompany(store.db, companyId), datapointAllowancesByOem(store, companyId)]);
  const latest: FleetLatest = [];
  for (const newest of rows) {
    const allowed = allowancesOf(newest.oem);
    const check = newest.ts === null ? undefined : checkStoredRow(newest);
    // The common case, a readable newest record, costs no turn of the event loop per vehicle.
    const found = check === undefined ? undefined
      : check.ok ? { row: newest, ts: newest.ts!, flag: check.flag }
        : await olderReadableRecord(store, newest, check.column, onUnreadable);
    if (found === undefined) {
      latest.push({ vin: newest.vin, state: 'no_data', record: null });
      continue;
    }
    const { row, ts, flag } = found;
    const readable = (name: 'speed' | 'rpm') => (allowed(name) ? (row[name] as number | null) : undefined);
    const state = vehicleState({ ts, speed: readable('speed'), rpm: readable('rpm') }, now, settings);
    latest.push({ vin: newest.vin, state, record: recordOf(row, ts, flag, allowed) });
  }
  return latest;
}

type Readable = { row: NewestTelemetryRow; ts: number; flag: StoredFlag | null };

/** The newest readable record behind `newest`, which could not be read (its `column`). */
async function olderReadableRecord(store: StoreConnection, newest: NewestTelemetryRow, column: string, onUnreadable: OnUnreadableRow): Promise<Readable | undefined> {
  onUnreadable(newest.vin, newest.ts, column);
  for (const older of await recordsBefore(store.db, newest.vin, newest.ts!, FALLBACK_ROWS)) {
    const row = { ...older, vin: newest.vin, oem: newest.oem, ts: Number(older.ts) } as NewestTelemetryRow;
    const checked = checkStoredRow(row);
    if (checked.ok) return { row, ts: row.ts!, flag: checked.flag };
    onUnreadable(newest.vin, older.ts, checked.column);
  }
  return undefined;
}

function recordOf(row: NewestTelemetryRow, ts: number, flag: StoredFlag | null, allowed: DatapointAllowed): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const { name } of DATAPOINTS) {
    if (!allowed(name)) continue;
    if (name === 'vin') record.vin = row.vin;
    else if (name === 'date_time') record.date_time = formatSpacedLocal(ts);
    else if (name === 'flag') record.flag = flag === null ? {} : Object.fromEntries(Object.entries(flag).filter(([key]) => allowed(key)));
    else record[name] = row[name as keyof NewestTelemetryRow] ?? null;
  }
  return record;
}
