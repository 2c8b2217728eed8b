/**
 * The state GET /vehicle-data/latest gives each vehicle, from its newest record only (a fleet
 * screen's counters and colours). It reads only datapoints the company may read: a plan without
 * speed learns that a vehicle is reporting (`online`), not whether it moves.
 */
import type { VehicleState } from '@telematics/contract';

export interface StateSettings {
  /** A newest record older than this is `offline` (the threshold of `vehicle.offline`). */
  readonly offlineAfterMs: number;
  /** Faster than this is moving (trip detection's threshold). */
  readonly movingSpeedKmh: number;
}

export interface NewestRecord {
  readonly ts: number;
  /** Undefined when the company may not read it; null when the record lacks it. */
  readonly speed: number | null | undefined;
  readonly rpm: number | null | undefined;
}

export function vehicleState(newest: NewestRecord | undefined, now: number, settings: StateSettings): VehicleState {
  if (newest === undefined) return 'no_data';
  if (newest.ts < now - settings.offlineAfterMs) return 'offline';
  if (newest.speed === undefined) return 'online';
  if (newest.speed !== null && newest.speed > settings.movingSpeedKmh) return 'moving';
  if (newest.rpm !== undefined && newest.rpm !== null && newest.rpm > 0) return 'idle';
  return 'parked';
}
