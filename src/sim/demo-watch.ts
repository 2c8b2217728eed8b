/**
 * What the demo company watches from its first start: a geofence over São Paulo's centre and one
 * at Congonhas airport, and one rule of each kind a fleet sets first. The simulated drivers cross
 * the centre and drive the highways above 80 km/h, so `npm start` shows geofence and alert events
 * (feed, webhooks, console) within minutes, made by the same use cases the API calls.
 */
import { createAlertRule } from '../alerts/manage-alert-rules.js';
import type { Clock } from '../domain/clock.js';
import { createGeofence } from '../geofences/manage-geofences.js';
import type { StoreConnection } from '../store/connection.js';

const CENTRE = [[-46.6600, -23.5350], [-46.6200, -23.5350], [-46.6200, -23.5700], [-46.6600, -23.5700], [-46.6600, -23.5350]];

export const DEMO_GEOFENCES = [
  { name: 'São Paulo centre', description: 'The old centre, inside the river and the ring avenues', geometry: { type: 'Polygon', coordinates: [CENTRE] } },
  { name: 'Congonhas airport', geometry: { type: 'Point', coordinates: [-46.6566, -23.6273] }, radius_m: 900 },
] as const;

export const DEMO_ALERT_RULES = [
  { name: 'Over 80 km/h', kind: 'overspeed', threshold: 80, duration_s: 10 },
  { name: 'Idling 10 minutes', kind: 'idling', duration_s: 600 },
  { name: 'Silent 30 minutes', kind: 'no_data', duration_s: 1800 },
  { name: 'Fuel below 15 %', kind: 'low_fuel', threshold: 15, duration_s: 60 },
] as const;

/** A demo needs no cap: the seed is the first thing the company holds. */
const NO_CAP = 1_000_000;

export async function seedDemoWatch(store: StoreConnection, clock: Clock, companyId: string): Promise<void> {
  for (const fence of DEMO_GEOFENCES) await createGeofence({ store, clock, settings: { maxPerCompany: NO_CAP } }, companyId, fence);
  for (const rule of DEMO_ALERT_RULES) await createAlertRule({ store, clock, alertRules: { maxPerCompany: NO_CAP } }, companyId, rule);
}
