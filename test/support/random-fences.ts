/** Fence shapes for the geometry tests: metres laid out around a place, and seeded random fences. */
import type { FenceShape, LonLat } from '../../src/domain/geofences/fence-shape.js';
import { METRES_PER_DEGREE, RAD } from '../../src/domain/geofences/fence-geometry.js';
import { SeededRandom } from '../../src/sim/seeded-random.js';

/** The simulator's generator: the same sequence for a seed on every run, so a failure can be replayed. */
export function seeded(seed: number): () => number {
  const random = new SeededRandom(seed);
  return () => random.next();
}

/** The position `eastM` and `northM` from [lon, lat] in the flat metric at its latitude. */
export function offset([lon, lat]: LonLat, eastM: number, northM: number): [number, number] {
  return [lon + eastM / (METRES_PER_DEGREE * Math.cos(lat * RAD)), lat + northM / METRES_PER_DEGREE];
}

/** A closed ring through the given offsets (metres) from `at`. */
export function ring(at: LonLat, corners: readonly (readonly [number, number])[]): LonLat[] {
  const positions = corners.map(([e, n]) => offset(at, e, n));
  return [...positions, positions[0]!];
}

/** A square ring of side 2·half metres centred on `at`. */
export const square = (at: LonLat, half: number): LonLat[] => ring(at, [[-half, -half], [half, -half], [half, half], [-half, half]]);

/**
 * A random fence around `at` within `spreadM`: a circle, a star-shaped polygon (simple, with a
 * hole sometimes) of about `positions` positions, or a corridor, each `minM`–`maxM` in size.
 */
export function randomFence(random: () => number, at: LonLat, spreadM: number, sizes: { minM: number; maxM: number; positions?: number }): FenceShape {
  const r = Math.sqrt(random()) * spreadM;
  const a = random() * 2 * Math.PI;
  const center = offset(at, r * Math.cos(a), r * Math.sin(a));
  const size = sizes.minM + random() * (sizes.maxM - sizes.minM);
  const kind = random();
  if (kind < 0.4) return { kind: 'circle', center, radiusM: size };
  if (kind < 0.8) {
    // Jittered even angles: no gap reaches 1.9 rad, so every edge keeps 0.29·size from the center.
    const n = Math.max(6, Math.round((sizes.positions ?? 20) * (0.5 + random())));
    const angles = Array.from({ length: n }, (_, i) => ((i + 0.8 * random()) * 2 * Math.PI) / n);
    const radii = angles.map(() => size * (0.5 + 0.5 * random()));
    const outer = ring(center, angles.map((t, i) => [radii[i]! * Math.cos(t), radii[i]! * Math.sin(t)] as const));
    const hole = random() < 0.3 ? [square(center, size * 0.15)].map((h) => [...h].reverse()) : [];
    return { kind: 'polygon', rings: [outer, ...hole] };
  }
  const legs = 1 + Math.floor(random() * 4);
  const line: LonLat[] = [center];
  for (let i = 0; i < legs; i += 1) {
    const t = random() * 2 * Math.PI;
    line.push(offset(line.at(-1)!, size * Math.cos(t), size * Math.sin(t)));
  }
  return { kind: 'corridor', line, widthM: Math.max(10, size * 0.2 * random()) };
}
