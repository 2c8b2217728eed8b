/**
 * Geofences and their companies' revisions (migration 0021). Every write of a company's fences
 * raises its revision in the same transaction (`bumpGeofenceRevision`): the evaluator reloads a
 * company's fences when its revision has moved.
 */
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from './connection.js';
import type { GeofencesTable } from './schema.js';

export type GeofenceRow = Selectable<GeofencesTable>;
/** What a replacement changes: everything but the id, the company and the creation. */
export type GeofenceReplacement = Omit<GeofencesTable, 'id' | 'company_id' | 'created_at'>;

/** The columns the evaluator compiles a fence from. */
export type EvaluatorFenceRow = Pick<GeofenceRow, 'id' | 'name' | 'kind' | 'geometry' | 'radius_m' | 'width_m' | 'min_lon' | 'min_lat' | 'max_lon' | 'max_lat' | 'updated_at'>;

/** A place in a company's list: the name and id of the last fence of a page. */
export interface GeofenceListPosition {
  readonly name: string;
  readonly id: string;
}

/**
 * Raises the company's revision by one (1 for its first change). Called first in a change's
 * transaction: on PostgreSQL the row stays locked until commit, so a company's changes take turns
 * and a count read after it (the cap) cannot be raced by a concurrent creation.
 */
export async function bumpGeofenceRevision(db: Db, companyId: string): Promise<void> {
  await db.insertInto('geofence_revisions').values({ company_id: companyId, revision: 1 })
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ revision: sql<number>`geofence_revisions.revision + 1` }))
    .execute();
}

export const insertGeofence = (db: Db, row: Insertable<GeofencesTable>) => db.insertInto('geofences').values(row).execute();

/** Replaces a fence of the company, answering it as it now is; undefined when there is none with that id. */
export const replaceGeofence = (db: Db, companyId: string, id: string, changes: GeofenceReplacement): Promise<GeofenceRow | undefined> =>
  db.updateTable('geofences').set(changes).where('id', '=', id).where('company_id', '=', companyId).returningAll().executeTakeFirst();

/** Deletes a fence of the company; false when there is none with that id. */
export async function deleteGeofence(db: Db, companyId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('geofences').where('id', '=', id).where('company_id', '=', companyId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export const findGeofence = (db: Db, companyId: string, id: string): Promise<GeofenceRow | undefined> =>
  db.selectFrom('geofences').selectAll().where('id', '=', id).where('company_id', '=', companyId).executeTakeFirst();

/** A page of the company's fences by name, then id, after `after` when given. */
export function listGeofences(db: Db, companyId: string, limit: number, after?: GeofenceListPosition): Promise<GeofenceRow[]> {
  let query = db.selectFrom('geofences').selectAll().where('company_id', '=', companyId);
  if (after) query = query.where((eb) => eb.or([eb('name', '>', after.name), eb.and([eb('name', '=', after.name), eb('id', '>', after.id)])]));
  return query.orderBy('name').orderBy('id').limit(limit).execute();
}

export async function countGeofences(db: Db, companyId: string): Promise<number> {
  const row = await db.selectFrom('geofences').select((eb) => eb.fn.countAll<number | string>().as('n')).where('company_id', '=', companyId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The revisions of the companies given that have one (a company whose fences never changed has none). */
export async function readGeofenceRevisions(db: Db, companyIds: readonly string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (let i = 0; i < companyIds.length; i += 500) {
    const rows = await db.selectFrom('geofence_revisions').select(['company_id', 'revision']).where('company_id', 'in', companyIds.slice(i, i + 500)).execute();
    for (const row of rows) found.set(row.company_id, Number(row.revision));
  }
  return found;
}

/** Every fence of a company, as the evaluator compiles them (by id, so a reload reads them in one order). */
export const listEvaluatorFences = (db: Db, companyId: string): Promise<EvaluatorFenceRow[]> =>
  db.selectFrom('geofences')
    .select(['id', 'name', 'kind', 'geometry', 'radius_m', 'width_m', 'min_lon', 'min_lat', 'max_lon', 'max_lat', 'updated_at'])
    .where('company_id', '=', companyId).orderBy('id').execute();
