/**
 * The measuring shared by the compiled fences (compile-fence.ts): great-circle metres, longitudes
 * brought beside a reference so a fence may straddle the antimeridian, bounds in the RFC 7946
 * convention, and the nearest point of a set of lon/lat-straight paths (polygon rings, a corridor's
 * line). Pure, and nothing here allocates once a fence is compiled.
 */
import { EARTH_RADIUS_KM } from '../geo.js';
import type { Bounds, LonLat } from './fence-shape.js';

export const RAD = Math.PI / 180;
export const EARTH_RADIUS_M = EARTH_RADIUS_KM * 1000;
/** Metres in a degree of latitude, and in a degree of longitude at the equator. */
export const METRES_PER_DEGREE = EARTH_RADIUS_M * RAD;

/** Haversine distance in metres (the formula of geo.ts distanceKm, without its point objects). */
export function haversineM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const sLat = Math.sin(((lat2 - lat1) * RAD) / 2);
  const sLon = Math.sin(((lon2 - lon1) * RAD) / 2);
  const h = sLat * sLat + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * sLon * sLon;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** `lon` moved by whole turns to within 180° of `ref`: every edge is taken the short way round. */
export function lonBeside(lon: number, ref: number): number {
  let d = lon - ref;
  while (d > 180) d -= 360;
  while (d < -180) d += 360;
  return ref + d;
}

/**
 * [minLon, minLat, maxLon, maxLat] from a box whose longitudes may run past ±180 (a fence across
 * the antimeridian): such a box is written as RFC 7946 §5.2 writes it, minLon > maxLon.
 */
export function boundsOf(minLon: number, minLat: number, maxLon: number, maxLat: number): Bounds {
  const lat0 = Math.max(-90, minLat);
  const lat1 = Math.min(90, maxLat);
  if (maxLon - minLon >= 360) return [-180, lat0, 180, lat1];
  while (minLon < -180) minLon += 360;
  while (minLon >= 180) minLon -= 360;
  while (maxLon > 180) maxLon -= 360;
  while (maxLon <= -180) maxLon += 360;
  return [minLon, lat0, maxLon, lat1];
}

/**
 * Degrees of longitude that `metres` east or west span anywhere within `metres` of latitude `lat`
 * (the cosine taken at the poleward edge, so the span is never short); 360 where that band reaches
 * a pole.
 */
export function lonDegreesWithin(metres: number, lat: number): number {
  const poleward = Math.abs(lat) + metres / METRES_PER_DEGREE;
  if (poleward >= 89.999) return 360;
  return metres / (METRES_PER_DEGREE * Math.cos(poleward * RAD));
}

/**
 * Paths of straight lon/lat edges (RFC 7946 draws an edge as a straight line in longitude and
 * latitude), kept as one Float64Array of [lon, lat] pairs with longitudes beside `refLon`.
 */
export class LonLatPaths {
  readonly coords: Float64Array;
  /** Where each path ends (exclusive), in positions. */
  readonly ends: Int32Array;
  readonly refLon: number;
  /** The nearest boundary position the last `nearestM` found. */
  nearLat = 0;
  nearLon = 0;

  constructor(paths: readonly (readonly LonLat[])[], refLon: number) {
    const count = paths.reduce((n, p) => n + p.length, 0);
    this.coords = new Float64Array(count * 2);
    this.ends = new Int32Array(paths.length);
    this.refLon = refLon;
    let k = 0;
    paths.forEach((path, p) => {
      for (const [lon, lat] of path) {
        this.coords[k * 2] = lonBeside(lon, refLon);
        this.coords[k * 2 + 1] = lat;
        k += 1;
      }
      this.ends[p] = k;
    });
  }

  /** [minLon, minLat, maxLon, maxLat] of the positions, longitudes beside refLon. */
  box(): [number, number, number, number] {
    const c = this.coords;
    let minLon = Infinity, minLat = Infinity, maxLon = -Infinity, maxLat = -Infinity;
    for (let i = 0; i < c.length; i += 2) {
      minLon = Math.min(minLon, c[i]!);
      maxLon = Math.max(maxLon, c[i]!);
      minLat = Math.min(minLat, c[i + 1]!);
      maxLat = Math.max(maxLat, c[i + 1]!);
    }
    return [minLon, minLat, maxLon, maxLat];
  }

