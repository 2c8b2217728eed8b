import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../../src/domain/command-catalogue.js';
import { COMMAND_RESULT_FIELDS, documentedResult } from '../../src/domain/command-results.js';

const AT = '2026-11-20 09:00:04';

describe('documented command results', () => {
  it('has result fields for every command of the catalogue', () => {
    for (const name of COMMAND_NAMES) expect(Object.keys(COMMAND_RESULT_FIELDS[name]!)).toContain('date_time');
  });

  it('keeps a well-formed answer of each command as it is', () => {
    const answers: Record<string, Record<string, unknown>> = {
      disable_ignition: { ignition: 'disabled', date_time: AT },
      enable_ignition: { ignition: 'enabled', date_time: AT },
      lock_doors: { doors: 'locked', date_time: AT },
      unlock_doors: { doors: 'unlocked', date_time: AT },
      locate: { latitude: -23.55, longitude: -46.63, heading: 90, speed: 0, date_time: AT },
      start_charging: { charging: 'started', hv_battery_soc: 80.5, date_time: AT },
      stop_charging: { charging: 'stopped', hv_battery_soc: 80.5, date_time: AT },
    };
    for (const [command, answer] of Object.entries(answers)) expect(documentedResult(command, answer)).toStrictEqual(answer);
  });

  it('keeps the nulls of an electric vehicle\'s diagnostics and refuses nulls elsewhere', () => {
    const electric = { fuel_amount: null, fuel_capacity: null, fuel_level: null, oil_remaining_life: null, total_fuel_economy: null, total_fuel_used: null, oil_remaining_life_status: null, odometer: null, seat_belt_status: null, date_time: null };
    expect(documentedResult('diagnostics', electric)).toStrictEqual({ fuel_amount: null, fuel_capacity: null, fuel_level: null, oil_remaining_life: null, total_fuel_economy: null, total_fuel_used: null, oil_remaining_life_status: null });
    expect(documentedResult('locate', { latitude: null, date_time: AT })).toStrictEqual({ date_time: AT });
  });

  it('never reads inherited or prototype keys and never copies unknown ones', () => {
    const raw = JSON.parse('{"__proto__": {"doors": "locked", "date_time": "2026-11-20 09:00:04"}, "constructor": "x", "hasOwnProperty": 1, "extra": 1}') as Record<string, unknown>;
    const out = documentedResult('lock_doors', raw);
    expect(out).toStrictEqual({});
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    const inherited = Object.create({ doors: 'locked' }) as Record<string, unknown>;
    expect(documentedResult('lock_doors', inherited)).toStrictEqual({});
  });

  it.each([
    ['a number as text', { odometer: '12' }],
    ['markup', { odometer: '<script>alert(1)</script>' }],
    ['infinity', { odometer: Number.POSITIVE_INFINITY }],
    ['NaN', { odometer: Number.NaN }],
    ['a boolean', { odometer: true }],
    ['an object', { odometer: { valueOf: 1 } }],
    ['a list', { odometer: [1] }],
    ['a status out of its set', { seat_belt_status: 'Buckled' }],
    ['another command\'s value', { system_power_mode: 'locked' }],
    ['a date_time with an offset', { date_time: '2026-11-20T09:00:04-03:00' }],
    ['a date_time with markup', { date_time: `${AT}<b>` }],
    ['an impossible date_time', { date_time: '2026-13-40 25:61:61' }],
  ])('drops a field holding %s', (_name, raw) => {
    expect(documentedResult('diagnostics', raw)).toStrictEqual({});
  });

  it('gives an empty result for a command it does not know, or a key that only looks like one', () => {
    expect(documentedResult('self_destruct', { date_time: AT })).toStrictEqual({});
    expect(documentedResult('__proto__', { date_time: AT })).toStrictEqual({});
    expect(documentedResult('constructor', { date_time: AT })).toStrictEqual({});
  });

  it('checks values against the command: disable_ignition cannot report "enabled"', () => {
    expect(documentedResult('disable_ignition', { ignition: 'enabled', date_time: AT })).toStrictEqual({ date_time: AT });
    expect(documentedResult('lock_doors', { doors: 'unlocked' })).toStrictEqual({});
  });
});
