/**
 * What a simulated vehicle answers a command with, from its state at the moment it runs it and
 * its `sim.profile` (`flaky` fails communication half of the time, `privacy` will not locate,
 * only an electric vehicle charges, a moving one will not disable its ignition). Results carry
 * every field the interface lists for the command (units in docs/commands.md).
 */
import { formatSpacedLocal } from '../domain/time.js';
import type { SeededRandom } from './seeded-random.js';
import type { SimulatedVehicle } from './simulated-vehicle.js';

export type CommandAnswer = { status: 'success'; result: Record<string, unknown> } | { status: 'error'; error: string };

/** The vehicle runs `command` now, due at `dueAt`, from its current state (it may change it). */
export function answerCommand(v: SimulatedVehicle, command: string, dueAt: number, rng: SeededRandom): CommandAnswer {
  if (v.profile === 'flaky' && rng.chance(0.5)) return { status: 'error', error: 'communication' };
  const at = formatSpacedLocal(dueAt);
  const moving = v.profile === 'moving' || v.speedKmh > 0 || v.ignitionOn;
  switch (command) {
    case 'diagnostics': return { status: 'success', result: diagnostics(v, at) };
    case 'disable_ignition':
      if (moving) return { status: 'error', error: 'blocked' };
      v.immobilized = true;
      return { status: 'success', result: { ignition: 'disabled', date_time: at } };
    case 'enable_ignition':
      v.immobilized = false;
      return { status: 'success', result: { ignition: 'enabled', date_time: at } };
    case 'lock_doors': return { status: 'success', result: { doors: 'locked', date_time: at } };
    case 'unlock_doors': return { status: 'success', result: { doors: 'unlocked', date_time: at } };
    case 'locate':
      if (v.profile === 'privacy') return { status: 'error', error: 'restricted' };
      return { status: 'success', result: { latitude: round(v.position.lat, 6), longitude: round(v.position.lon, 6), heading: round(v.heading, 1), speed: round(v.speedKmh, 1), date_time: at } };
    case 'start_charging':
    case 'stop_charging':
      if (v.powertrain !== 'electric') return { status: 'error', error: 'unsupported' };
      return { status: 'success', result: { charging: command === 'start_charging' ? 'started' : 'stopped', hv_battery_soc: round(v.energyPct, 1), date_time: at } };
    default: return { status: 'error', error: 'unsupported' };
  }
}

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
const tireStatus = (kpa: number, ideal: number) => (kpa < ideal * 0.85 ? 'low' : kpa > ideal * 1.15 ? 'high' : 'nominal');

/** Every field the interface lists for a diagnostics result; units in docs/commands.md. */
function diagnostics(v: SimulatedVehicle, at: string): Record<string, unknown> {
  const combustion = v.powertrain === 'combustion';
  const capacity = combustion ? v.tankLiters : null;
  const economy = 11.8;
  const [lf, rf, lr, rr] = v.tires;
  return {
    fuel_amount: capacity === null ? null : round((v.energyPct / 100) * capacity, 1),
    fuel_capacity: capacity,
    fuel_level: combustion ? round(v.energyPct, 1) : null,
    fuel_range: round(v.rangeKm, 1),
    ideal_front_tire_pressure: 230,
    ideal_rear_tire_pressure: 220,
    left_front_tire_pressure: round(lf, 1),
    left_rear_tire_pressure: round(lr, 1),
    right_front_tire_pressure: round(rf, 1),
    right_rear_tire_pressure: round(rr, 1),
    odometer: round(v.odometerKm, 1),
    oil_remaining_life: combustion ? round(v.oilPct, 0) : null,
    total_fuel_economy: combustion ? economy : null,
    total_fuel_used: combustion ? round(v.odometerKm / economy, 1) : null,
    left_front_tire_pressure_status: tireStatus(lf, 230),
    left_rear_tire_pressure_status: tireStatus(lr, 220),
    right_front_tire_pressure_status: tireStatus(rf, 230),
    right_rear_tire_pressure_status: tireStatus(rr, 220),
    oil_remaining_life_status: combustion ? (v.oilPct < 25 ? 'low' : 'normal') : null,
    seat_belt_status: v.ignitionOn ? 'buckled' : 'not buckled',
    system_power_mode: v.ignitionOn ? 'run' : 'off',
    date_time: at,
  };
}
