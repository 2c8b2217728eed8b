/** The console's geofence calls, on the session (the public routes under /console/api; docs/geofences.md). */
import { apiCall } from '../../api.js';
import type { Geofence, GeofenceBody, GeofencePreview, GeofencesPage } from './geofence-types.js';

/** The largest page the service gives (MAX_GEOFENCES_PAGE): fewer round trips for a big company. */
const PAGE = 200;

/** Every one of the company's fences, by name: all the pages, following next_cursor. */
export async function listAllGeofences(): Promise<Geofence[]> {
  const all: Geofence[] = [];
  let after: string | null = null;
  do {
    const query: string = after === null ? `limit=${PAGE}` : `limit=${PAGE}&after=${encodeURIComponent(after)}`;
    const page: GeofencesPage = await apiCall<GeofencesPage>('GET', `/geofences?${query}`);
    all.push(...page.data);
    after = page.next_cursor;
  } while (after !== null);
  return all;
}

export const createGeofence = (body: GeofenceBody): Promise<Geofence> => apiCall<Geofence>('POST', '/geofences', body);
export const replaceGeofence = (id: string, body: GeofenceBody): Promise<Geofence> => apiCall<Geofence>('PUT', `/geofences/${encodeURIComponent(id)}`, body);
export const deleteGeofence = (id: string): Promise<null> => apiCall<null>('DELETE', `/geofences/${encodeURIComponent(id)}`);
/** The events a fence not saved yet would have fired over the last `days` (nothing is written). */
export const previewGeofence = (geofence: GeofenceBody, days = 7): Promise<GeofencePreview> => apiCall<GeofencePreview>('POST', '/geofences/preview', { geofence, days });
