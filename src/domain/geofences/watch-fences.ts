/**
 * One vehicle's positions judged against its company's geofences, in the order they were
 * recorded: the states that change and the transitions they confirm. The live evaluator and the
 * preview over history both call this, so they cannot disagree. Pure: no I/O.
 */
import type { FenceSet, WatchedFence } from './fence-set.js';
import { isPlainOutside, judgeFence, OUTSIDE, type DriftRules, type FenceState, type FenceTransition, type JudgedPosition } from './judge-fence.js';

export interface WatchedPosition extends JudgedPosition {
  /** When the service stored it (for `late`). */
  readonly receivedAt: number;
}

/** What the vehicle's watch remembers between positions. */
export interface FenceWatchState {
  /** The last position judged, for crossings. */
  readonly previous: JudgedPosition | undefined;
  /** The fences whose state is not plain outside; every other fence is. */
  readonly fences: ReadonlyMap<string, FenceState>;
}

export interface ConfirmedTransition {
  readonly fence: WatchedFence;
  readonly transition: FenceTransition;
  readonly position: WatchedPosition;
  /** Stored more than the lateness window after it was recorded: buffered history. */
  readonly late: boolean;
}

export interface FenceWatchResult {
  readonly state: FenceWatchState;
  readonly transitions: ConfirmedTransition[];
  /** Fence ids whose state differs from the one given (to write), deleted ones included. */
  readonly changed: ReadonlySet<string>;
}

export function watchFences(
  fences: FenceSet, start: FenceWatchState, positions: readonly WatchedPosition[], rules: DriftRules, latenessMs: number,
): FenceWatchResult {
  const states = new Map(start.fences);
  const changed = new Set<string>();
  const transitions: ConfirmedTransition[] = [];
  // A fence deleted since the state was written: its state goes.
  for (const id of states.keys()) {
    if (!fences.get(id)) {
      states.delete(id);
      changed.add(id);
    }
  }
  let previous = start.previous;
  const near: WatchedFence[] = [];
  for (const position of positions) {
    if (position.accuracyM !== null && position.accuracyM > rules.maxAccuracyM) continue;
    near.length = 0;
    const from = previous ?? position;
    fences.near(from.lat, from.lon, position.lat, position.lon, rules.marginM + (position.accuracyM ?? 0), near);
    for (const id of states.keys()) {
      const fence = fences.get(id)!;
      if (!near.includes(fence)) near.push(fence);
    }
    for (const fence of near) {
      const before = states.get(fence.id) ?? OUTSIDE;
      const judged = judgeFence(fence.fence, before, position, previous, rules);
      if (judged.state !== before) {
        if (isPlainOutside(judged.state)) states.delete(fence.id);
        else states.set(fence.id, judged.state);
        changed.add(fence.id);
      }
      if (judged.transition) transitions.push({ fence, transition: judged.transition, position, late: position.receivedAt - position.ts > latenessMs });
    }
    previous = { ts: position.ts, lat: position.lat, lon: position.lon, accuracyM: position.accuracyM };
  }
  return { state: { previous, fences: states }, transitions, changed };
}
