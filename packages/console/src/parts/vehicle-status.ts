/** What the fleet screen flags from a vehicle's newest record (thresholds a fleet manager reads as "act"). */
import { serviceInstant } from '../i18n/i18n.js';
import type { DataRecord, VehicleState } from '../types.js';

export const LOW_FUEL_PERCENT = 15;
export const LOW_BATTERY_VOLTS = 11.8;
export const LOW_TYRE_KPA = 200;

export const STATE_ORDER: readonly VehicleState[] = ['moving', 'idle', 'parked', 'online', 'offline', 'no_data'];

const TYRES = ['left_front_tire_pressure', 'right_front_tire_pressure', 'left_rear_tire_pressure', 'right_rear_tire_pressure'] as const;

export const numberOf = (record: DataRecord | null, name: string): number | undefined => {
  const value = record?.[name];
  return typeof value === 'number' ? value : undefined;
};

export function lowestTyre(record: DataRecord | null): number | undefined {
  const values = TYRES.map((name) => numberOf(record, name)).filter((v): v is number => v !== undefined);
  return values.length === 0 ? undefined : Math.min(...values);
}

export function alertsOf(record: DataRecord | null): { lowFuel: boolean; lowBattery: boolean; lowTyre: boolean } {
  const fuel = numberOf(record, 'fuel_level');
  const battery = numberOf(record, 'lv_battery_voltage');
  const tyre = lowestTyre(record);
  return {
    lowFuel: fuel !== undefined && fuel < LOW_FUEL_PERCENT,
    lowBattery: battery !== undefined && battery < LOW_BATTERY_VOLTS,
    lowTyre: tyre !== undefined && tyre < LOW_TYRE_KPA,
  };
}

/**
 * The state to show: the service's, unless the record it was judged from has since grown older
 * than the service's offline threshold (the page held the answer while time passed), when it is
 * `offline` — a vehicle last seen an hour ago is not "Moving".
 */
export function shownState(latest: { readonly state: VehicleState; readonly record: DataRecord | null }, offlineAfterMs: number, now: number): VehicleState {
  const at = latest.record?.date_time;
  if (latest.state === 'no_data' || latest.state === 'offline' || at === undefined) return latest.state;
  return serviceInstant(at).getTime() < now - offlineAfterMs ? 'offline' : latest.state;
}
