/**
 * /geofences (D13): a company's fences as GeoJSON geometries (RFC 7946, longitude first, WGS 84).
 * The body is validated by the service's own parser, so that every problem is answered with a
 * detail naming it; `GeofenceBody` is the typed shape the OpenAPI document shows. `Geofence` has an
 * `$id` so the service registers it once and its routes refer to it; the geometries inside have
 * none, so no second registration can clash.
 */
import { Type, type Static } from 'typebox';

/** Positions in one geometry, all rings counted, closing positions included (flespi's cap). */
export const MAX_GEOFENCE_POSITIONS = 1024;
/** A circle's radius and a corridor's full width, metres. */
export const GEOFENCE_METRES = Object.freeze({ min: 10, max: 50_000 });
/** Characters, after trimming the name. */
export const MAX_GEOFENCE_NAME = 200;
export const MAX_GEOFENCE_DESCRIPTION = 2000;
/** Fences per page of GET /geofences: at 1,024 positions each, 200 is about 8 MB. */
export const MAX_GEOFENCES_PAGE = 200;
export const DEFAULT_GEOFENCES_PAGE = 100;

const Position = Type.Array(Type.Number(), { minItems: 2, maxItems: 2, description: '[longitude, latitude], degrees' });

export const GeofencePoint = Type.Object({
  type: Type.Literal('Point'),
  coordinates: Position,
}, { description: 'A circle: its centre; `radius_m` beside the geometry gives its size' });

export const GeofencePolygon = Type.Object({
  type: Type.Literal('Polygon'),
  coordinates: Type.Array(Type.Array(Position, { minItems: 4 }), {
    minItems: 1, description: 'The outer ring, then its holes; each ring closed (its last position equals its first), without crossing itself or the others',
  }),
}, { description: `An area, holes allowed, at most ${MAX_GEOFENCE_POSITIONS} positions in all` });

export const GeofenceLineString = Type.Object({
  type: Type.Literal('LineString'),
  coordinates: Type.Array(Position, { minItems: 2, maxItems: MAX_GEOFENCE_POSITIONS }),
}, { description: 'A corridor along the line: `width_m` beside the geometry gives its width, half on each side' });

export const GeofenceGeometry = Type.Union([GeofencePoint, GeofencePolygon, GeofenceLineString]);

const metres = (what: string) => Type.Number({ minimum: GEOFENCE_METRES.min, maximum: GEOFENCE_METRES.max, description: `${what}, metres (${GEOFENCE_METRES.min} to ${GEOFENCE_METRES.max})` });

export const GeofenceBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: MAX_GEOFENCE_NAME, description: `1 to ${MAX_GEOFENCE_NAME} characters once trimmed; names need not be unique` }),
  description: Type.Optional(Type.String({ maxLength: MAX_GEOFENCE_DESCRIPTION })),
  geometry: GeofenceGeometry,
  radius_m: Type.Optional(metres('With a Point, and only then: the circle\'s radius')),
  width_m: Type.Optional(metres('With a LineString, and only then: the corridor\'s full width')),
}, { $id: 'GeofenceBody', additionalProperties: false });
export type GeofenceBody = Static<typeof GeofenceBody>;

export const Geofence = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  geometry: GeofenceGeometry,
  radius_m: Type.Optional(Type.Number({ description: 'Circles only' })),
  width_m: Type.Optional(Type.Number({ description: 'Corridors only' })),
  created: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS-03:00' }),
  updated: Type.String({ description: 'YYYY-MM-DDTHH:MM:SS-03:00: the last PUT, or the creation' }),
}, { $id: 'Geofence' });
export type Geofence = Static<typeof Geofence>;

export const GeofenceParams = Type.Object({ id: Type.String({ description: 'The geofence id' }) });

export const GeofencesQuery = Type.Object({
  limit: Type.Optional(Type.String({ description: `1 to ${MAX_GEOFENCES_PAGE}, default ${DEFAULT_GEOFENCES_PAGE}` })),
  after: Type.Optional(Type.String({ description: 'A next_cursor of an earlier page: the fences after it' })),
});
export type GeofencesQuery = Static<typeof GeofencesQuery>;

export const GeofencesPage = Type.Object({
  data: Type.Array(Geofence, { description: 'By name, then id' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` for the next page; null when there is none' }),
});
export type GeofencesPage = Static<typeof GeofencesPage>;
