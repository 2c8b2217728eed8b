/**
 * GET /geofences: a company's fences by name, then id, a page at a time. The cursor carries the
 * last fence's name and id rather than naming a fence to look up, so a page boundary holds when
 * that fence is deleted or renamed between pages.
 */
import { DEFAULT_GEOFENCES_PAGE, MAX_GEOFENCE_NAME, MAX_GEOFENCES_PAGE, type GeofencesPage, type GeofencesQuery } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { listGeofences, type GeofenceListPosition } from '../store/geofences-queries.js';
import type { GeofenceDeps } from './geofence-deps.js';
import { geofenceResource } from './geofence-resource.js';

/** Longer than any cursor this service writes (a name of 200 characters of 4 UTF-8 bytes, base64url). */
const MAX_CURSOR_LENGTH = 1400;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export async function listCompanyGeofences(deps: Pick<GeofenceDeps, 'store'>, companyId: string, query: GeofencesQuery): Promise<GeofencesPage> {
  let limit = DEFAULT_GEOFENCES_PAGE;
  if (query.limit !== undefined) {
    if (!/^\d{1,3}$/.test(query.limit) || Number(query.limit) < 1 || Number(query.limit) > MAX_GEOFENCES_PAGE) throw new ServiceError(errors.geofenceLimitInvalid);
    limit = Number(query.limit);
  }
  const after = query.after === undefined ? undefined : positionOf(query.after);
  // One more than asked tells whether there is a next page without a second query.
  const rows = await listGeofences(deps.store.db, companyId, limit + 1, after);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { data: page.map(geofenceResource), next_cursor: rows.length > limit && last ? cursorOf({ name: last.name, id: last.id }) : null };
}

export const cursorOf = (position: GeofenceListPosition): string => Buffer.from(JSON.stringify([position.name, position.id])).toString('base64url');

function positionOf(cursor: string): GeofenceListPosition {
  const invalid = () => new ServiceError(errors.geofenceCursorInvalid);
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(value) || value.length !== 2) throw invalid();
  const [name, id] = value as unknown[];
  // NUL cannot be a bound parameter of PostgreSQL's text: no stored name holds one anyway.
  if (typeof name !== 'string' || [...name].length > MAX_GEOFENCE_NAME || name.includes('\u0000') || typeof id !== 'string' || !UUID.test(id)) throw invalid();
  return { name, id };
}
