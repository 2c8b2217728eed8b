/** A company's people and their set-password links (migration 0030). */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from './connection.js';
import type { PasswordLinksTable, UsersTable } from './schema.js';

export type UserRow = Selectable<UsersTable>;
export type PasswordLinkRow = Selectable<PasswordLinksTable>;

const numbers = (row: UserRow): UserRow => ({
  ...row, created_at: Number(row.created_at), updated_at: Number(row.updated_at), version: Number(row.version),
  totp_last_step: row.totp_last_step === null ? null : Number(row.totp_last_step),
});

export async function insertUser(db: Db, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row && numbers(row);
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const row = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  return row && numbers(row);
}

export async function listCompanyUsers(db: Db, companyId: string): Promise<UserRow[]> {
  const rows = await db.selectFrom('users').selectAll().where('company_id', '=', companyId).orderBy('email').execute();
  return rows.map(numbers);
}

/** Owners of the company other than `exceptId` who have a password (an invited owner cannot sign in yet). */
export async function countOtherActiveOwners(db: Db, companyId: string, exceptId: string): Promise<number> {
  const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('company_id', '=', companyId).where('role', '=', 'owner').where('id', '<>', exceptId).where('password_hash', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function deletePasswordLinks(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('password_links').where('user_id', '=', userId).execute();
}

/**
 * Changes a user; `version` moves on when `endSessions` (the change must sign the person out
 * everywhere). Guarded by the version read, so two concurrent changes cannot both apply.
 */
export async function updateUser(db: Db, user: Pick<UserRow, 'id' | 'version'>, changes: Updateable<UsersTable>, now: number, endSessions: boolean): Promise<boolean> {
  const result = await db.updateTable('users')
    .set({ ...changes, updated_at: now, ...(endSessions ? { version: user.version + 1 } : {}) })
    .where('id', '=', user.id).where('version', '=', user.version).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks a TOTP step used; false when that step (or a later one) already was: a code is accepted once. */
export async function claimTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const result = await db.updateTable('users').set({ totp_last_step: step }).where('id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)])).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Binds the person to the provider's account of their first single sign-on; false when another sign-in bound one first. */
export async function bindSsoSubject(db: Db, userId: string, subject: string): Promise<boolean> {
  const result = await db.updateTable('users').set({ sso_subject: subject }).where('id', '=', userId).where('sso_subject', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Removes a recovery code's hash; false when it was already used (two sign-ins racing on one code). */
export async function claimRecoveryCode(db: Db, userId: string, before: string, after: string): Promise<boolean> {
  const result = await db.updateTable('users').set({ recovery_hashes: after }).where('id', '=', userId).where('recovery_hashes', '=', before).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteUser(db: Db, id: string): Promise<boolean> {
  await db.deleteFrom('password_links').where('user_id', '=', id).execute();
  await db.deleteFrom('console_sessions').where('user_id', '=', id).execute();
  const result = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** A new link replaces the user's earlier ones: only the latest invitation or reset works. */
export async function replacePasswordLink(db: Db, row: PasswordLinkRow): Promise<void> {
  await db.deleteFrom('password_links').where('user_id', '=', row.user_id).execute();
  await db.insertInto('password_links').values(row).execute();
}

export async function findPasswordLink(db: Db, tokenHash: string): Promise<PasswordLinkRow | undefined> {
  const row = await db.selectFrom('password_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  return row && { ...row, created_at: Number(row.created_at), expires_at: Number(row.expires_at) };
}

/** Takes a link up: false when another request took it first. */
export async function claimPasswordLink(db: Db, tokenHash: string): Promise<boolean> {
  const result = await db.deleteFrom('password_links').where('token_hash', '=', tokenHash).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