  /**
   * Great-circle metres from the position to the nearest point of the paths; that point is left in
   * nearLat/nearLon. The nearest edge is chosen in the flat metric at the position's own latitude,
   * then the distance to the point found is measured by haversine; see compile-fence.ts for the
   * error this leaves.
   */
  nearestM(lat: number, lonNear: number): number {
    const c = this.coords;
    const ends = this.ends;
    const kx = Math.cos(lat * RAD);
    let best = Infinity;
    let bestLon = 0;
    let bestLat = 0;
    let start = 0;
    for (let p = 0; p < ends.length; p += 1) {
      const end = ends[p]!;
      // A path of one position (a corridor drawn as a point) is an edge from it to itself.
      const single = end - start === 1;
      for (let i = start; i < (single ? end : end - 1); i += 1) {
        const j = single ? i : i + 1;
        const x1 = c[i * 2]!, y1 = c[i * 2 + 1]!;
        const ax = (x1 - lonNear) * kx, ay = y1 - lat;
        const dx = (c[j * 2]! - x1) * kx, dy = c[j * 2 + 1]! - y1;
        const len2 = dx * dx + dy * dy;
        let t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        const qx = ax + t * dx, qy = ay + t * dy;
        const d2 = qx * qx + qy * qy;
        if (d2 < best) {
          best = d2;
          bestLon = x1 + t * (c[j * 2]! - x1);
          bestLat = y1 + t * dy;
        }
      }
      start = end;
    }
    this.nearLon = bestLon;
    this.nearLat = bestLat;
    return haversineM(lat, lonNear, bestLat, bestLon);
  }

  /** Even–odd over every path as a closed ring: inside the outer ring and outside its holes. */
  holds(lat: number, lonNear: number): boolean {
    const c = this.coords;
    const ends = this.ends;
    let inside = false;
    let start = 0;
    for (let p = 0; p < ends.length; p += 1) {
      const end = ends[p]!;
      for (let i = start, j = end - 1; i < end; j = i, i += 1) {
        const yi = c[i * 2 + 1]!, yj = c[j * 2 + 1]!;
        if (yi > lat !== yj > lat) {
          const xi = c[i * 2]!, xj = c[j * 2]!;
          if (lonNear < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
        }
      }
      start = end;
    }
    return inside;
  }
}

/** Where along a→a+d (0..1) the point nearest to p lies, in any one flat metric. */
export function nearestT(px: number, py: number, ax: number, ay: number, dx: number, dy: number): number {
  const len2 = dx * dx + dy * dy;
  if (len2 === 0) return 0;
  const t = ((px - ax) * dx + (py - ay) * dy) / len2;
  return t < 0 ? 0 : t > 1 ? 1 : t;
}

const orient = (px: number, py: number, qx: number, qy: number, rx: number, ry: number) => (qx - px) * (ry - py) - (qy - py) * (rx - px);
const within = (p: number, q: number, r: number) => (p <= q ? p <= r && r <= q : q <= r && r <= p);

/**
 * Whether segments a–b and c–d meet (touching counts). Meeting is unchanged by scaling an axis,
 * so raw longitudes and latitudes (beside one reference) will do.
 */
export function segmentsMeet(ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number): boolean {
  const d1 = orient(cx, cy, dx, dy, ax, ay);
  const d2 = orient(cx, cy, dx, dy, bx, by);
  const d3 = orient(ax, ay, bx, by, cx, cy);
  const d4 = orient(ax, ay, bx, by, dx, dy);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  return (d1 === 0 && within(cx, dx, ax) && within(cy, dy, ay))
    || (d2 === 0 && within(cx, dx, bx) && within(cy, dy, by))
    || (d3 === 0 && within(ax, bx, cx) && within(ay, by, cy))
    || (d4 === 0 && within(ax, bx, dx) && within(ay, by, dy));
}
