/**
 * Whether an alert rule fires (D13), judged one record at a time (`judgeAlert`) or, for no_data,
 * by the clock (`judgeSilence`). The live evaluator and the preview over history both call these,
 * so they cannot disagree. The rules:
 *
 * - **Episodes.** A condition holds from the first record where it was seen true (`since`) until
 *   a record shows it false; it fires once per episode, when it has held `duration_s`. A record
 *   that lacks the value a condition needs neither starts nor ends an episode. Low fuel and low
 *   battery end only past a hysteresis (+2 %, +0.3 V), so a sensor flickering at the threshold
 *   is one episode, not one per flicker.
 * - **Cooldown.** After an event, none for the same vehicle and rule before `cooldown_s` has
 *   passed, even in a new episode: a vehicle flapping at a limit, or in and out of reporting,
 *   cannot make a storm. An episode kept from firing by the cooldown fires once it has passed, if
 *   it still holds then.
 * - **Schedule.** A rule with a schedule fires only at instants inside it (the episode may have
 *   begun before); after_hours fires on use outside its schedule, the working hours.
 * - **Engine on** is rpm > 0 where the record has rpm, else the ignition state carried from the
 *   records' `event` values (`ignition on` / `ignition off`); unknown is neither on nor off.
 *   Moving is faster than the trip setting (`--trip-moving-speed`), as trip detection counts it.
 *
 * The state is a flat object of numbers, booleans and nulls, so it round-trips through JSON
 * exactly. Pure: no I/O, no clock but the instants given.
 */
import type { AlertKind, AlertRule } from './alert-rule.js';
import { compileSchedule, type CompiledSchedule } from './weekly-schedule.js';

/** A stored record, as far as alerts look at it; null where the record has no value. */
export interface AlertRecord {
  readonly ts: number;
  /** When the service stored it. */
  readonly receivedAt: number;
  readonly speed: number | null;
  readonly rpm: number | null;
  readonly fuelLevel: number | null;
  readonly lvBatteryVoltage: number | null;
  readonly event: string | null;
  readonly latitude: number | null;
  readonly longitude: number | null;
}

/** What a rule remembers about one vehicle between judgements. */
export interface AlertState {
  /** Start of the current episode (no_data: of the silence); null when the condition does not hold. */
  readonly since: number | null;
  /** Whether the current episode has fired. */
  readonly fired: boolean;
  /** When the rule last fired for the vehicle, for the cooldown. */
  readonly lastFiredAt: number | null;
  /** overspeed: the highest speed of the episode. */
  readonly peak: number | null;
  /** The ignition carried from `event` values: true on, false off, null never said. */
  readonly ignition: boolean | null;
}

export const QUIET_STATE: AlertState = Object.freeze({ since: null, fired: false, lastFiredAt: null, peak: null, ignition: null });

/** Whether the state holds nothing (a vehicle with it needs no stored row). */
export const isQuietState = (s: AlertState): boolean =>
  s.since === null && !s.fired && s.lastFiredAt === null && s.peak === null && s.ignition === null;

/** A rule ready to judge: its schedule compiled (with its offset cache), its VINs as a set. */
export interface CompiledAlertRule extends AlertRule {
  readonly window: CompiledSchedule | null;
  /** `vins` as a set (null: every vehicle): a rule may name 10,000, asked about every vehicle of a pass. */
  readonly covered: ReadonlySet<string> | null;
}

export const compileAlertRule = (rule: AlertRule): CompiledAlertRule =>
  ({ ...rule, window: rule.schedule === null ? null : compileSchedule(rule.schedule), covered: rule.vins === null ? null : new Set(rule.vins) });

interface FiringBase {
  /** The instant that fired: the record's, or (no_data) the clock's. */
  readonly at: number;
  /** Start of the episode (no_data: the last record, or when the silence was first judged). */
  readonly since: number;
  /** The triggering record's position, when it has one. */
  readonly position: { readonly latitude: number; readonly longitude: number } | null;
}

/** What fired, with the values that made it. */
export type AlertFiring = FiringBase & (
  | { readonly kind: 'overspeed'; readonly speed: number; readonly limit: number }
  | { readonly kind: 'idling'; readonly durationS: number }
  | { readonly kind: 'no_data'; readonly lastRecord: number | null; readonly silentS: number }
  | { readonly kind: 'low_fuel'; readonly fuelLevel: number; readonly threshold: number }
  | { readonly kind: 'low_battery'; readonly lvBatteryVoltage: number; readonly threshold: number }
  | { readonly kind: 'after_hours'; readonly speed: number | null; readonly ignition: boolean | null }
);

