/** A geofence as the API answers it, and the row a parsed body is stored as. */
import type { Geofence } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { fenceBounds } from '../domain/geofences/fence-bounds.js';
import { parseGeofence } from '../domain/geofences/parse-geofence.js';
import { storedIdOf } from '../domain/resource-id.js';
import { formatIsoWithOffset } from '../domain/time.js';
import type { GeofenceReplacement, GeofenceRow } from '../store/geofences-queries.js';

/** The id as stored (domain/resource-id.ts), or the catalogue's not-found for anything that cannot be one. */
export function geofenceIdOf(value: unknown): string {
  const id = storedIdOf(value);
  if (id === undefined) throw new ServiceError(errors.geofenceNotFound);
  return id;
}

export function geofenceResource(row: GeofenceRow): Geofence {
  return {
    id: row.id, name: row.name, description: row.description, geometry: JSON.parse(row.geometry) as Geofence['geometry'],
    ...(row.radius_m === null ? {} : { radius_m: row.radius_m }),
    ...(row.width_m === null ? {} : { width_m: row.width_m }),
    created: formatIsoWithOffset(Number(row.created_at)), updated: formatIsoWithOffset(Number(row.updated_at)),
  };
}

/** The stored columns of a request body, or the catalogue's 400 naming its first problem. */
export function storedColumnsOf(body: unknown, now: number): GeofenceReplacement {
  const parsed = parseGeofence(body);
  if (!parsed.ok) throw new ServiceError(errors.geofenceInvalid, { problem: parsed.problem });
  const { geofence } = parsed;
  const [minLon, minLat, maxLon, maxLat] = fenceBounds(geofence.shape);
  return {
    name: geofence.name, description: geofence.description, kind: geofence.shape.kind, geometry: JSON.stringify(geofence.geometry),
    radius_m: geofence.radiusM, width_m: geofence.widthM, min_lon: minLon, min_lat: minLat, max_lon: maxLon, max_lat: maxLat, updated_at: now,
  };
}
