/**
 * What the console calls the interface's fields: a name a person reads, with its unit, in both
 * languages ("Speed (km/h)" for `speed`). Datapoint units come from the contract's catalogue;
 * diagnostics and trip fields carry the units docs/commands.md and docs/trips.md give them. A
 * field not listed here is shown under its own name.
 */
import { DATAPOINTS } from '@telematics/contract/datapoints';
import type { Locale } from './i18n.js';

type Names = Readonly<Record<string, readonly [en: string, ptBR: string]>>;

const NAMES: Names = {
  date_time: ['Recorded at', 'Registrado em'],
  speed: ['Speed', 'Velocidade'],
  latitude: ['Latitude', 'Latitude'],
  longitude: ['Longitude', 'Longitude'],
  heading: ['Heading', 'Rumo'],
  rpm: ['Engine speed', 'Rotação do motor'],
  odometer: ['Odometer', 'Hodômetro'],
  fuel_level: ['Fuel level', 'Nível de combustível'],
  range: ['Range', 'Autonomia'],
  left_front_tire_pressure: ['Left front tyre', 'Pneu dianteiro esquerdo'],
  right_front_tire_pressure: ['Right front tyre', 'Pneu dianteiro direito'],
  left_rear_tire_pressure: ['Left rear tyre', 'Pneu traseiro esquerdo'],
  right_rear_tire_pressure: ['Right rear tyre', 'Pneu traseiro direito'],
  oil_level: ['Oil level', 'Nível de óleo'],
  engine_cooling_temperature: ['Coolant temperature', 'Temperatura do arrefecimento'],
  lv_battery_voltage: ['Battery', 'Bateria'],
  hv_battery_voltage: ['Traction battery voltage', 'Tensão da bateria de tração'],
  hv_battery_soc: ['Traction battery charge', 'Carga da bateria de tração'],
  hv_battery_charging_status: ['Charging', 'Recarga'],
  seat_belt_status: ['Seat belt', 'Cinto de segurança'],
  event: ['Event', 'Evento'],
  fuel_amount: ['Fuel in the tank', 'Combustível no tanque'],
  fuel_capacity: ['Tank capacity', 'Capacidade do tanque'],
  fuel_range: ['Range on fuel', 'Autonomia com o combustível'],
  ideal_front_tire_pressure: ['Ideal front tyre pressure', 'Pressão ideal dos pneus dianteiros'],
  ideal_rear_tire_pressure: ['Ideal rear tyre pressure', 'Pressão ideal dos pneus traseiros'],
  oil_remaining_life: ['Oil life left', 'Vida útil restante do óleo'],
  total_fuel_economy: ['Fuel economy', 'Consumo médio'],
  total_fuel_used: ['Fuel used', 'Combustível consumido'],
  left_front_tire_pressure_status: ['Left front tyre status', 'Situação do pneu dianteiro esquerdo'],
  right_front_tire_pressure_status: ['Right front tyre status', 'Situação do pneu dianteiro direito'],
  left_rear_tire_pressure_status: ['Left rear tyre status', 'Situação do pneu traseiro esquerdo'],
  right_rear_tire_pressure_status: ['Right rear tyre status', 'Situação do pneu traseiro direito'],
  oil_remaining_life_status: ['Oil life status', 'Situação da vida útil do óleo'],
  system_power_mode: ['Power mode', 'Modo de energia'],
  distance: ['Distance', 'Distância'],
  avg_speed: ['Average speed', 'Velocidade média'],
  max_speed: ['Top speed', 'Velocidade máxima'],
  avg_fuel_consumption: ['Fuel use', 'Consumo'],
  lowest_tire_pressure: ['Lowest tyre', 'Pneu mais baixo'],
};

/** The contract's units as the screen writes them: a degree sign, not the word. */
const SYMBOLS: Readonly<Record<string, string>> = { degrees: '°' };
const UNITS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(DATAPOINTS.flatMap((d) => (d.unit === undefined ? [] : [[d.name, SYMBOLS[d.unit] ?? d.unit]]))),
  fuel_amount: 'l', fuel_capacity: 'l', fuel_range: 'km', ideal_front_tire_pressure: 'kPa', ideal_rear_tire_pressure: 'kPa',
  oil_remaining_life: '%', total_fuel_economy: 'km/l', total_fuel_used: 'l',
  distance: 'km', avg_speed: 'km/h', max_speed: 'km/h', avg_fuel_consumption: 'km/l', lowest_tire_pressure: 'kPa',
};

/** Coordinates are angles, but a reader knows them as bare numbers with decimals. */
const NO_UNIT_SHOWN = new Set(['latitude', 'longitude']);

export const unitOf = (name: string): string | undefined => (NO_UNIT_SHOWN.has(name) ? undefined : UNITS[name]);

/** "Speed", "Velocidade"; the field's own name when unknown. */
export function fieldName(name: string, locale: Locale): string {
  const names = NAMES[name];
  return names ? names[locale === 'en' ? 0 : 1] : name;
}

/** "Speed (km/h)", "Velocidade (km/h)"; without a unit, the name alone. */
export function fieldLabel(name: string, locale: Locale): string {
  const unit = unitOf(name);
  return unit === undefined ? fieldName(name, locale) : `${fieldName(name, locale)} (${unit})`;
}

/** Decimals a value is shown with: whole numbers where a tenth means nothing. */
export function digitsOf(name: string): number {
  return name === 'rpm' || name.endsWith('tire_pressure') || name === 'heading' ? 0 : 1;
}
