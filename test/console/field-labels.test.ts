/** Every field the console shows has a human name in both languages, and a unit where it has one. */
import { describe, expect, it } from 'vitest';
import { DATAPOINTS } from '../../packages/contract/src/datapoints.js';
import { fieldLabel, fieldName } from '../../packages/console/src/i18n/field-labels.js';

const DIAGNOSTICS = ['fuel_amount', 'fuel_capacity', 'fuel_level', 'fuel_range', 'ideal_front_tire_pressure', 'ideal_rear_tire_pressure', 'odometer',
  'oil_remaining_life', 'total_fuel_economy', 'total_fuel_used', 'left_front_tire_pressure_status', 'oil_remaining_life_status', 'seat_belt_status', 'system_power_mode'];
const TRIPS = ['distance', 'avg_speed', 'max_speed', 'avg_fuel_consumption'];

describe('console field labels', () => {
  it('when a datapoint, diagnostics or trip field is shown, then it has a name in English and Portuguese, never its raw name', () => {
    const fields = [...DATAPOINTS.map((d) => d.name).filter((n) => n !== 'vin' && n !== 'flag'), ...DIAGNOSTICS, ...TRIPS];
    for (const name of fields) {
      for (const locale of ['en', 'pt-BR'] as const) expect(fieldName(name, locale), `${name} (${locale})`).not.toContain('_');
    }
  });

  it('when a field has a unit, then the label carries it', () => {
    expect(fieldLabel('speed', 'en')).toBe('Speed (km/h)');
    expect(fieldLabel('speed', 'pt-BR')).toBe('Velocidade (km/h)');
    expect(fieldLabel('heading', 'en')).toBe('Heading (°)');
    expect(fieldLabel('total_fuel_economy', 'pt-BR')).toBe('Consumo médio (km/l)');
    expect(fieldLabel('latitude', 'en')).toBe('Latitude');
  });
});
