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
import { newestRecordsOfCompany, type NewestTelemetryRow } from '../store/telemetry-queries.js';
import { datapointAllowancesByOem } from '../events/datapoint-allowances.js';

export async function readFleetLatest(store: StoreConnection, companyId: string, now: number, settings: StateSettings): Promise<FleetLatest> {
  const [rows, allowancesOf] = await Promise.all([newestRecordsOfCompany(store.db, companyId), datapointAllowancesByOem(store, companyId)]);
  return rows.map((row) => {
    const allowed = allowancesOf(row.oem);
    if (row.ts === null) return { vin: row.vin, state: 'no_data', record: null };
    const readable = (name: 'speed' | 'rpm') => (allowed(name) ? (row[name] as number | null) : undefined);
    const state = vehicleState({ ts: row.ts, speed: readable('speed'), rpm: readable('rpm') }, now, settings);
    return { vin: row.vin, state, record: recordOf(row, row.ts, allowed) };
  });
}

function recordOf(row: NewestTelemetryRow, ts: number, allowed: DatapointAllowed): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const { name } of DATAPOINTS) {
    if (!allowed(name)) continue;
    if (name === 'vin') record.vin = row.vin;
    else if (name === 'date_time') record.date_time = formatSpacedLocal(ts);
    else if (name === 'flag') record.flag = flagsOf(row.flag, allowed);
    else record[name] = row[name as keyof NewestTelemetryRow] ?? null;
  }
  return record;
}

function flagsOf(stored: unknown, allowed: DatapointAllowed): Record<string, unknown> {
  if (typeof stored !== 'string') return {};
  return Object.fromEntries(Object.entries(JSON.parse(stored) as Record<string, unknown>).filter(([name]) => allowed(name)));
}
