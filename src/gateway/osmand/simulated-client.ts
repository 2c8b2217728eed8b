/**
 * A phone app's side of the OsmAnd protocol as Traccar Client 9 speaks it: locations POSTed as
 * JSON to the listener, each request answered 200 when they were stored.
 */

/** One location of Traccar Client 9's JSON form (speed in m/s, heading -1 when unknown). */
export interface OsmandLocation {
  readonly timestamp: string;
  readonly coords: { readonly latitude: number; readonly longitude: number; readonly speed: number; readonly heading: number; readonly accuracy: number; readonly altitude: number };
  readonly is_moving: boolean;
  readonly battery: { readonly level: number; readonly is_charging: boolean };
}

/** Locations per POST: the OsmAnd listener takes up to 500. */
export const LOCATIONS_PER_POST = 500;

/** POSTs `locations` to the listener at `url`; resolves with how many were sent, or throws on an answer other than 2xx. */
export async function postOsmandLocations(url: string, deviceId: string, locations: readonly OsmandLocation[]): Promise<number> {
  let sent = 0;
  for (let i = 0; i < locations.length; i += LOCATIONS_PER_POST) {
    const batch = locations.slice(i, i + LOCATIONS_PER_POST);
    const res = await fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ device_id: deviceId, location: batch }), signal: AbortSignal.timeout(30_000),
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`OsmAnd listener answered ${res.status} for device ${deviceId}`);
    sent += batch.length;
  }
  return sent;
}