export interface AlertJudgement {
  readonly state: AlertState;
  readonly fired?: AlertFiring;
}

/** How far above the threshold a low value must come back to end its episode. */
export const HYSTERESIS: Readonly<Partial<Record<AlertKind, number>>> = Object.freeze({ low_fuel: 2, low_battery: 0.3 });

const IGNITION: Readonly<Record<string, boolean>> = Object.freeze({ 'ignition on': true, 'ignition off': false });

const engineOn = (record: AlertRecord, ignition: boolean | null): boolean | null => (record.rpm !== null ? record.rpm > 0 : ignition);

function below(value: number | null, threshold: number, hysteresis: number, inEpisode: boolean): boolean | null {
  if (value === null) return null;
  // Rounded so that 11.8 V + 0.3 V ends at 12.1 V, not at 12.100000000000001.
  return value < (inEpisode ? Math.round((threshold + hysteresis) * 1e6) / 1e6 : threshold);
}

/** Whether the rule's condition holds at the record: null when the record cannot tell. */
function holds(rule: CompiledAlertRule, state: AlertState, record: AlertRecord, ignition: boolean | null, movingKmh: number): boolean | null {
  const { speed } = record;
  switch (rule.kind) {
    case 'overspeed':
      return speed === null ? null : speed > rule.threshold!;
    case 'low_fuel':
    case 'low_battery': {
      const value = rule.kind === 'low_fuel' ? record.fuelLevel : record.lvBatteryVoltage;
      return below(value, rule.threshold!, HYSTERESIS[rule.kind]!, state.since !== null);
    }
    case 'idling': {
      const engine = engineOn(record, ignition);
      if (engine === false || (speed !== null && speed > movingKmh)) return false;
      return engine === true && speed !== null ? true : null;
    }
    case 'after_hours': {
      if (rule.window!.contains(record.ts)) return false;
      const engine = engineOn(record, ignition);
      if (engine === true || (speed !== null && speed > movingKmh)) return true;
      return engine === false ? false : null;
    }
    case 'no_data':
      return null;
  }
}

/** Whether an episode that has held since `since` may fire at `at`. */
function mayFire(rule: CompiledAlertRule, since: number, at: number, lastFiredAt: number | null): boolean {
  if (!rule.enabled || at - since < rule.durationS * 1000) return false;
  if (lastFiredAt !== null && at - lastFiredAt < rule.cooldownS * 1000) return false;
  // after_hours: its schedule is part of the condition, not a gate.
  return rule.kind === 'after_hours' || rule.window === null || rule.window.contains(at);
}

const positionOf = (r: AlertRecord) => (r.latitude !== null && r.longitude !== null ? { latitude: r.latitude, longitude: r.longitude } : null);

function firingOf(rule: CompiledAlertRule, record: AlertRecord, since: number, peak: number | null, ignition: boolean | null): AlertFiring {
  const base = { at: record.ts, since, position: positionOf(record) };
  switch (rule.kind) {
    case 'overspeed': return { ...base, kind: 'overspeed', speed: peak!, limit: rule.threshold! };
    case 'idling': return { ...base, kind: 'idling', durationS: Math.round((record.ts - since) / 1000) };
    case 'low_fuel': return { ...base, kind: 'low_fuel', fuelLevel: record.fuelLevel!, threshold: rule.threshold! };
    case 'low_battery': return { ...base, kind: 'low_battery', lvBatteryVoltage: record.lvBatteryVoltage!, threshold: rule.threshold! };
    case 'after_hours': return { ...base, kind: 'after_hours', speed: record.speed, ignition: engineOn(record, ignition) };
    case 'no_data': throw new Error('no_data is judged by judgeSilence');
  }
}

