/**
 * The result fields of each command (docs/commands.md, "Command catalogue") and the one function
 * that reduces an automaker's success answer to them. The answer comes from outside our trust
 * boundary and goes to the tenant as it is stored, so only documented fields with their
 * documented types pass: a client that renders `odometer` as a number, or merges `detail` into an
 * object, cannot be handed markup, `__proto__` or `constructor` by a hostile automaker.
 *
 * A field that is missing or malformed is dropped, and the command stays `Success`: the automaker
 * said the vehicle ran it (an ignition may really be disabled now), and reporting `Error` would
 * tell the tenant the opposite. The interface allows `detail` to hold fewer fields, even none.
 */
import type { CommandName } from './command-catalogue.js';

type FieldRule = (value: unknown) => boolean;

const finite: FieldRule = (v) => typeof v === 'number' && Number.isFinite(v);
const finiteOrNull: FieldRule = (v) => v === null || finite(v);
const oneOf = (...values: string[]): FieldRule => (v) => typeof v === 'string' && values.includes(v);
const oneOfOrNull = (...values: string[]): FieldRule => {
  const rule = oneOf(...values);
  return (v) => v === null || rule(v);
};

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
/** `YYYY-MM-DD HH:MM:SS`, a real calendar date and time of day. */
const dateTime: FieldRule = (v) => {
  const m = typeof v === 'string' ? DATE_TIME.exec(v) : null;
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  return new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
};

const tireStatus = oneOf('nominal', 'low', 'high');

const DIAGNOSTICS: Readonly<Record<string, FieldRule>> = {
  // Fuel and oil fields are null on electric vehicles.
  fuel_amount: finiteOrNull,
  fuel_capacity: finiteOrNull,
  fuel_level: finiteOrNull,
  fuel_range: finiteOrNull,
  ideal_front_tire_pressure: finite,
  ideal_rear_tire_pressure: finite,
  left_front_tire_pressure: finite,
  left_rear_tire_pressure: finite,
  right_front_tire_pressure: finite,
  right_rear_tire_pressure: finite,
  odometer: finite,
  oil_remaining_life: finiteOrNull,
  total_fuel_economy: finiteOrNull,
  total_fuel_used: finiteOrNull,
  left_front_tire_pressure_status: tireStatus,
  left_rear_tire_pressure_status: tireStatus,
  right_front_tire_pressure_status: tireStatus,
  right_rear_tire_pressure_status: tireStatus,
  oil_remaining_life_status: oneOfOrNull('normal', 'low'),
  seat_belt_status: oneOf('buckled', 'not buckled'),
  system_power_mode: oneOf('off', 'run'),
  date_time: dateTime,
};

export const COMMAND_RESULT_FIELDS: Readonly<Record<CommandName, Readonly<Record<string, FieldRule>>>> = Object.freeze({
  diagnostics: DIAGNOSTICS,
  disable_ignition: { ignition: oneOf('disabled'), date_time: dateTime },
  enable_ignition: { ignition: oneOf('enabled'), date_time: dateTime },
  lock_doors: { doors: oneOf('locked'), date_time: dateTime },
  unlock_doors: { doors: oneOf('unlocked'), date_time: dateTime },
  locate: { latitude: finite, longitude: finite, heading: finite, speed: finite, date_time: dateTime },
  start_charging: { charging: oneOf('started'), hv_battery_soc: finite, date_time: dateTime },
  stop_charging: { charging: oneOf('stopped'), hv_battery_soc: finite, date_time: dateTime },
});

/** Rules as lists, made once: the check runs for every successful command. */
const RULES: ReadonlyMap<string, readonly (readonly [string, FieldRule])[]> = new Map(
  Object.entries(COMMAND_RESULT_FIELDS).map(([command, fields]) => [command, Object.entries(fields)]),
);

/**
 * The documented fields of `command`'s result found in `raw`, in documented order; every other key
 * is left behind. Only own properties are read (`__proto__` in JSON.parse output is one, and is
 * never a documented name), so nothing inherited can pass.
 */
export function documentedResult(command: string, raw: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, valid] of RULES.get(command) ?? []) {
    if (!Object.hasOwn(raw, name)) continue;
    const value = raw[name];
    if (valid(value)) result[name] = value;
  }
  return result;
}
