/**
 * The alert judge (domain/alerts/judge-alert.ts): each kind fires once after its duration, not
 * before; an episode ends when its condition is seen false (past a hysteresis for low values);
 * the cooldown holds even across episodes; schedules gate; missing values neither start nor end
 * an episode; storms cannot happen. Between records the state goes through JSON, as the
 * evaluator stores it.
 */
import { describe, expect, it } from 'vitest';
import type { AlertKind, AlertRule } from '../../src/domain/alerts/alert-rule.js';
import { coversVehicle } from '../../src/domain/alerts/watch-alerts.js';
import {
  alertStateFromJson, compileAlertRule, isQuietState, judgeAlert, judgeSilence, QUIET_STATE, type AlertFiring, type AlertRecord, type AlertState,
} from '../../src/domain/alerts/judge-alert.js';

const S = 1000;
const MIN = 60 * S;
/** Monday 2026-11-16 09:00 in São Paulo (12:00Z). */
const MON_09 = Date.UTC(2026, 10, 16, 12);
const MOVING_KMH = 3;
const OFFICE = { timeZone: 'America/Sao_Paulo', weekly: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'] as const, from: '08:00', to: '18:00' }] };
/** An instant on Monday 2026-11-16, São Paulo wall clock. */
const monday = (hh: number, mm: number, ss = 0) => Date.UTC(2026, 10, 16, hh + 3, mm, ss);

const rule = (kind: AlertKind, fields: Partial<AlertRule> = {}) => compileAlertRule({
  id: 'rule-1', name: 'Rule', kind, vins: null, threshold: null, durationS: 0, schedule: null, cooldownS: 600, enabled: true, ...fields,
});

const rec = (ts: number, fields: Partial<AlertRecord> = {}): AlertRecord => ({
  ts, receivedAt: ts, speed: null, rpm: null, fuelLevel: null, lvBatteryVoltage: null, event: null, latitude: null, longitude: null, ...fields,
});

/** Records `every` apart from `start`, each with the fields `at(i)` gives. */
const series = (start: number, count: number, every: number, at: (i: number) => Partial<AlertRecord>) =>
  Array.from({ length: count }, (_, i) => rec(start + i * every, at(i)));

/** Runs the records through the rule, the state through JSON between each, as the evaluator does. */
function run(r: ReturnType<typeof rule>, records: readonly AlertRecord[], start: AlertState = QUIET_STATE) {
  let state = start;
  const fired: AlertFiring[] = [];
  for (const record of records) {
    const judged = judgeAlert(r, state, record, MOVING_KMH);
    const stored = alertStateFromJson(JSON.stringify(judged.state));
    expect(stored).toEqual(judged.state);
    state = stored;
    if (judged.fired) fired.push(judged.fired);
  }
  return { state, fired };
}

describe('overspeed', () => {
  const speeding = rule('overspeed', { threshold: 90, durationS: 60 });

  it('when speeding lasts past the duration, then it fires once, at the record that completed it, with the highest speed so far', () => {
    const records = series(MON_09, 19, 10 * S, (i) => ({ speed: i === 3 ? 130 : 100 + i, latitude: -23.5, longitude: -46.6 }));
    const { fired } = run(speeding, records);
    expect(fired).toEqual([{ kind: 'overspeed', at: MON_09 + 60 * S, since: MON_09, speed: 130, limit: 90, position: { latitude: -23.5, longitude: -46.6 } }]);
  });

  it('when speeding stops before the duration, then nothing fires; at the limit is not over it', () => {
    expect(run(speeding, [...series(MON_09, 6, 10 * S, () => ({ speed: 100 })), rec(MON_09 + 60 * S, { speed: 90 })]).fired).toEqual([]);
    expect(run(rule('overspeed', { threshold: 90 }), series(MON_09, 10, 10 * S, () => ({ speed: 90 }))).fired).toEqual([]);
  });

  it('when a record has no speed, then it neither starts nor ends an episode', () => {
    const gap = [rec(MON_09, { speed: 100 }), rec(MON_09 + 30 * S, { latitude: -23.5, longitude: -46.6 }), rec(MON_09 + 60 * S, { speed: 95 })];
    expect(run(speeding, gap).fired.map((f) => [f.at, f.since])).toEqual([[MON_09 + 60 * S, MON_09]]);
    expect(run(speeding, series(MON_09, 10, 10 * S, () => ({})))).toEqual({ state: QUIET_STATE, fired: [] });
  });

  it('when an episode clears, then the next fires only once the cooldown has passed, even if it began during it', () => {
    const r = rule('overspeed', { threshold: 90, durationS: 60, cooldownS: 600 });
    const records = [
      ...series(MON_09, 7, 10 * S, () => ({ speed: 100 })), // fires at +60 s
      rec(MON_09 + 2 * MIN, { speed: 50 }),
      ...series(MON_09 + 3 * MIN, 7, 10 * S, () => ({ speed: 100 })), // held 60 s at +4 min: in the cooldown
      rec(MON_09 + 5 * MIN, { speed: 50 }),
      ...series(MON_09 + 8 * MIN, 19, 10 * S, () => ({ speed: 100 })), // from +8 min; the cooldown ends at +11 min
    ];
    const { fired } = run(r, records);
    expect(fired.map((f) => [f.at - MON_09, f.since - MON_09])).toEqual([[60 * S, 0], [11 * MIN, 8 * MIN]]);
  });

  it('when a speed flickers around the limit every 10 s for 10 minutes, then one event, not one per crossing (cooldown 0 would give 30)', () => {
    const flicker = series(MON_09, 60, 10 * S, (i) => ({ speed: i % 2 === 0 ? 91 : 89 }));
    expect(run(rule('overspeed', { threshold: 90 }), flicker).fired).toHaveLength(1);
    expect(run(rule('overspeed', { threshold: 90, cooldownS: 0 }), flicker).fired).toHaveLength(30);
  });

  it('when the rule has a schedule, then an episode fires only inside it, at its first record there', () => {
    const r = rule('overspeed', { threshold: 90, durationS: 60, schedule: OFFICE });
    const early = series(monday(7, 57), 31, 10 * S, () => ({ speed: 100 })); // 07:57 to 08:02
    expect(run(r, early).fired.map((f) => [f.at, f.since])).toEqual([[monday(8, 0), monday(7, 57)]]);
    expect(run(r, series(monday(19, 0), 30, 10 * S, () => ({ speed: 100 }))).fired).toEqual([]);
  });

  it('when the rule is disabled, then it fires nothing', () => {
    expect(run(rule('overspeed', { threshold: 90, enabled: false }), series(MON_09, 30, 10 * S, () => ({ speed: 150 }))).fired).toEqual([]);
  });

  it('when the triggering record has no position, then the firing has none', () => {
    expect(run(rule('overspeed', { threshold: 90 }), [rec(MON_09, { speed: 100, latitude: -23.5 })]).fired[0]!.position).toBeNull();
  });
});

describe('idling', () => {
  const idle = rule('idling', { durationS: 300 });

  it('when the engine runs (rpm) standing still for the duration, then it fires once, with since and the duration', () => {
    const { fired } = run(idle, series(MON_09, 40, 10 * S, () => ({ rpm: 800, speed: 0 })));
    expect(fired).toEqual([{ kind: 'idling', at: MON_09 + 300 * S, since: MON_09, durationS: 300, position: null }]);
  });

  it('when the vehicle moves or the engine stops before the duration, then nothing fires', () => {
    const moves = series(MON_09, 40, 10 * S, (i) => ({ rpm: 800, speed: i === 20 ? 20 : 0 }));
    expect(run(idle, moves).fired.map((f) => f.since)).toEqual([]);
    const stops = series(MON_09, 40, 10 * S, (i) => ({ rpm: i === 20 ? 0 : 800, speed: 0 }));
    expect(run(idle, stops).fired).toEqual([]);
  });

  it('when records have no rpm, then the ignition carried from event values decides; unknown is not idling', () => {
    const carried = [rec(MON_09, { event: 'ignition on', speed: 0 }), ...series(MON_09 + 10 * S, 40, 10 * S, () => ({ speed: 0 }))];
    expect(run(idle, carried).fired.map((f) => f.at - MON_09)).toEqual([300 * S]);
    const off = [rec(MON_09, { event: 'ignition on', speed: 0 }), rec(MON_09 + 200 * S, { event: 'ignition off', speed: 0 }), ...series(MON_09 + 210 * S, 40, 10 * S, () => ({ speed: 0 }))];
    expect(run(idle, off).fired).toEqual([]);
    expect(run(idle, series(MON_09, 60, 10 * S, () => ({ speed: 0 }))).fired).toEqual([]);
  });

  it('when the engine is on but the speed missing, then the episode neither starts nor ends there', () => {
    const records = [rec(MON_09, { rpm: 800, speed: 0 }), ...series(MON_09 + 10 * S, 40, 10 * S, () => ({ rpm: 800 })), rec(MON_09 + 420 * S, { rpm: 800, speed: 0 })];
    expect(run(idle, records).fired.map((f) => [f.at - MON_09, f.kind === 'idling' && f.durationS])).toEqual([[420 * S, 420]]);
    expect(run(idle, series(MON_09, 60, 10 * S, () => ({ rpm: 800 }))).fired).toEqual([]);
  });

  it('when the speed is at the moving speed, then the vehicle stands (as trip detection counts it); just above, it moves', () => {
    expect(run(idle, series(MON_09, 40, 10 * S, () => ({ rpm: 800, speed: 3 }))).fired).toHaveLength(1);
    expect(run(idle, series(MON_09, 40, 10 * S, () => ({ rpm: 800, speed: 3.1 }))).fired).toEqual([]);
  });

  it('when idling comes back within the cooldown, then it waits; after it, it fires again', () => {
    const r = rule('idling', { durationS: 60, cooldownS: 600 });
    const records = series(MON_09, 121, 10 * S, (i) => ({ rpm: 800, speed: i % 30 === 29 ? 30 : 0 })); // moves every 5 minutes
    expect(run(r, records).fired.map((f) => (f.at - MON_09) / S)).toEqual([60, 660]);
  });
});

describe('low_fuel and low_battery', () => {
  it('when fuel drops below the threshold, then it fires at once (duration 0) with the level and threshold', () => {
    const { fired } = run(rule('low_fuel', { threshold: 10 }), [rec(MON_09, { fuelLevel: 12 }), rec(MON_09 + MIN, { fuelLevel: 10 }), rec(MON_09 + 2 * MIN, { fuelLevel: 9.5 })]);
    expect(fired).toEqual([{ kind: 'low_fuel', at: MON_09 + 2 * MIN, since: MON_09 + 2 * MIN, fuelLevel: 9.5, threshold: 10, position: null }]);
  });

  it('when the level flickers at the threshold, then it is one episode until it is 2 % above; back below after the cooldown, it fires again', () => {
    const levels = [9.5, 10.5, 9.8, 11.9, 9.9, 11.99, 12, 9];
    const r = rule('low_fuel', { threshold: 10, cooldownS: 0 });
    const { fired } = run(r, levels.map((fuelLevel, i) => rec(MON_09 + i * MIN, { fuelLevel })));
    expect(fired.map((f) => (f.kind === 'low_fuel' ? f.fuelLevel : undefined))).toEqual([9.5, 9]);
    const cooled = run(rule('low_fuel', { threshold: 10, cooldownS: 600 }), levels.map((fuelLevel, i) => rec(MON_09 + i * MIN, { fuelLevel })));
    expect(cooled.fired).toHaveLength(1);
  });

  it('when the level must stay low for a duration, then a short dip does not fire; a missing level does not end it', () => {
    const r = rule('low_fuel', { threshold: 10, durationS: 600 });
    expect(run(r, [rec(MON_09, { fuelLevel: 9 }), rec(MON_09 + 5 * MIN, { fuelLevel: 15 }), rec(MON_09 + 11 * MIN, { fuelLevel: 9 })]).fired).toEqual([]);
    const held = run(r, [rec(MON_09, { fuelLevel: 9 }), rec(MON_09 + 5 * MIN, { speed: 40 }), rec(MON_09 + 10 * MIN, { fuelLevel: 8.5 })]);
    expect(held.fired.map((f) => [f.at - MON_09, f.since - MON_09])).toEqual([[10 * MIN, 0]]);
  });

  it('when the battery flickers around 11.8 V, then one episode; it ends at 12.1 V exactly (no rounding drift)', () => {
    const r = rule('low_battery', { threshold: 11.8, cooldownS: 0 });
    const volts = [11.7, 11.9, 12.0, 11.6, 12.1, 11.5];
    const { fired } = run(r, volts.map((lvBatteryVoltage, i) => rec(MON_09 + i * MIN, { lvBatteryVoltage })));
    expect(fired.map((f) => (f.kind === 'low_battery' ? [f.lvBatteryVoltage, f.threshold] : undefined))).toEqual([[11.7, 11.8], [11.5, 11.8]]);
  });
});

describe('after_hours', () => {
  const night = rule('after_hours', { schedule: OFFICE });

  it('when the vehicle is used outside working hours, then it fires with its speed and ignition; inside them, nothing', () => {
    const evening = run(night, [rec(monday(19, 0), { speed: 40, rpm: 2000, latitude: -23.5, longitude: -46.6 })]);
    expect(evening.fired).toEqual([{ kind: 'after_hours', at: monday(19, 0), since: monday(19, 0), speed: 40, ignition: true, position: { latitude: -23.5, longitude: -46.6 } }]);
    expect(run(night, series(monday(9, 0), 60, MIN, () => ({ speed: 40, rpm: 2000 }))).fired).toEqual([]);
  });

  it('when use goes on past the end of working hours, then the episode starts at the first record after it', () => {
    const { fired } = run(rule('after_hours', { schedule: OFFICE, durationS: 120 }), series(monday(17, 58), 10, MIN, () => ({ speed: 50 })));
    expect(fired.map((f) => [f.since, f.at])).toEqual([[monday(18, 0), monday(18, 2)]]);
  });

  it('when the ignition comes on at night without speed or rpm, then that is use; parked with the engine off is not', () => {
    expect(run(night, [rec(monday(22, 0), { event: 'ignition on' })]).fired.map((f) => (f.kind === 'after_hours' ? [f.speed, f.ignition] : undefined))).toEqual([[null, true]]);
    expect(run(night, series(monday(22, 0), 30, MIN, () => ({ speed: 0, rpm: 0 }))).fired).toEqual([]);
    expect(run(night, series(monday(22, 0), 30, MIN, () => ({ speed: 0 }))).fired).toEqual([]);
  });

  it('when night use stops and starts again, then the second fires only after the cooldown', () => {
    const records = [rec(monday(20, 0), { speed: 40 }), rec(monday(20, 5), { speed: 0, rpm: 0 }), rec(monday(20, 8), { speed: 40 }), rec(monday(20, 9), { speed: 0, rpm: 0 }), rec(monday(20, 20), { speed: 40 })];
    expect(run(night, records).fired.map((f) => f.at)).toEqual([monday(20, 0), monday(20, 20)]);
  });
});

describe('no_data', () => {
  const silence = rule('no_data', { durationS: 600 });

  /** judgeSilence at each instant, the newest record's instant given by `last(now)`. */
  function tick(r: ReturnType<typeof rule>, instants: readonly number[], last: (now: number) => number | null) {
    let state = QUIET_STATE;
    const fired: AlertFiring[] = [];
    for (const now of instants) {
      const judged = judgeSilence(r, state, last(now), now);
      state = alertStateFromJson(JSON.stringify(judged.state));
      expect(state).toEqual(judged.state);
      if (judged.fired) fired.push(judged.fired);
    }
    return fired;
  }
  const every = (from: number, to: number, step: number) => Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

  it('when the silence reaches the duration, then it fires once, with the last record and the silence', () => {
    const fired = tick(silence, every(MON_09, MON_09 + 60 * MIN, 30 * S), () => MON_09);
    expect(fired).toEqual([{ kind: 'no_data', at: MON_09 + 10 * MIN, since: MON_09, lastRecord: MON_09, silentS: 600, position: null }]);
  });

  it('when a record arrives, then the episode ends; the next silence fires once the cooldown has passed', () => {
    const r = rule('no_data', { durationS: 600, cooldownS: 3600 });
    // Records at 09:00, 09:20 and 10:00; silences of 20, 40 and then ever.
    const last = (now: number) => [MON_09 + 60 * MIN, MON_09 + 20 * MIN, MON_09].find((t) => t <= now)!;
    const fired = tick(r, every(MON_09, MON_09 + 3 * 60 * MIN, MIN), last);
    expect(fired.map((f) => [f.at - MON_09, f.kind === 'no_data' ? f.lastRecord! - MON_09 : 0])).toEqual([[10 * MIN, 0], [70 * MIN, 60 * MIN]]);
  });

  it('when a vehicle flaps in and out of reporting 10 times in 10 minutes, then at most one alert.no_data (cooldown 0 would give 10)', () => {
    // A record every 60 s; the clock looks every second, before the record of that second lands.
    const last = (now: number) => MON_09 + Math.floor((now - MON_09 - 1) / MIN) * MIN;
    const instants = every(MON_09 + S, MON_09 + 10 * MIN, S);
    const flapping = rule('no_data', { durationS: 60 });
    expect(tick(flapping, instants, last)).toHaveLength(1);
    expect(tick(rule('no_data', { durationS: 60, cooldownS: 0 }), instants, last)).toHaveLength(10);
  });

  it('when a vehicle never reported, then the silence counts from the first judgement', () => {
    const fired = tick(silence, every(MON_09, MON_09 + 30 * MIN, MIN), () => null);
    expect(fired).toEqual([{ kind: 'no_data', at: MON_09 + 10 * MIN, since: MON_09, lastRecord: null, silentS: 600, position: null }]);
  });

  it('when the rule has a schedule, then a silence fires only inside it', () => {
    const r = rule('no_data', { durationS: 600, schedule: OFFICE });
    const fired = tick(r, every(monday(6, 0), monday(9, 0), 5 * MIN), () => monday(5, 0));
    expect(fired.map((f) => f.at)).toEqual([monday(8, 0)]);
  });

  it('when the newest record is dated ahead of the clock, then there is no silence', () => {
    expect(tick(silence, every(MON_09, MON_09 + 30 * MIN, MIN), () => MON_09 + 60 * MIN)).toEqual([]);
  });
});

describe('alert state', () => {
  it('when the state text is not one the judge wrote, then it reads as quiet', () => {
    for (const text of [null, '', 'nope', '[]', '{}', '{"since":"x","fired":false,"lastFiredAt":null,"peak":null,"ignition":null}']) {
      expect(alertStateFromJson(text)).toBe(QUIET_STATE);
    }
    expect(isQuietState(QUIET_STATE)).toBe(true);
    expect(isQuietState({ ...QUIET_STATE, ignition: false })).toBe(false);
  });

  it('when a state with fractional speeds goes through JSON, then it comes back equal', () => {
    const state: AlertState = { since: MON_09, fired: true, lastFiredAt: MON_09 + 1, peak: 0.1 + 0.2, ignition: true };
    expect(alertStateFromJson(JSON.stringify(state))).toEqual(state);
  });
});

describe('coversVehicle', () => {
  it('when a rule names 10,000 VINs, then it covers those and no other, asked from a set built once with the rule', () => {
    const vins = Array.from({ length: 10_000 }, (_, i) => `9BWZZZ377VT${String(i).padStart(6, '0')}`);
    const listed = rule('overspeed', { threshold: 90, vins });
    expect(listed.covered).toBeInstanceOf(Set);
    expect(listed.covered?.size).toBe(10_000);
    expect(vins.every((vin) => coversVehicle(listed, vin))).toBe(true);
    expect(coversVehicle(listed, '9BWZZZ377VT999999')).toBe(false);
    expect(coversVehicle(rule('overspeed', { threshold: 90 }), '9BWZZZ377VT999999')).toBe(true);
  });
});
