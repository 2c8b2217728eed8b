/**
 * POST /geofences/preview: the events a geofence would have fired over the last days of the
 * company's positions (preview-geofence.ts), for a fence given in full (`geofence`, the body of
 * POST /geofences; its events carry `geofence_id` null) or one already saved (`geofence_id`, whose
 * events are the very ones the live evaluator wrote or would write). Only `vins` of the company
 * are tried; unknown ones are named in the 400.
 */
import type { Preview } from './preview-geofence.js';
import { errors, ServiceError } from '../domain/errors.js';
import { compileFence } from '../domain/geofences/compile-fence.js';
import { indexedFenceSet } from '../domain/geofences/indexed-fence-set.js';
import { DEFAULT_DRIFT_RULES } from '../domain/geofences/judge-fence.js';
import { parseGeofence } from '../domain/geofences/parse-geofence.js';
import { shapeOfStored } from '../domain/geofences/stored-shape.js';
import { findGeofence } from '../store/geofences-queries.js';
import { listCompanyVehicles } from '../store/vehicles-queries.js';
import type { GeofenceDeps } from './geofence-deps.js';
import { geofenceIdOf } from './geofence-resource.js';
import { PREVIEW_DAYS, previewFences } from './preview-geofence.js';

const FIELDS = new Set(['geofence', 'geofence_id', 'vins', 'days']);
const MAX_VINS = 1000;
const invalid = (problem: string) => new ServiceError(errors.geofenceInvalid, { problem });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function previewGeofence(deps: GeofenceDeps, companyId: string, body: unknown): Promise<Preview & { geofence_id: string | null }> {
  if (!isObject(body)) throw invalid('the body must be an object with geofence or geofence_id');
  const unknown = Object.keys(body).find((k) => !FIELDS.has(k));
  if (unknown !== undefined) throw invalid(`${unknown} is not a field of a preview (geofence, geofence_id, vins, days)`);
  if ((body['geofence'] === undefined) === (body['geofence_id'] === undefined)) throw invalid('give either geofence (a fence to try) or geofence_id (a saved one)');
  const days = body['days'] ?? PREVIEW_DAYS;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > PREVIEW_DAYS) throw invalid(`days must be a whole number from 1 to ${PREVIEW_DAYS}`);
  const vins = await checkedVins(deps, companyId, body['vins']);

  let fence: { id: string; name: string; shape: Parameters<typeof compileFence>[0] };
  if (body['geofence_id'] !== undefined) {
    const row = await findGeofence(deps.store.db, companyId, geofenceIdOf(body['geofence_id']));
    if (!row) throw new ServiceError(errors.geofenceNotFound);
    fence = { id: row.id, name: row.name, shape: shapeOfStored(row) };
  } else {
    const parsed = parseGeofence(body['geofence']);
    if (!parsed.ok) throw invalid(parsed.problem);
    fence = { id: 'preview', name: parsed.geofence.name, shape: parsed.geofence.shape };
  }
  const set = indexedFenceSet([{ id: fence.id, name: fence.name, fence: compileFence(fence.shape) }]);
  const drift = deps.settings.drift ?? { rules: DEFAULT_DRIFT_RULES, latenessMs: 60_000 };
  const preview = await previewFences(deps.store, set, { companyId, vins, now: deps.clock.now(), days }, drift.rules, drift.latenessMs);
  const saved = fence.id !== 'preview';
  return {
    ...preview,
    geofence_id: saved ? fence.id : null,
    events: saved ? preview.events : preview.events.map((e) => ({ ...e, data: { ...e.data, geofence_id: null } })),
  };
}

async function checkedVins(deps: GeofenceDeps, companyId: string, value: unknown): Promise<string[] | undefined> {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_VINS || !value.every((v) => typeof v === 'string')) {
    throw invalid(`vins must be a list of 1 to ${MAX_VINS} VINs of the company`);
  }
  const owned = new Set((await listCompanyVehicles(deps.store.db, companyId)).map((v) => v.vin));
  const foreign = value.find((v: string) => !owned.has(v));
  if (foreign !== undefined) throw invalid(`vins: ${String(foreign).slice(0, 40)} is not a vehicle of the company`);
  return [...new Set(value as string[])];
}