/** The rule's state after one more record of the vehicle (records in the order they were recorded). */
export function judgeAlert(rule: CompiledAlertRule, state: AlertState, record: AlertRecord, movingSpeedKmh: number): AlertJudgement {
  const ignition = (record.event !== null && Object.hasOwn(IGNITION, record.event)) ? IGNITION[record.event]! : state.ignition;
  const condition = holds(rule, state, record, ignition, movingSpeedKmh);
  if (condition === null) return { state: ignition === state.ignition ? state : { ...state, ignition } };
  if (!condition) {
    if (state.since === null && ignition === state.ignition) return { state };
    return { state: { since: null, fired: false, lastFiredAt: state.lastFiredAt, peak: null, ignition } };
  }
  const since = state.since ?? record.ts;
  const peak = rule.kind === 'overspeed' ? Math.max(state.peak ?? record.speed!, record.speed!) : null;
  const next: AlertState = { since, fired: state.fired, lastFiredAt: state.lastFiredAt, peak, ignition };
  if (state.fired || !mayFire(rule, since, record.ts, state.lastFiredAt)) return { state: next };
  return { state: { ...next, fired: true, lastFiredAt: record.ts }, fired: firingOf(rule, record, since, peak, ignition) };
}

/**
 * no_data at `now`: silent since the newest record (`lastRecordTs`; null when the vehicle never
 * reported, the silence then counting from the first judgement). A newer record ends the episode.
 */
export function judgeSilence(rule: CompiledAlertRule, state: AlertState, lastRecordTs: number | null, now: number): AlertJudgement {
  const fresh = lastRecordTs === null ? state.since === null : state.since !== lastRecordTs;
  const since = lastRecordTs ?? state.since ?? now;
  const next: AlertState = fresh ? { since, fired: false, lastFiredAt: state.lastFiredAt, peak: null, ignition: null } : state;
  if (next.fired || !mayFire(rule, since, now, state.lastFiredAt)) return { state: next };
  return {
    state: { ...next, fired: true, lastFiredAt: now },
    fired: { kind: 'no_data', at: now, since, position: null, lastRecord: lastRecordTs, silentS: Math.round((now - since) / 1000) },
  };
}

/**
 * no_data at a record of the vehicle: the silence it ends. The state is the very one given when
 * there is no silence, or the record is the one the silence counts from (or older): a vehicle that
 * keeps reporting leaves its state as it is, so nothing is written for it record after record.
 */
export function endSilence(state: AlertState, recordTs: number): AlertState {
  if (state.since === null || recordTs <= state.since) return state;
  return { since: null, fired: false, lastFiredAt: state.lastFiredAt, peak: null, ignition: null };
}

/**
 * When a silence that has not fired may fire at the earliest: once it has lasted the duration,
 * the cooldown has passed and (with a schedule) a window is open. Null when there is nothing to
 * wait for: no silence, or it fired. The sweep looks at such a vehicle again then, not every
 * sweep, and not never (a silence held back by the cooldown or the schedule fires when they allow).
 */
export function silenceDueAt(rule: CompiledAlertRule, state: AlertState): number | null {
  if (state.since === null || state.fired) return null;
  const at = Math.max(state.since + rule.durationS * 1000, state.lastFiredAt === null ? -Infinity : state.lastFiredAt + rule.cooldownS * 1000);
  return rule.window === null ? at : rule.window.nextOpening(at);
}

/** A run of one vehicle's records through one rule: the state after them and what fired, in order. */
export function judgeAlertRecords(
  rule: CompiledAlertRule, start: AlertState, records: readonly AlertRecord[], movingSpeedKmh: number,
): { readonly state: AlertState; readonly fired: AlertFiring[] } {
  let state = start;
  const fired: AlertFiring[] = [];
  for (const record of records) {
    const judged = judgeAlert(rule, state, record, movingSpeedKmh);
    state = judged.state;
    if (judged.fired) fired.push(judged.fired);
  }
  return { state, fired };
}

/** A state read back from its JSON text; anything else than one this module wrote reads as quiet. */
export function alertStateFromJson(text: string | null): AlertState {
  if (text === null) return QUIET_STATE;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return QUIET_STATE;
  }
  const v = value as Record<string, unknown> | null;
  const numberOrNull = (x: unknown) => x === null || (typeof x === 'number' && Number.isFinite(x));
  const ok = typeof v === 'object' && v !== null && numberOrNull(v['since']) && typeof v['fired'] === 'boolean' && numberOrNull(v['lastFiredAt'])
    && numberOrNull(v['peak']) && (v['ignition'] === null || typeof v['ignition'] === 'boolean');
  if (!ok) return QUIET_STATE;
  return { since: v['since'] as number | null, fired: v['fired'] as boolean, lastFiredAt: v['lastFiredAt'] as number | null, peak: v['peak'] as number | null, ignition: v['ignition'] as boolean | null };
}
