/**
 * The longitude and latitude bounds of a fence's shape, as stored beside it for the evaluator's
 * index: never smaller than the shape, so a bounds test can only let a position through that
 * the exact test then answers. Pure.
 */
import type { Bounds, FenceShape, LonLat } from './fence-shape.js';

/**
 * The shortest a degree (of latitude, or of longitude at the equator) is in any model the distance
 * may be measured with: WGS 84's meridian degree at the equator, 110,574 m (a sphere of mean radius
 * has 111,195 m; WGS 84's equatorial longitude degree 111,319 m). Too short only widens the bounds.
 */
const METRES_PER_DEGREE_MIN = 110_574;

export function fenceBounds(shape: FenceShape): Bounds {
  switch (shape.kind) {
    case 'circle': return widened(positionBounds([shape.center]), shape.radiusM);
    case 'corridor': return widened(positionBounds(shape.line), shape.widthM / 2);
    case 'polygon': return positionBounds(shape.rings[0]!);
  }
}

function positionBounds(positions: readonly LonLat[]): Bounds {
  let minLon = Infinity, minLat = Infinity, maxLon = -Infinity, maxLat = -Infinity;
  for (const [lon, lat] of positions) {
    minLon = Math.min(minLon, lon); maxLon = Math.max(maxLon, lon);
    minLat = Math.min(minLat, lat); maxLat = Math.max(maxLat, lat);
  }
  return [minLon, minLat, maxLon, maxLat];
}

/**
 * Bounds grown by `metres` on every side. A degree of longitude shrinks with the cosine of the
 * latitude, so the growth in longitude is taken at the latitude farthest from the equator the
 * grown box reaches; near a pole, or across the antimeridian, every longitude is in.
 */
function widened([minLon, minLat, maxLon, maxLat]: Bounds, metres: number): Bounds {
  const dLat = metres / METRES_PER_DEGREE_MIN;
  const south = Math.max(-90, minLat - dLat);
  const north = Math.min(90, maxLat + dLat);
  const cos = Math.cos((Math.max(Math.abs(south), Math.abs(north)) * Math.PI) / 180);
  const dLon = cos < 1e-6 ? Infinity : metres / (METRES_PER_DEGREE_MIN * cos);
  const west = minLon - dLon;
  const east = maxLon + dLon;
  if (west < -180 || east > 180) return [-180, south, 180, north];
  return [west, south, east, north];
}
