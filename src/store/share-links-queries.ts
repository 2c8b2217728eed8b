/** Share links (migration 0031). */
import type { Insertable, Selectable } from 'kysely';
import type { Db } from './connection.js';
import type { ShareLinksTable } from './schema.js';

export type ShareLinkRow = Selectable<ShareLinksTable>;

const numbers = (row: ShareLinkRow): ShareLinkRow => ({
  ...row, created_at: Number(row.created_at), expires_at: Number(row.expires_at), revoked_at: row.revoked_at === null ? null : Number(row.revoked_at),
});

export async function insertShareLink(db: Db, row: Insertable<ShareLinksTable>): Promise<void> {
  await db.insertInto('share_links').values(row).execute();
}

/** The company's links of the vehicle still working at `now`: the cap counts these. */
export async function countOpenShareLinks(db: Db, companyId: string, vin: string, now: number): Promise<number> {
  const row = await db.selectFrom('share_links').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('company_id', '=', companyId).where('vin', '=', vin).where('expires_at', '>', now).where('revoked_at', 'is', null).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findShareLink(db: Db, companyId: string, id: string): Promise<ShareLinkRow | undefined> {
  const row = await db.selectFrom('share_links').selectAll().where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
  return row && numbers(row);
}

export async function findShareLinkByToken(db: Db, tokenHash: string): Promise<ShareLinkRow | undefined> {
  const row = await db.selectFrom('share_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  return row && numbers(row);
}

export interface ShareLinkFilter {
  readonly vin?: string | undefined;
  /** `active`, `expired` or `revoked` (the query's schema allows no other). */
  readonly state?: string | undefined;
  /** Ids below this one (time-ordered: created earlier). */
  readonly before?: string | undefined;
}

/** A company's links, newest first, `limit` of them; none that ended before `endedSince`. */
export async function listShareLinks(db: Db, companyId: string, filter: ShareLinkFilter, now: number, endedSince: number, limit: number): Promise<ShareLinkRow[]> {
  let query = db.selectFrom('share_links').selectAll().where('company_id', '=', companyId)
    .where('expires_at', '>=', endedSince).where((eb) => eb.or([eb('revoked_at', 'is', null), eb('revoked_at', '>=', endedSince)]));
  if (filter.vin !== undefined) query = query.where('vin', '=', filter.vin);
  if (filter.before !== undefined) query = query.where('id', '<', filter.before);
  if (filter.state === 'revoked') query = query.where('revoked_at', 'is not', null);
  else if (filter.state === 'active') query = query.where('revoked_at', 'is', null).where('expires_at', '>', now);
  else if (filter.state === 'expired') query = query.where('revoked_at', 'is', null).where('expires_at', '<=', now);
  const rows = await query.orderBy('id', 'desc').limit(limit).execute();
  return rows.map(numbers);
}

/** Marks the link revoked; false when it already was (the first revocation's time stays). */
export async function revokeShareLink(db: Db, companyId: string, id: string, now: number): Promise<boolean> {
  const result = await db.updateTable('share_links').set({ revoked_at: now })
    .where('company_id', '=', companyId).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Links that ended (expired or revoked) before `before`: nobody can open them and the list stops showing them. */
export async function deleteEndedShareLinks(db: Db, companyId: string, before: number): Promise<void> {
  await db.deleteFrom('share_links').where('company_id', '=', companyId)
    .where((eb) => eb.or([eb('expires_at', '<', before), eb('revoked_at', '<', before)])).execute();
}
