/**
 * The datapoint catalogue of the vehicle data record, with the units and ranges of D8.
 * Package plans and OEM capabilities name datapoints from this list.
 */
export type DatapointKind = 'identity' | 'time' | 'number' | 'category' | 'event' | 'flags';

export interface DatapointSpec {
  readonly name: string;
  readonly kind: DatapointKind;
  readonly unit?: string;
  readonly min?: number;
  readonly max?: number;
  readonly description: string;
}

const numeric = (name: string, unit: string, min: number, max: number, description: string): DatapointSpec =>
  Object.freeze({ name, kind: 'number', unit, min, max, description });

export const DATAPOINTS: readonly DatapointSpec[] = Object.freeze([
  { name: 'vin', kind: 'identity', description: 'Vehicle Identification Number' },
  { name: 'date_time', kind: 'time', description: 'When the vehicle recorded the values, YYYY-MM-DD HH:MM:SS at -03:00' },
  numeric('speed', 'km/h', 0, 400, 'Vehicle speed'),
  numeric('latitude', 'degrees', -90, 90, 'GPS latitude (WGS 84)'),
  numeric('longitude', 'degrees', -180, 180, 'GPS longitude (WGS 84)'),
  numeric('heading', 'degrees', 0, 360, 'Direction of travel, clockwise from north'),
  numeric('rpm', 'rpm', 0, 12000, 'Engine speed'),
  numeric('odometer', 'km', 0, 3_000_000, 'Total distance driven'),
  numeric('fuel_level', '%', 0, 100, 'Fuel left in the tank'),
  numeric('range', 'km', 0, 3000, 'Estimated distance left on fuel or charge'),
  numeric('left_front_tire_pressure', 'kPa', 0, 1000, 'Left front tire pressure'),
  numeric('right_front_tire_pressure', 'kPa', 0, 1000, 'Right front tire pressure'),
  numeric('left_rear_tire_pressure', 'kPa', 0, 1000, 'Left rear tire pressure'),
  numeric('right_rear_tire_pressure', 'kPa', 0, 1000, 'Right rear tire pressure'),
  numeric('oil_level', '%', 0, 100, 'Engine oil level'),
  numeric('engine_cooling_temperature', '°C', -50, 200, 'Engine coolant temperature'),
  numeric('lv_battery_voltage', 'V', 0, 60, 'Low-voltage (12/24 V) battery voltage'),
  numeric('hv_battery_voltage', 'V', 0, 1500, 'High-voltage traction battery voltage (EVs)'),
  numeric('hv_battery_soc', '%', 0, 100, 'High-voltage battery state of charge (EVs)'),
  { name: 'hv_battery_charging_status', kind: 'category', description: 'Charging state of the HV battery: charging or other' },
  { name: 'seat_belt_status', kind: 'category', description: "Driver seat belt: buckled or not buckled" },
  { name: 'event', kind: 'event', description: 'Event carried by the record, e.g. charging plug status change' },
  { name: 'flag', kind: 'flags', description: 'Values corrected at ingest: {name: {value, flag}}' },
].map((spec) => Object.freeze(spec as DatapointSpec)));

export const DATAPOINT_NAMES: readonly string[] = Object.freeze(DATAPOINTS.map((d) => d.name));

const byName = new Map(DATAPOINTS.map((d) => [d.name, d]));

export function isKnownDatapoint(name: string): boolean {
  return byName.has(name);
}

export function datapointSpec(name: string): DatapointSpec | undefined {
  return byName.get(name);
}
