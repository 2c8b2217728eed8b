/**
 * POST /geofences/preview: the events a geofence would have fired over the last days of the
 * company's positions (preview-geofence.ts), for a fence given in full (`geofence`, the body of
 * POST /geofences; its events carry `geofence_id` null) or one already saved (`geofence_id`, whose
 * events are the very ones the live evaluator wrote or would write), over the scope both previews
 * read alike (events/preview-scope.ts).
 */
import type { Preview } from './preview-geofence.js';
import { errors, ServiceError } from '../domain/errors.js';
import { compileFence } from '../domain/geofences/compile-fence.js';
import { indexedFenceSet } from '../domain/geofences/indexed-fence-set.js';
import { DEFAULT_DRIFT_RULES } from '../domain/geofences/judge-fence.js';
import { parseGeofence } from '../domain/geofences/parse-geofence.js';
import { shapeOfStored } from '../domain/geofences/stored-shape.js';
import { findGeofence } from '../store/geofences-queries.js';
import type { GeofenceDeps } from './geofence-deps.js';
import { geofenceIdOf } from './geofence-resource.js';
import { previewFences } from './preview-geofence.js';
import { parsePreviewScope, previewVehicles } from '../events/preview-scope.js';

const invalid = (problem: string) => new ServiceError(errors.geofenceInvalid, { problem });
const NAMES = { object: 'geofence', objectIs: 'a fence to try', id: 'geofence_id' };

export async function previewGeofence(deps: GeofenceDeps, companyId: string, body: unknown): Promise<Preview & { geofence_id: string | null }> {
  const scope = parsePreviewScope(body, NAMES, invalid);
  const vins = await previewVehicles(deps.store, companyId, scope.vins, invalid);

  let fence: { id: string; name: string; shape: Parameters<typeof compileFence>[0] };
  if (scope.id !== undefined) {
    const row = await findGeofence(deps.store.db, companyId, geofenceIdOf(scope.id));
    if (!row) throw new ServiceError(errors.geofenceNotFound);
    fence = { id: row.id, name: row.name, shape: shapeOfStored(row) };
  } else {
    const parsed = parseGeofence(scope.object);
    if (!parsed.ok) throw invalid(parsed.problem);
    fence = { id: 'preview', name: parsed.geofence.name, shape: parsed.geofence.shape };
  }
  const set = indexedFenceSet([{ id: fence.id, name: fence.name, fence: compileFence(fence.shape) }]);
  const drift = deps.settings.drift ?? { rules: DEFAULT_DRIFT_RULES, latenessMs: 60_000 };
  const preview = await previewFences(deps.store, set, { companyId, vins, now: deps.clock.now(), days: scope.days }, drift.rules, drift.latenessMs);
  const saved = fence.id !== 'preview';
  return {
    ...preview,
    geofence_id: saved ? fence.id : null,
    events: saved ? preview.events : preview.events.map((e) => ({ ...e, data: { ...e.data, geofence_id: null } })),
  };
}
