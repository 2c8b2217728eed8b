/**
 * One vehicle's records judged by the alert rules that cover it, in the order they were
 * recorded: the states that change and what fired. A record also ends a no_data silence (the
 * sweep starts the next from the vehicle's newest record); it changes nothing while there is
 * none. The live evaluator and the preview both call this. Pure: no I/O.
 */
import { endSilence, isQuietState, judgeAlert, judgeSilence, QUIET_STATE, type AlertFiring, type AlertRecord, type AlertState, type CompiledAlertRule } from './judge-alert.js';

export interface AlertWatchResult {
  readonly states: ReadonlyMap<string, AlertState>;
  /** Rule ids whose state differs from the one given (to write); undefined in `states`: back to quiet. */
  readonly changed: ReadonlySet<string>;
  readonly fired: readonly { readonly rule: CompiledAlertRule; readonly firing: AlertFiring }[];
}

/** Whether a rule covers the vehicle: every vehicle of the company, or its list. */
export const coversVehicle = (rule: CompiledAlertRule, vin: string): boolean => rule.covered === null || rule.covered.has(vin);

export function watchAlerts(
  rules: readonly CompiledAlertRule[], start: ReadonlyMap<string, AlertState>, records: readonly AlertRecord[], movingSpeedKmh: number,
): AlertWatchResult {
  const states = new Map(start);
  const changed = new Set<string>();
  const fired: { rule: CompiledAlertRule; firing: AlertFiring }[] = [];
  const live = new Set(rules.map((r) => r.id));
  for (const id of [...states.keys()]) {
    if (!live.has(id)) {
      states.delete(id);
      changed.add(id);
    }
  }
  for (const rule of rules) {
    let state = states.get(rule.id) ?? QUIET_STATE;
    const before = state;
    for (const record of records) {
      const judged = rule.kind === 'no_data' ? { state: endSilence(state, record.ts) } : judgeAlert(rule, state, record, movingSpeedKmh);
      state = judged.state;
      if (judged.fired) fired.push({ rule, firing: judged.fired });
    }
    if (state !== before) {
      if (isQuietState(state)) states.delete(rule.id);
      else states.set(rule.id, state);
      changed.add(rule.id);
    }
  }
  fired.sort((a, b) => a.firing.at - b.firing.at);
  return { states, changed, fired };
}

/**
 * no_data over recorded history (the preview): a gap between two records at least the rule's
 * duration is a silence judged at the instant it reached the duration, as the live sweep judges
 * it within its period; so is the silence since the last record, judged at `now`. The same judge
 * (judgeSilence) decides, cooldown and schedule included.
 */
export function silencesOverHistory(
  rule: CompiledAlertRule, start: AlertState, records: readonly AlertRecord[], now: number,
): { readonly state: AlertState; readonly fired: AlertFiring[] } {
  const durationMs = rule.durationS * 1000;
  let state = start;
  // A state carried from an earlier page holds that page's last record as the silence's start.
  let last: number | null = start.since;
  const fired: AlertFiring[] = [];
  const judge = (lastRecord: number | null, at: number) => {
    const judged = judgeSilence(rule, state, lastRecord, at);
    state = judged.state;
    if (judged.fired) fired.push(judged.fired);
  };
  for (const record of records) {
    if (last !== null && record.ts - last >= durationMs) judge(last, last + durationMs);
    judge(record.ts, record.ts);
    last = record.ts;
  }
  if (last !== null && now - last >= durationMs) judge(last, Math.max(now, last + durationMs));
  return { state, fired };
}
