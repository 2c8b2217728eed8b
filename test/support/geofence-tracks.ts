/**
 * Synthetic tracks for the geofence drift rules (D13), built step by step from a seeded generator
 * so every run judges the same positions: a vehicle parked with GPS jitter, a drive through a
 * fence, two sparse positions on either side of one.
 */
import { moveKm, type Point } from '../../src/domain/geo.js';
import { seeded } from './random-fences.js';

export interface TrackPosition {
  readonly ts: number;
  readonly lat: number;
  readonly lon: number;
  readonly speed: number;
}

/** The depot every track is built around. */
export const DEPOT: Point = { lat: -23.55, lon: -46.63 };

/** A point `east` and `north` metres from `from`. */
export function offset(from: Point, eastM: number, northM: number): Point {
  return moveKm(moveKm(from, 90, eastM / 1000), 0, northM / 1000);
}

/**
 * Parked `fromCenterM` metres east of `center` for `seconds`, a record every `stepS`, each
 * position off by up to `jitterM` on each axis.
 */
export function parkedWithJitter(startTs: number, center: Point, fromCenterM: number, jitterM: number, seconds: number, stepS = 10, seed = 7): TrackPosition[] {
  const random = seeded(seed);
  const spot = offset(center, fromCenterM, 0);
  const out: TrackPosition[] = [];
  for (let s = 0; s <= seconds; s += stepS) {
    const p = offset(spot, (random() * 2 - 1) * jitterM, (random() * 2 - 1) * jitterM);
    out.push({ ts: startTs + s * 1000, lat: p.lat, lon: p.lon, speed: 0 });
  }
  return out;
}

/** Driving east at `kmh` from `beforeM` metres west of `center` to as far east of it, a record every `stepS`. */
export function driveThrough(startTs: number, center: Point, beforeM: number, kmh: number, stepS = 10): TrackPosition[] {
  const out: TrackPosition[] = [];
  const stepM = (kmh / 3.6) * stepS;
  for (let i = 0, m = -beforeM; m <= beforeM; i += 1, m += stepM) {
    const p = offset(center, m, 0);
    out.push({ ts: startTs + i * stepS * 1000, lat: p.lat, lon: p.lon, speed: kmh });
  }
  return out;
}

/** Two positions `apartM` apart, west and east of `center`, `seconds` apart. */
export function sparseAcross(startTs: number, center: Point, apartM: number, seconds: number): TrackPosition[] {
  const west = offset(center, -apartM / 2, 0);
  const east = offset(center, apartM / 2, 0);
  return [
    { ts: startTs, lat: west.lat, lon: west.lon, speed: 60 },
    { ts: startTs + seconds * 1000, lat: east.lat, lon: east.lon, speed: 60 },
  ];
}
