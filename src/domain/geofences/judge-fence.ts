/**
 * Whether a vehicle is inside one geofence, judged one position at a time with D13's drift rules,
 * so that a vehicle parked near a boundary with GPS jitter does not fire enter/exit pairs:
 *
 * - **Margin (hysteresis)**: a position counts as outside only beyond the boundary by the margin
 *   (default 30 m) plus its accuracy when known; as inside only that deep inside, the depth capped
 *   at the fence's `innerCapM` so that a fence smaller than the margin can still be entered.
 *   Positions in the band between count for neither side: they neither confirm nor cancel.
 * - **Dwell**: a change is confirmed by `dwellRecords` positions on the new side (default 2) spanning
 *   at least `dwellMs` (default 30 s) with no position counting for the old side between them.
 *   The event is dated at the confirming position.
 * - **No fix, no move**: positions without coordinates never reach this function, and positions
 *   whose accuracy is worse than `maxAccuracyM` (cell-tower fixes) are left out by the caller.
 * - **Gaps carry the state**: nothing here looks at the clock; silence changes nothing.
 * - **Crossing**: outside, a position counting as outside whose straight line from the last one
 *   that counted as outside reaches the same inside depth: `crossed`, and the state stays outside.
 *   Those are two consecutive positions on either side of the fence when reports are sparse, or a
 *   pass too quick to dwell inside (the positions between counted inside or for neither side).
 *   The last outside position is kept for that while the vehicle is near (`outsideAt`).
 *
 * Pure, and the one judge of both the live evaluator and the preview over history.
 */
import type { CompiledFence } from './fence-shape.js';

export interface DriftRules {
  readonly marginM: number;
  readonly dwellMs: number;
  readonly dwellRecords: number;
  readonly maxAccuracyM: number;
}

export const DEFAULT_DRIFT_RULES: DriftRules = Object.freeze({ marginM: 30, dwellMs: 30_000, dwellRecords: 2, maxAccuracyM: 200 });

/** Where a position was, for the start of a crossing. */
export interface Spot {
  readonly lat: number;
  readonly lon: number;
  readonly accuracyM: number | null;
}

/**
 * A vehicle's state for one fence. Plain outside (outside, nothing pending, nothing kept) is the
 * state of every fence with no row.
 */
export interface FenceState {
  readonly inside: boolean;
  /** A change toward the other side, begun and not yet confirmed. */
  readonly pendingSince: number | null;
  readonly pendingCount: number;
  /** Outside and near: the last position that counted as outside. */
  readonly outsideAt: Spot | null;
}

export const OUTSIDE: FenceState = Object.freeze({ inside: false, pendingSince: null, pendingCount: 0, outsideAt: null });

export const isPlainOutside = (s: FenceState): boolean => !s.inside && s.pendingSince === null && s.outsideAt === null;

/** A position with a fix. */
export interface JudgedPosition {
  readonly ts: number;
  readonly lat: number;
  readonly lon: number;
  /** Estimated horizontal accuracy, metres; null when the source gives none. */
  readonly accuracyM: number | null;
}

export type FenceTransition = 'entered' | 'exited' | 'crossed';

export interface FenceJudgement {
  readonly state: FenceState;
  readonly transition: FenceTransition | undefined;
}

/** Which side a position counts for: -1 inside, 1 outside, 0 the band between. */
export function sideOf(fence: CompiledFence, position: JudgedPosition, rules: DriftRules): -1 | 0 | 1 {
  const d = fence.signedDistanceM(position.lat, position.lon);
  const widened = rules.marginM + (position.accuracyM ?? 0);
  if (d > widened) return 1;
  if (-d >= Math.min(widened, fence.innerCapM)) return -1;
  return 0;
}

/** The inside depth a crossing segment must reach, for positions of these accuracies. */
function crossingDepth(fence: CompiledFence, a: Spot, b: Spot, rules: DriftRules): number {
  return Math.min(rules.marginM + Math.max(a.accuracyM ?? 0, b.accuracyM ?? 0), fence.innerCapM);
}

/**
 * The fence's state after one more position; `previous` is the vehicle's position before it,
 * undefined when there is none.
 */
export function judgeFence(
  fence: CompiledFence, state: FenceState, position: JudgedPosition, previous: JudgedPosition | undefined, rules: DriftRules,
): FenceJudgement {
  const side = sideOf(fence, position, rules);
  if (state.inside) return judgeInside(state, side, position, rules);
  if (side === 1) {
    const from = state.outsideAt ?? (previous !== undefined && sideOf(fence, previous, rules) === 1 ? previous : undefined);
    const crossed = from !== undefined && fence.segmentEntersM(from.lat, from.lon, position.lat, position.lon, crossingDepth(fence, from, position, rules));
    return { state: OUTSIDE, transition: crossed ? 'crossed' : undefined };
  }
  // Near: keep where the vehicle last counted as outside, for a crossing.
  const outsideAt = state.outsideAt ?? (previous !== undefined && sideOf(fence, previous, rules) === 1 ? spotOf(previous) : null);
  if (side === 0) return { state: outsideAt === state.outsideAt ? state : { ...state, outsideAt }, transition: undefined };
  const since = state.pendingSince ?? position.ts;
  const count = state.pendingSince === null ? 1 : state.pendingCount + 1;
  if (confirmed(since, count, position, rules)) return { state: { inside: true, pendingSince: null, pendingCount: 0, outsideAt: null }, transition: 'entered' };
  return { state: { inside: false, pendingSince: since, pendingCount: count, outsideAt }, transition: undefined };
}

function judgeInside(state: FenceState, side: -1 | 0 | 1, position: JudgedPosition, rules: DriftRules): FenceJudgement {
  if (side === 0) return { state, transition: undefined };
  if (side === -1) return { state: state.pendingSince === null ? state : { inside: true, pendingSince: null, pendingCount: 0, outsideAt: null }, transition: undefined };
  const since = state.pendingSince ?? position.ts;
  const count = state.pendingSince === null ? 1 : state.pendingCount + 1;
  if (confirmed(since, count, position, rules)) return { state: OUTSIDE, transition: 'exited' };
  return { state: { inside: true, pendingSince: since, pendingCount: count, outsideAt: null }, transition: undefined };
}

const confirmed = (since: number, count: number, position: JudgedPosition, rules: DriftRules) =>
  count >= rules.dwellRecords && position.ts - since >= rules.dwellMs;

const spotOf = (p: Spot): Spot => ({ lat: p.lat, lon: p.lon, accuracyM: p.accuracyM });
