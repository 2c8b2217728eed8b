import type { Selectable } from 'kysely';
import type { Db } from './connection.js';
import type { ApplicationsTable } from './schema.js';
import { compiledQuery } from './compiled-query.js';

export type ApplicationRow = Selectable<ApplicationsTable>;

export function findApplicationByClientId(db: Db, clientId: string): Promise<ApplicationRow | undefined> {
  return db.selectFrom('applications').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

export function findApplicationByName(db: Db, companyId: string, name: string): Promise<ApplicationRow | undefined> {
  return db.selectFrom('applications').selectAll().where('company_id', '=', companyId).where('name', '=', name).executeTakeFirst();
}

const applicationById = compiledQuery(1, (db, id: string) => db.selectFrom('applications').selectAll().where('id', '=', id));

/** On every authenticated request: compiled once. */
export async function findApplicationById(db: Db, id: string): Promise<ApplicationRow | undefined> {
  return (await applicationById(db, id))[0];
}

export function listApplications(db: Db, companyId?: string): Promise<ApplicationRow[]> {
  let q = db.selectFrom('applications').selectAll();
  if (companyId !== undefined) q = q.where('company_id', '=', companyId);
  return q.orderBy('company_id').orderBy('name').execute();
}

export async function insertApplication(db: Db, row: ApplicationRow): Promise<void> {
  await db.insertInto('applications').values(row).execute();
}

/** Inserts unless an application of that client id (or company and name) exists: two racing creators both carry on. */
export async function insertApplicationIfAbsent(db: Db, row: ApplicationRow): Promise<void> {
  await db.insertInto('applications').values(row).onConflict((oc) => oc.doNothing()).execute();
}

export interface ApplicationChanges {
  readonly client_secret_hash?: string;
  readonly sign_secret_sealed?: string | null;
  readonly token_lifetime?: number;
  readonly scopes?: string;
  readonly enabled?: number;
  readonly bumpCredentials?: boolean;
}

/** Applies changes; any change to secrets or state bumps the credentials version when asked. */
export async function updateApplication(db: Db, id: string, changes: ApplicationChanges, now: number): Promise<boolean> {
  const { bumpCredentials, ...columns } = changes;
  const result = await db
    .updateTable('applications')
    .set((eb) => ({
      ...columns,
      updated_at: now,
      ...(bumpCredentials ? { credentials_version: eb('credentials_version', '+', 1) } : {}),
    }))
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Upgrades a hash made under an older master key, after a successful check of the secret. */
export async function refreshClientSecretHash(db: Db, id: string, previous: string, next: string): Promise<void> {
  await db.updateTable('applications').set({ client_secret_hash: next })
    .where('id', '=', id).where('client_secret_hash', '=', previous).execute();
}
