/**
 * Creating, reading, replacing and deleting a company's geofences (D13). Another company's fence
 * reads as absent. Every change raises the company's revision in its own transaction, first, so
 * the evaluator sees a revision move only with the change committed, and a company's creations
 * take turns past the cap's count.
 */
import { randomUUID } from 'node:crypto';
import type { Geofence } from '@telematics/contract';
import { errors, ServiceError } from '../domain/errors.js';
import { bumpGeofenceRevision, countGeofences, deleteGeofence, findGeofence, insertGeofence, replaceGeofence } from '../store/geofences-queries.js';
import { rebaseFenceStates } from '../store/rebase-watch-states.js';
import { changeEntry, withAudit } from '../audit/record-audit.js';
import type { AuditActor } from '../domain/audit-chain.js';
import type { GeofenceDeps } from './geofence-deps.js';
import { geofenceIdOf, geofenceResource, storedColumnsOf } from './geofence-resource.js';

/** `actor`, when given, is the audit trail's who (an API caller); the demo's own fences have none. */
export async function createGeofence(deps: GeofenceDeps, companyId: string, body: unknown, actor?: AuditActor): Promise<Geofence> {
  const now = deps.clock.now();
  const row = { id: randomUUID(), company_id: companyId, created_at: now, ...storedColumnsOf(body, now) };
  const max = deps.settings.maxPerCompany;
  await withAudit(deps.store.db, actor, changeEntry(companyId, 'geofence.created', row.id), now, async (trx) => {
    await bumpGeofenceRevision(trx, companyId);
    if ((await countGeofences(trx, companyId)) >= max) throw new ServiceError(errors.tooManyGeofences, { max: String(max) });
    await insertGeofence(trx, row);
  });
  return geofenceResource(row);
}

export async function readGeofence(deps: Pick<GeofenceDeps, 'store'>, companyId: string, id: string): Promise<Geofence> {
  const row = await findGeofence(deps.store.db, companyId, geofenceIdOf(id));
  if (!row) throw new ServiceError(errors.geofenceNotFound);
  return geofenceResource(row);
}

/** PUT: the body replaces every field (a description left out is removed); id and creation stay; the vehicles' states are re-based. */
export async function replaceGeofenceWith(deps: GeofenceDeps, companyId: string, id: string, body: unknown, actor?: AuditActor): Promise<Geofence> {
  const fenceId = geofenceIdOf(id);
  const columns = storedColumnsOf(body, deps.clock.now());
  const row = await withAudit(deps.store.db, actor, changeEntry(companyId, 'geofence.replaced', fenceId), columns.updated_at, async (trx) => {
    await bumpGeofenceRevision(trx, companyId);
    const replaced = await replaceGeofence(trx, companyId, fenceId, columns);
    if (!replaced) throw new ServiceError(errors.geofenceNotFound);
    // The vehicles' states were judged against the old shape (rebase-watch-states.ts).
    await rebaseFenceStates(trx, fenceId, columns.updated_at);
    return replaced;
  });
  return geofenceResource(row);
}

export async function removeGeofence(deps: Pick<GeofenceDeps, 'store' | 'clock'>, companyId: string, id: string, actor?: AuditActor): Promise<void> {
  const fenceId = geofenceIdOf(id);
  await withAudit(deps.store.db, actor, changeEntry(companyId, 'geofence.deleted', fenceId), deps.clock.now(), async (trx) => {
    await bumpGeofenceRevision(trx, companyId);
    if (!(await deleteGeofence(trx, companyId, fenceId))) throw new ServiceError(errors.geofenceNotFound);
  });
}
