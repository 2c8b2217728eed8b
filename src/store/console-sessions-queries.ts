/** Console sessions (migration 0016), by the hash of their id. */
import type { Selectable } from 'kysely';
import type { Db } from './connection.js';
import type { ConsoleSessionsTable } from './schema.js';

export type ConsoleSessionRow = Selectable<ConsoleSessionsTable>;

export async function insertConsoleSession(db: Db, row: ConsoleSessionRow): Promise<void> {
  await db.insertInto('console_sessions').values(row).execute();
}

export async function findConsoleSession(db: Db, idHash: string): Promise<ConsoleSessionRow | undefined> {
  const row = await db.selectFrom('console_sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
  return row && { ...row, created_at: Number(row.created_at), last_seen_at: Number(row.last_seen_at), expires_at: Number(row.expires_at) };
}

/** Records activity; guarded so that concurrent requests write it once. */
export async function touchConsoleSession(db: Db, idHash: string, seenBefore: number, now: number): Promise<void> {
  await db.updateTable('console_sessions').set({ last_seen_at: now }).where('id_hash', '=', idHash).where('last_seen_at', '<=', seenBefore).execute();
}

export async function deleteConsoleSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
}

/** Sessions past their absolute end or idle since `idleBefore`. */
export async function deleteStaleConsoleSessions(db: Db, now: number, idleBefore: number): Promise<number> {
  const result = await db.deleteFrom('console_sessions').where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<', idleBefore)])).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteApplicationConsoleSessions(db: Db, applicationId: string): Promise<number> {
  const result = await db.deleteFrom('console_sessions').where('application_id', '=', applicationId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
