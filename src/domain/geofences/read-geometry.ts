/**
 * A geofence's `geometry` member read as RFC 7946 GeoJSON of the three kinds D13 names: a Point
 * (a circle's centre), a Polygon (holes allowed) or a LineString (a corridor's line). Every problem
 * is a text naming where it is. Positions are [longitude, latitude]; a third number (altitude) is
 * accepted and dropped, since fences are flat. Pure.
 */
import { MAX_GEOFENCE_POSITIONS } from '@telematics/contract';
import type { LonLat } from './fence-shape.js';
import { polygonStructureProblem } from './ring-crossings.js';

/** The geometry as the API answers it: the positions as sent, without altitude. */
export type StoredGeometry =
  | { readonly type: 'Point'; readonly coordinates: LonLat }
  | { readonly type: 'Polygon'; readonly coordinates: readonly (readonly LonLat[])[] }
  | { readonly type: 'LineString'; readonly coordinates: readonly LonLat[] };

export type GeometryReading = { readonly ok: true; readonly geometry: StoredGeometry } | { readonly ok: false; readonly problem: string };

const KINDS = 'Point, Polygon or LineString';
/** RFC 7946's other types, which a fence cannot be (one fence is one area or line). */
const OTHER_GEOMETRIES = new Set(['MultiPoint', 'MultiLineString', 'MultiPolygon', 'GeometryCollection']);
/** Members a geometry may have; `bbox` (RFC 7946 §5) is accepted and dropped, since it is derived. */
const MEMBERS = new Set(['type', 'coordinates', 'bbox']);

const failed = (problem: string): GeometryReading => ({ ok: false, problem });

/** Thrown inside the reading, caught at its top: the first problem found is the answer. */
class GeometryProblem extends Error {}
const fail = (problem: string): never => {
  throw new GeometryProblem(problem);
};

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function readGeometry(value: unknown): GeometryReading {
  if (value === undefined) return failed(`geometry is required: a GeoJSON ${KINDS}`);
  if (!isRecord(value)) return failed(`geometry must be a GeoJSON object: a ${KINDS}`);
  const type = value['type'];
  if (type === 'Feature' || type === 'FeatureCollection') return failed(`geometry must be a GeoJSON geometry, not a ${type}: send the ${KINDS} itself`);
  if (typeof type === 'string' && OTHER_GEOMETRIES.has(type)) return failed(`geometry type ${type} is not supported: use one ${KINDS} per geofence`);
  if (type !== 'Point' && type !== 'Polygon' && type !== 'LineString') return failed(`geometry type must be ${KINDS}`);
  const unknown = Object.keys(value).find((key) => !MEMBERS.has(key));
  if (unknown !== undefined) return failed(`geometry has an unknown member "${printable(unknown)}": a geometry has type and coordinates`);
  if (value['coordinates'] === undefined) return failed('geometry.coordinates is required');
  try {
    const coordinates = value['coordinates'];
    if (type === 'Point') return { ok: true, geometry: { type, coordinates: position(coordinates, 'geometry.coordinates') } };
    if (type === 'LineString') return { ok: true, geometry: { type, coordinates: line(coordinates) } };
    return { ok: true, geometry: { type, coordinates: polygon(coordinates) } };
  } catch (error) {
    if (error instanceof GeometryProblem) return failed(error.message);
    throw error;
  }
}

/** A member name echoed in a detail: short, and only characters that print as themselves. */
function printable(name: string): string {
  const shown = name.replace(/[^\x20-\x7e]/g, '?');
  return shown.length > 40 ? `${shown.slice(0, 40)}…` : shown;
}

function position(value: unknown, path: string): LonLat {
  if (!Array.isArray(value) || value.length < 2 || value.length > 3) fail(`${path} must be a position [longitude, latitude]`);
  const numbers = value as unknown[];
  if (!numbers.every((n) => typeof n === 'number' && Number.isFinite(n))) fail(`${path} must hold finite numbers`);
  const [lon, lat] = numbers as [number, number];
  if (lon < -180 || lon > 180) fail(`${path}: longitude ${lon} is outside -180 to 180`);
  if (lat < -90 || lat > 90) fail(`${path}: latitude ${lat} is outside -90 to 90`);
  // -0 and 0 are the same place; the answer writes 0 either way.
  return [lon + 0, lat + 0];
}

function countPositions(count: number): void {
  if (count > MAX_GEOFENCE_POSITIONS) fail(`geometry has ${count.toLocaleString('en-US')} positions; at most ${MAX_GEOFENCE_POSITIONS.toLocaleString('en-US')}`);
}

function line(value: unknown): LonLat[] {
  if (!Array.isArray(value)) fail('geometry.coordinates must be a list of positions');
  const items = value as unknown[];
  countPositions(items.length);
  const positions = items.map((item, i) => position(item, `geometry.coordinates[${i}]`));
  if (distinctCount(positions) < 2) fail('geometry: a LineString needs at least 2 distinct positions');
  return positions;
}

function polygon(value: unknown): LonLat[][] {
  if (!Array.isArray(value) || !(value as unknown[]).every(Array.isArray)) fail('geometry.coordinates must be a list of rings, each a list of positions');
  const rings = value as unknown[][];
  if (rings.length === 0) fail('geometry.coordinates must hold at least the outer ring');
  // Counted before any position is read, so an oversized geometry costs nothing more.
  countPositions(rings.reduce((sum, ring) => sum + ring.length, 0));
  const read = rings.map((ring, r) => {
    if (typeof ring[0] === 'number') fail(`geometry.coordinates[${r}] must be a ring (a list of positions), not a position`);
    if (ring.length < 4) fail(`geometry: ring ${r} has ${ring.length} positions; a ring needs at least 4 (the last one equal to the first)`);
    const positions = ring.map((item, i) => position(item, `geometry.coordinates[${r}][${i}]`));
    const first = positions[0]!;
    const last = positions[positions.length - 1]!;
    if (first[0] !== last[0] || first[1] !== last[1]) fail(`geometry: ring ${r} is not closed: its last position must equal its first`);
    if (collinear(positions)) fail(`geometry: ring ${r} encloses no area`);
    return positions;
  });
  const problem = polygonStructureProblem(read);
  if (problem !== undefined) fail(`geometry: ${problem}`);
  return read;
}

function distinctCount(positions: readonly LonLat[]): number {
  return new Set(positions.map(([lon, lat]) => `${lon},${lat}`)).size;
}

/** Whether every position is on one line (one position, or two, included): a ring of no area. */
function collinear(positions: readonly LonLat[]): boolean {
  const [a] = positions;
  const b = positions.find((p) => p[0] !== a![0] || p[1] !== a![1]);
  if (a === undefined || b === undefined) return true;
  return positions.every((p) => (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) === 0);
}
