/**
 * One vehicle's records judged by the alert rules that cover it, in the order they were
 * recorded: the states that change and what fired. A record also ends a no_data silence (its
 * episode starts again from the record). The live evaluator and the preview both call this.
 * Pure: no I/O.
 */
import { isQuietState, judgeAlert, judgeSilence, QUIET_STATE, type AlertFiring, type AlertRecord, type AlertState, type CompiledAlertRule } from './judge-alert.js';

export interface AlertWatchResult {
  readonly states: ReadonlyMap<string, AlertState>;
  /** Rule ids whose state differs from the one given (to write); undefined in `states`: back to quiet. */
  readonly changed: ReadonlySet<string>;
  readonly fired: readonly { readonly rule: CompiledAlertRule; readonly firing: AlertFiring }[];
}

/** Whether a rule covers the vehicle: every vehicle of the company, or its list. */
export const coversVehicle = (rule: CompiledAlertRule, vin: string): boolean => rule.vins === null || rule.vins.includes(vin);

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
      const judged = rule.kind === 'no_data' ? judgeSilence(rule, state, record.ts, record.ts) : judgeAlert(rule, state, record, movingSpeedKmh);
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
