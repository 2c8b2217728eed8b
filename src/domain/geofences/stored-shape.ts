/**
 * A stored geofence (its GeoJSON geometry and radius or width, as the API accepted them) read back
 * as the shape the evaluator measures. The geometry was checked when it was written; a row that
 * does not read as its kind is a store fault and throws. Pure: no I/O.
 */
import type { FenceShape, LonLat } from './fence-shape.js';

export interface StoredFence {
  readonly kind: string;
  /** GeoJSON text. */
  readonly geometry: string;
  readonly radius_m: number | null;
  readonly width_m: number | null;
}

const lonLat = (p: readonly number[]): LonLat => [p[0]!, p[1]!];

export function shapeOfStored(row: StoredFence): FenceShape {
  const geometry = JSON.parse(row.geometry) as { type: string; coordinates: unknown };
  if (row.kind === 'circle' && geometry.type === 'Point' && row.radius_m !== null) {
    return { kind: 'circle', center: lonLat(geometry.coordinates as number[]), radiusM: row.radius_m };
  }
  if (row.kind === 'polygon' && geometry.type === 'Polygon') {
    return { kind: 'polygon', rings: (geometry.coordinates as number[][][]).map((ring) => ring.map(lonLat)) };
  }
  if (row.kind === 'corridor' && geometry.type === 'LineString' && row.width_m !== null) {
    return { kind: 'corridor', line: (geometry.coordinates as number[][]).map(lonLat), widthM: row.width_m };
  }
  throw new Error(`stored geofence of kind ${row.kind} has a ${geometry.type} geometry`);
}
