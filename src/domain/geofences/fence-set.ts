/**
 * A company's geofences as the evaluator reads them: each compiled once, and found by where a
 * position (or the line from the vehicle's previous position) is, so that judging a position
 * costs the few fences near it, not every fence of the company. Pure: no I/O.
 */
import type { CompiledFence } from './fence-shape.js';

export interface WatchedFence {
  readonly id: string;
  readonly name: string;
  readonly fence: CompiledFence;
}

export interface FenceSet {
  readonly size: number;
  get(id: string): WatchedFence | undefined;
  /**
   * Appends to `out` the fences whose bounds, widened by `marginM`, meet the bounds of the
   * segment from → to (a point when both ends are the same).
   */
  near(fromLat: number, fromLon: number, toLat: number, toLon: number, marginM: number, out: WatchedFence[]): void;
}
