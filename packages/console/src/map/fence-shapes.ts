/**
 * Fences as the map draws them, computed in the page (no library): a circle as a 64-sided polygon,
 * a corridor as its line with a width in metres turned into pixels at every zoom, the box around a
 * fence to zoom to, and the sizes the table shows. Spherical Earth (6,371 km): at a fence's scale
 * the error against WGS 84 is under 0.5 %, well below what a drawn edge shows.
 */
import type { FenceShape, GeofenceGeometry } from '../screens/geofences/geofence-types.js';

const EARTH_M = 6_371_008.8;
const RAD = Math.PI / 180;
/** Sides of a drawn circle: at 50 km a side is 4.9 km long, 0.12 % inside the true circle. */
export const CIRCLE_SIDES = 64;
/** MapLibre's world is 512 px wide at zoom 0. */
const WORLD_PX = 512;

export type Position = readonly [number, number];

/** The position `metres` from `centre` towards `bearing` (radians from north). */
export function destination([lon, lat]: Position, metres: number, bearing: number): [number, number] {
  const d = metres / EARTH_M;
  const φ1 = lat * RAD;
  const λ1 = lon * RAD;
  const φ2 = Math.asin(Math.sin(φ1) * Math.cos(d) + Math.cos(φ1) * Math.sin(d) * Math.cos(bearing));
  const λ2 = λ1 + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(φ1), Math.cos(d) - Math.sin(φ1) * Math.sin(φ2));
  return [λ2 / RAD, φ2 / RAD];
}

/** Great-circle distance, metres. */
export function distance([lon1, lat1]: Position, [lon2, lat2]: Position): number {
  const a = Math.sin(((lat2 - lat1) * RAD) / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(((lon2 - lon1) * RAD) / 2) ** 2;
  return 2 * EARTH_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** A closed ring of CIRCLE_SIDES sides around `centre`, counter-clockwise as RFC 7946 asks. */
export function circleRing(centre: Position, radiusM: number): [number, number][] {
  const ring: [number, number][] = [];
  for (let i = 0; i < CIRCLE_SIDES; i += 1) ring.push(destination(centre, radiusM, (-2 * Math.PI * i) / CIRCLE_SIDES));
  ring.push(ring[0]!);
  return ring;
}

/** A line `widthM` wide in pixels at zoom 0 at `lat`; it doubles with each zoom level. */
export function widthPxAtZoom0(widthM: number, lat: number): number {
  return (widthM * WORLD_PX) / (2 * Math.PI * EARTH_M * Math.cos(lat * RAD));
}

/** A line-width expression that keeps a corridor `['get', 'width_px0']` wide in metres at every zoom. */
export const METRIC_LINE_WIDTH = ['interpolate', ['exponential', 2], ['zoom'], 0, ['get', 'width_px0'], 24, ['*', ['get', 'width_px0'], 2 ** 24]];

export interface FenceFeature {
  readonly type: 'Feature';
  readonly properties: { readonly id: string; readonly name: string; readonly kind: 'area' | 'corridor'; readonly width_px0?: number };
  readonly geometry: { readonly type: 'Polygon'; readonly coordinates: Position[][] } | { readonly type: 'LineString'; readonly coordinates: Position[] };
}

/** The feature a fence is drawn as: circles become polygons, corridors keep their line. */
export function fenceFeature(fence: FenceShape): FenceFeature {
  const { geometry } = fence;
  const base = { id: fence.id, name: fence.name };
  if (geometry.type === 'Point') {
    return { type: 'Feature', properties: { ...base, kind: 'area' }, geometry: { type: 'Polygon', coordinates: [circleRing(position(geometry.coordinates), fence.radius_m ?? 0)] } };
  }
  if (geometry.type === 'Polygon') {
    return { type: 'Feature', properties: { ...base, kind: 'area' }, geometry: { type: 'Polygon', coordinates: geometry.coordinates.map((ring) => ring.map(position)) } };
  }
  const line = geometry.coordinates.map(position);
  const lat = line.reduce((sum, p) => sum + p[1], 0) / Math.max(1, line.length);
  return { type: 'Feature', properties: { ...base, kind: 'corridor', width_px0: widthPxAtZoom0(fence.width_m ?? 0, lat) }, geometry: { type: 'LineString', coordinates: line } };
}

const position = (p: readonly number[]): Position => [p[0] ?? 0, p[1] ?? 0];

/** West, south, east, north of a fence, its circle or corridor width included. */
export function fenceBounds(fence: FenceShape): [number, number, number, number] {
  const { geometry } = fence;
  const points: Position[] = geometry.type === 'Point' ? circleRing(position(geometry.coordinates), fence.radius_m ?? 0)
    : geometry.type === 'Polygon' ? (geometry.coordinates[0] ?? []).map(position)
      : geometry.coordinates.map(position);
  let [w, s, e, n] = [180, 90, -180, -90];
  for (const [lon, lat] of points) {
    w = Math.min(w, lon); e = Math.max(e, lon); s = Math.min(s, lat); n = Math.max(n, lat);
  }
  if (geometry.type === 'LineString') {
    const half = (fence.width_m ?? 0) / 2;
    const dLat = half / (EARTH_M * RAD);
    const dLon = dLat / Math.cos(((s + n) / 2) * RAD);
    [w, s, e, n] = [w - dLon, s - dLat, e + dLon, n + dLat];
  }
  return [w, s, e, n];
}

/** A polygon's area, square metres: its outer ring less its holes (equal-area projection at the ring's latitude). */
export function polygonArea(geometry: Extract<GeofenceGeometry, { type: 'Polygon' }>): number {
  const ringArea = (ring: readonly (readonly number[])[]) => {
    const lat0 = ring.reduce((sum, p) => sum + (p[1] ?? 0), 0) / Math.max(1, ring.length);
    const kx = EARTH_M * RAD * Math.cos(lat0 * RAD);
    const ky = EARTH_M * RAD;
    let twice = 0;
    for (let i = 0; i + 1 < ring.length; i += 1) {
      const [a, b] = [ring[i]!, ring[i + 1]!];
      twice += (a[0]! * kx) * (b[1]! * ky) - (b[0]! * kx) * (a[1]! * ky);
    }
    return Math.abs(twice) / 2;
  };
  const [outer, ...holes] = geometry.coordinates;
  return outer ? ringArea(outer) - holes.reduce((sum, h) => sum + ringArea(h), 0) : 0;
}

/** A line's length, metres. */
export function lineLength(coordinates: readonly (readonly number[])[]): number {
  let total = 0;
  for (let i = 0; i + 1 < coordinates.length; i += 1) total += distance(position(coordinates[i]!), position(coordinates[i + 1]!));
  return total;
}
