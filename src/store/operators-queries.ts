/** The operator console's people and sessions (migration 0032). */
import type { Selectable } from 'kysely';
import type { Db } from './connection.js';
import type { OperatorSessionsTable, OperatorsTable } from './schema.js';

export type OperatorRow = Selectable<OperatorsTable>;
export type OperatorSessionRow = Selectable<OperatorSessionsTable>;

const operatorOf = (row: OperatorRow): OperatorRow => ({ ...row, version: Number(row.version), created_at: Number(row.created_at), updated_at: Number(row.updated_at) });

export async function insertOperator(db: Db, row: OperatorRow): Promise<void> {
  await db.insertInto('operators').values(row).execute();
}

export async function findOperatorByEmail(db: Db, email: string): Promise<OperatorRow | undefined> {
  const row = await db.selectFrom('operators').selectAll().where('email', '=', email).executeTakeFirst();
  return row && operatorOf(row);
}

export async function findOperatorById(db: Db, id: string): Promise<OperatorRow | undefined> {
  const row = await db.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst();
  return row && operatorOf(row);
}

export async function listOperators(db: Db): Promise<OperatorRow[]> {
  return (await db.selectFrom('operators').selectAll().orderBy('email').execute()).map(operatorOf);
}

/** A new password: the version moves on, so sessions opened with the old one end. */
export async function setOperatorPassword(db: Db, id: string, passwordHash: string, now: number): Promise<boolean> {
  const result = await db.updateTable('operators')
    .set((eb) => ({ password_hash: passwordHash, version: eb('version', '+', 1), updated_at: now }))
    .where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A re-made hash of the same password (a cost change): sessions stay; nothing is written if the password changed since `version`. */
export async function refreshOperatorHash(db: Db, id: string, version: number, passwordHash: string): Promise<void> {
  await db.updateTable('operators').set({ password_hash: passwordHash }).where('id', '=', id).where('version', '=', version).execute();
}

export async function deleteOperator(db: Db, id: string): Promise<boolean> {
  await db.deleteFrom('operator_sessions').where('operator_id', '=', id).execute();
  const result = await db.deleteFrom('operators').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function insertOperatorSession(db: Db, row: OperatorSessionRow): Promise<void> {
  await db.insertInto('operator_sessions').values(row).execute();
}

export async function findOperatorSession(db: Db, idHash: string): Promise<OperatorSessionRow | undefined> {
  const row = await db.selectFrom('operator_sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
  return row && {
    ...row, operator_version: Number(row.operator_version), created_at: Number(row.created_at),
    last_seen_at: Number(row.last_seen_at), expires_at: Number(row.expires_at),
  };
}

/** Records activity; guarded so that concurrent requests write it once. */
export async function touchOperatorSession(db: Db, idHash: string, seenBefore: number, now: number): Promise<void> {
  await db.updateTable('operator_sessions').set({ last_seen_at: now }).where('id_hash', '=', idHash).where('last_seen_at', '<=', seenBefore).execute();
}

export async function deleteOperatorSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('operator_sessions').where('id_hash', '=', idHash).execute();
}

/** Sessions past their absolute end or idle since `idleBefore`. */
export async function deleteStaleOperatorSessions(db: Db, now: number, idleBefore: number): Promise<void> {
  await db.deleteFrom('operator_sessions').where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<', idleBefore)])).execute();
}
