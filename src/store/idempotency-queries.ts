/**
 * Idempotency keys (migration 0007). One row per (application, key): claimed by the first
 * request, answered once it has a response, taken over when expired or abandoned.
 */
import type { Selectable } from 'kysely';
import type { Db } from './connection.js';
import type { IdempotencyKeysTable } from './schema.js';

export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>;

export interface IdempotencyClaimWindow {
  /** Rows created before this are expired: the key is free again. */
  readonly expiredBefore: number;
  /** Unanswered rows created before this were abandoned (their request died): free again. */
  readonly abandonedBefore: number;
}

/**
 * Claims `key` for a new request: true when this caller now holds it; otherwise the row that
 * holds it (answered, or still running). One transaction: the insert, or the takeover of an
 * expired or abandoned row, or the read of the live one.
 */
export async function claimIdempotencyKey(
  trx: Db, applicationId: string, key: string, fingerprint: string, now: number, window: IdempotencyClaimWindow,
): Promise<true | IdempotencyKeyRow> {
  const inserted = await trx.insertInto('idempotency_keys')
    .values({ application_id: applicationId, key, fingerprint, status_code: null, response: null, created_at: now })
    .onConflict((oc) => oc.columns(['application_id', 'key']).doNothing()).executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return true;
  const taken = await trx.updateTable('idempotency_keys')
    .set({ fingerprint, status_code: null, response: null, created_at: now })
    .where('application_id', '=', applicationId).where('key', '=', key)
    .where((eb) => eb.or([
      eb('created_at', '<', window.expiredBefore),
      eb.and([eb('status_code', 'is', null), eb('created_at', '<', window.abandonedBefore)]),
    ]))
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) === 1) return true;
  const row = await trx.selectFrom('idempotency_keys').selectAll().where('application_id', '=', applicationId).where('key', '=', key).executeTakeFirst();
  // Deleted between the statements (the sweep): the caller may simply try again.
  return row ?? claimIdempotencyKey(trx, applicationId, key, fingerprint, now, window);
}

/** Records the response of the request holding `key` (claimed at `claimedAt`). */
export async function answerIdempotencyKey(trx: Db, applicationId: string, key: string, claimedAt: number, statusCode: number, sealedResponse: string): Promise<void> {
  await trx.updateTable('idempotency_keys').set({ status_code: statusCode, response: sealedResponse })
    .where('application_id', '=', applicationId).where('key', '=', key).where('created_at', '=', claimedAt).where('status_code', 'is', null)
    .execute();
}

/** Lets go of `key` without a response (the request was refused): a corrected retry may use it. */
export async function releaseIdempotencyKey(trx: Db, applicationId: string, key: string, claimedAt: number): Promise<void> {
  await trx.deleteFrom('idempotency_keys')
    .where('application_id', '=', applicationId).where('key', '=', key).where('created_at', '=', claimedAt).where('status_code', 'is', null)
    .execute();
}

/** Drops an answered key whose response can no longer be read. */
export async function forgetIdempotencyKey(trx: Db, applicationId: string, key: string, createdAt: number): Promise<void> {
  await trx.deleteFrom('idempotency_keys').where('application_id', '=', applicationId).where('key', '=', key).where('created_at', '=', createdAt).execute();
}

export async function deleteIdempotencyKeysBefore(db: Db, cutoff: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
