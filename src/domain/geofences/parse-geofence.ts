/**
 * The body of POST /geofences and PUT /geofences/{id} (D13) read into what the service keeps: a
 * name, an optional description, the shape the evaluator measures and the geometry the API
 * answers. The first problem found is answered, as a text naming the field (docs/geofences.md
 * lists them). Pure.
 */
import { GEOFENCE_METRES, MAX_GEOFENCE_DESCRIPTION, MAX_GEOFENCE_NAME } from '@telematics/contract';
import { unsafeTextProblem } from '../safe-text.js';
import type { FenceShape, LonLat } from './fence-shape.js';
import { readGeometry, type StoredGeometry } from './read-geometry.js';

export interface ParsedGeofence {
  /** Trimmed. */
  readonly name: string;
  readonly description: string | null;
  readonly shape: FenceShape;
  readonly geometry: StoredGeometry;
  /** The circle's radius, metres; null for other kinds. */
  readonly radiusM: number | null;
  /** The corridor's full width, metres; null for other kinds. */
  readonly widthM: number | null;
}

export type GeofenceParsing = { readonly ok: true; readonly geofence: ParsedGeofence } | { readonly ok: false; readonly problem: string };

const FIELDS = ['name', 'description', 'geometry', 'radius_m', 'width_m'] as const;
const LONE_SURROGATE = /[\ud800-\udfff]/u;

const failed = (problem: string): GeofenceParsing => ({ ok: false, problem });

export function parseGeofence(body: unknown): GeofenceParsing {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return failed('the body must be a JSON object');
  const fields = body as Readonly<Record<string, unknown>>;
  // A misspelt radius or width would otherwise read as missing, or worse, be dropped unseen.
  const unknown = Object.keys(fields).find((key) => !(FIELDS as readonly string[]).includes(key));
  if (unknown !== undefined) return failed(`unknown field "${unknown.replace(/[^\x20-\x7e]/g, '?').slice(0, 40)}": the fields are name, description, geometry, radius_m and width_m`);

  const name = nameOf(fields['name']);
  if (!name.ok) return name;
  const description = descriptionOf(fields['description']);
  if (!description.ok) return description;
  const reading = readGeometry(fields['geometry']);
  if (!reading.ok) return reading;
  const { geometry } = reading;

  const radius = metres(fields, 'radius_m', geometry.type === 'Point', 'a Point');
  if (!radius.ok) return radius;
  const width = metres(fields, 'width_m', geometry.type === 'LineString', 'a LineString');
  if (!width.ok) return width;
  return {
    ok: true,
    geofence: { name: name.value, description: description.value, geometry, shape: shapeOf(geometry, radius.value, width.value), radiusM: radius.value, widthM: width.value },
  };
}

type Field<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

function nameOf(value: unknown): Field<string> {
  if (typeof value !== 'string') return { ok: false, problem: value === undefined ? 'name is required' : 'name must be a string' };
  const name = value.trim();
  const length = [...name].length;
  if (length < 1 || length > MAX_GEOFENCE_NAME) return { ok: false, problem: `name must be 1 to ${MAX_GEOFENCE_NAME} characters once trimmed` };
  const unsafe = textProblem(name);
  return unsafe === undefined ? { ok: true, value: name } : { ok: false, problem: `name ${unsafe}` };
}

function descriptionOf(value: unknown): Field<string | null> {
  if (value === undefined || value === null) return { ok: true, value: null };
  if (typeof value !== 'string') return { ok: false, problem: 'description must be a string' };
  if ([...value].length > MAX_GEOFENCE_DESCRIPTION) return { ok: false, problem: `description must be at most ${MAX_GEOFENCE_DESCRIPTION} characters` };
  // A description may run over several lines; what else a terminal would obey is refused as in names.
  const unsafe = textProblem(value.replace(/[\t\n\r]/g, ' '));
  return unsafe === undefined ? { ok: true, value } : { ok: false, problem: `description ${unsafe}` };
}

function textProblem(text: string): string | undefined {
  // PostgreSQL's text cannot hold NUL, and a lone surrogate would be stored as U+FFFD: both refused.
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode (it holds a lone surrogate)';
  return unsafeTextProblem(text);
}

/** `radius_m` or `width_m`: required with its kind, refused with another. */
function metres(fields: Readonly<Record<string, unknown>>, key: 'radius_m' | 'width_m', wanted: boolean, kind: string): Field<number | null> {
  const value = fields[key];
  if (!wanted) return value === undefined ? { ok: true, value: null } : { ok: false, problem: `${key} is only for ${kind} geometry` };
  if (value === undefined) return { ok: false, problem: `${key} is required with ${kind} geometry` };
  if (typeof value !== 'number' || !Number.isFinite(value) || value < GEOFENCE_METRES.min || value > GEOFENCE_METRES.max) {
    return { ok: false, problem: `${key} must be a number from ${GEOFENCE_METRES.min} to ${GEOFENCE_METRES.max}` };
  }
  return { ok: true, value };
}

function shapeOf(geometry: StoredGeometry, radiusM: number | null, widthM: number | null): FenceShape {
  switch (geometry.type) {
    case 'Point': return { kind: 'circle', center: geometry.coordinates, radiusM: radiusM! };
    case 'Polygon': return { kind: 'polygon', rings: geometry.coordinates.map(withoutRepeats) };
    case 'LineString': return { kind: 'corridor', line: withoutRepeats(geometry.coordinates), widthM: widthM! };
  }
}

/** The positions without consecutive repeats, which make edges of no length to measure. */
function withoutRepeats(positions: readonly LonLat[]): LonLat[] {
  return positions.filter((p, i) => i === 0 || p[0] !== positions[i - 1]![0] || p[1] !== positions[i - 1]![1]);
}
