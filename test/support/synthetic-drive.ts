/**
 * Synthetic telemetry built step by step in tests (not the simulator's randomness): a vehicle
 * going east from a fixed point, 10 s per record, odometer and fuel following the distance.
 */
import { moveKm, type Point } from '../../src/domain/geo.js';
import type { TripInput } from '../../src/domain/trip-detection.js';

export const STEP_S = 10;

export type Segment =
  | { readonly kind: 'move'; readonly kmh: number; readonly seconds: number }
  | { readonly kind: 'stand'; readonly seconds: number; readonly jitterKmh?: number }
  | { readonly kind: 'gap'; readonly seconds: number };

export const move = (kmh: number, seconds: number): Segment => ({ kind: 'move', kmh, seconds });
export const stand = (seconds: number, jitterKmh = 0): Segment => ({ kind: 'stand', seconds, jitterKmh });
export const gap = (seconds: number): Segment => ({ kind: 'gap', seconds });

/** Fuel falls 0.2 % per km (of a 50 l tank: 0.1 l/km, i.e. 10 km/l). */
export const FUEL_PCT_PER_KM = 0.2;

export function syntheticDrive(startTs: number, segments: readonly Segment[], origin: Point = { lat: -23.55, lon: -46.63 }): TripInput[] {
  const records: TripInput[] = [];
  let t = startTs;
  let odometer = 1000;
  let position = origin;
  const push = (speed: number, jitter = 0) => records.push({
    ts: t, speed, latitude: position.lat + jitter, longitude: position.lon, odometer: Math.round(odometer * 1e6) / 1e6,
    fuelLevel: Math.round((80 - (odometer - 1000) * FUEL_PCT_PER_KM) * 1e6) / 1e6,
  });
  push(0);
  for (const s of segments) {
    const steps = Math.round(s.seconds / STEP_S);
    for (let i = 0; i < steps; i += 1) {
      t += STEP_S * 1000;
      if (s.kind === 'gap') continue;
      if (s.kind === 'move') {
        const km = (s.kmh * STEP_S) / 3600;
        odometer += km;
        position = moveKm(position, 90, km);
        push(s.kmh);
      } else {
        // Parked: speed may flicker below the threshold and GPS may wander a few meters.
        push(i % 2 === 0 ? (s.jitterKmh ?? 0) : 0, i % 2 === 0 ? 0.00003 : -0.00003);
      }
    }
  }
  return records;
}
