/**
 * A fence being drawn or edited, as plain data the screen and the map share: its points (a
 * circle's centre, a polygon's outer ring without its closing position, a corridor's line), the
 * polygon's holes kept as they came, and the body it saves as. Pure: no map, no request.
 */
import type { MessageKey } from '../../i18n/en.js';
import type { Position } from '../../map/fence-shapes.js';
import type { FenceKind, FenceShape, Geofence, GeofenceBody, GeofenceGeometry } from './geofence-types.js';

export interface FenceDraft {
  /** The saved fence this edits; none for a new one. */
  readonly id?: string;
  readonly name: string;
  readonly description: string;
  readonly kind: FenceKind;
  readonly points: readonly Position[];
  /** A polygon's holes, closed rings as the service answered them: drawn and kept, not edited on the map. */
  readonly holes: readonly (readonly Position[])[];
  /** A polygon whose ring is finished: clicks no longer add corners. */
  readonly closed: boolean;
  readonly radius_m: number;
  readonly width_m: number;
}

export const DEFAULT_RADIUS_M = 200;
export const DEFAULT_WIDTH_M = 60;
/** 6 decimals of a degree: 0.1 m, finer than a click can point. */
const round = (x: number) => Math.round(x * 1e6) / 1e6;

export const emptyDraft = (kind: FenceKind, name = '', description = ''): FenceDraft => ({
  name, description, kind, points: [], holes: [], closed: false, radius_m: DEFAULT_RADIUS_M, width_m: DEFAULT_WIDTH_M,
});

const pos = (p: readonly number[]): Position => [p[0] ?? 0, p[1] ?? 0];

/** A draft of the geometry alone, as the geometry text or a saved fence gives it. */
function fromGeometry(geometry: GeofenceGeometry, base: FenceDraft): FenceDraft {
  if (geometry.type === 'Point') return { ...base, kind: 'circle', points: [pos(geometry.coordinates)], holes: [], closed: false };
  if (geometry.type === 'LineString') return { ...base, kind: 'corridor', points: geometry.coordinates.map(pos), holes: [], closed: false };
  const [outer = [], ...holes] = geometry.coordinates.map((ring) => ring.map(pos));
  const last = outer[outer.length - 1];
  const open = outer.length > 1 && last && last[0] === outer[0]![0] && last[1] === outer[0]![1] ? outer.slice(0, -1) : outer;
  return { ...base, kind: 'polygon', points: open, holes, closed: true };
}

export function draftOf(fence: Geofence): FenceDraft {
  const base = { ...emptyDraft('circle', fence.name, fence.description ?? ''), id: fence.id, radius_m: fence.radius_m ?? DEFAULT_RADIUS_M, width_m: fence.width_m ?? DEFAULT_WIDTH_M };
  return fromGeometry(fence.geometry, base);
}

/** Whether a click on the map adds a point to this draft. */
export const takesPoints = (draft: FenceDraft): boolean => draft.kind !== 'polygon' || !draft.closed;

export function addPoint(draft: FenceDraft, [lon, lat]: Position): FenceDraft {
  const point: Position = [round(lon), round(lat)];
  if (draft.kind === 'circle') return { ...draft, points: [point] };
  if (!takesPoints(draft)) return draft;
  return { ...draft, points: [...draft.points, point] };
}

export function movePoint(draft: FenceDraft, index: number, [lon, lat]: Position): FenceDraft {
  return { ...draft, points: draft.points.map((p, i) => (i === index ? [round(lon), round(lat)] : p)) };
}

export function removeLastPoint(draft: FenceDraft): FenceDraft {
  return { ...draft, points: draft.points.slice(0, -1), closed: false };
}

/** Finishes a polygon of at least 3 corners. */
export const finish = (draft: FenceDraft): FenceDraft => (draft.kind === 'polygon' && draft.points.length >= 3 ? { ...draft, closed: true } : draft);

/** The geometry as it saves, or why it cannot yet (a message key). */
export function draftGeometry(draft: FenceDraft): { geometry: GeofenceGeometry } | { problem: MessageKey } {
  const coordinates = draft.points.map((p) => [...p]);
  if (draft.kind === 'circle') return coordinates[0] ? { geometry: { type: 'Point', coordinates: coordinates[0] } } : { problem: 'needsCentre' };
  if (draft.kind === 'corridor') return coordinates.length >= 2 ? { geometry: { type: 'LineString', coordinates } } : { problem: 'needsTwoPoints' };
  if (coordinates.length < 3) return { problem: 'needsThreePoints' };
  return { geometry: { type: 'Polygon', coordinates: [[...coordinates, coordinates[0]!], ...draft.holes.map((ring) => ring.map((p) => [...p]))] } };
}

/** The body of POST or PUT /geofences: the service checks it all and names any problem. */
export function draftBody(draft: FenceDraft): { body: GeofenceBody } | { problem: MessageKey } {
  const shaped = draftGeometry(draft);
  if ('problem' in shaped) return shaped;
  const description = draft.description.trim() === '' ? {} : { description: draft.description };
  const size = draft.kind === 'circle' ? { radius_m: draft.radius_m } : draft.kind === 'corridor' ? { width_m: draft.width_m } : {};
  return { body: { name: draft.name, ...description, geometry: shaped.geometry, ...size } };
}

/** What the map draws of the draft: the fence once it has a shape, and the path of an open polygon. */
export function draftShape(draft: FenceDraft): { shape?: FenceShape; path?: Position[] } {
  const open = draft.kind === 'polygon' && !draft.closed;
  const shaped = open ? undefined : draftGeometry(draft);
  const shape = shaped && 'geometry' in shaped ? { id: draft.id ?? 'draft', name: draft.name, geometry: shaped.geometry, radius_m: draft.radius_m, width_m: draft.width_m } : undefined;
  return { shape, path: open ? [...draft.points] : undefined };
}

export function geometryText(draft: FenceDraft): string {
  const shaped = draftGeometry(draft);
  return 'geometry' in shaped ? JSON.stringify(shaped.geometry) : '';
}

/** The draft with the geometry a user typed (a Point, Polygon or LineString), or what is wrong with the text. */
export function applyGeometryText(draft: FenceDraft, text: string): { draft: FenceDraft } | { detail: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { detail: (error as Error).message };
  }
  const geometry = value as { type?: unknown; coordinates?: unknown } | null;
  if (!geometry || typeof geometry !== 'object' || !['Point', 'Polygon', 'LineString'].includes(String(geometry.type))) return { detail: 'type' };
  const depth = geometry.type === 'Point' ? 1 : geometry.type === 'LineString' ? 2 : 3;
  if (!nested(geometry.coordinates, depth)) return { detail: 'coordinates' };
  return { draft: fromGeometry(geometry as GeofenceGeometry, draft) };
}

/** Arrays `depth` deep ending in positions of numbers: enough to draw; the service checks the rest. */
function nested(value: unknown, depth: number): boolean {
  if (!Array.isArray(value)) return false;
  if (depth === 1) return value.length >= 2 && value.every((n) => typeof n === 'number' && Number.isFinite(n));
  return value.every((inner) => nested(inner, depth - 1));
}
