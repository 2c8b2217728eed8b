/**
 * What a vehicle's state of an alert rule becomes when the rule is replaced (PUT): the episode
 * was measured against the old condition, so it is dropped and the new rule judges the vehicle
 * afresh from its next record; the cooldown's start is kept (an edit, a rename, does not let a
 * rule fire again at once), and so is the ignition the records said (a fact about the vehicle).
 * no_data keeps its silence (when the vehicle last reported does not depend on the rule), and one
 * that has not fired is due at once, so the sweep judges it under the new duration, cooldown and
 * schedule. A changed kind keeps nothing; a vehicle the rule no longer covers loses its state.
 * Pure.
 */
import type { AlertKind } from './alert-rule.js';
import { isQuietState, type AlertState } from './judge-alert.js';

export interface RebasedAlertState {
  readonly state: AlertState;
  /** For no_data: when the sweep should judge the silence (migration 0026); else null. */
  readonly dueAt: number | null;
}

/** The state under the replaced rule, or undefined when nothing is left (the row goes). */
export function rebasedAlertState(
  before: AlertKind, after: { readonly kind: AlertKind; readonly covers: boolean }, state: AlertState, now: number,
): RebasedAlertState | undefined {
  if (before !== after.kind || !after.covers) return undefined;
  if (after.kind === 'no_data') return { state, dueAt: state.since !== null && !state.fired ? now : null };
  const rebased: AlertState = { since: null, fired: false, lastFiredAt: state.lastFiredAt, peak: null, ignition: state.ignition };
  return isQuietState(rebased) ? undefined : { state: rebased, dueAt: null };
}
