/**
 * Reads and rewrites of the values stored under a master key (src/registry/master-key-rotation.ts):
 * client-secret hashes and sealed sign-secrets (applications), OEM ingest-key hashes, kept
 * Idempotency-Key responses. Each rewrite is guarded by the old value, so a change made meanwhile
 * (a rotated secret, an expired key) wins over the rotation.
 */
import type { Db } from './connection.js';

export interface ApplicationKeyedValues {
  readonly id: string;
  readonly client_secret_hash: string;
  readonly sign_secret_sealed: string | null;
}

export function listApplicationKeyedValues(db: Db): Promise<ApplicationKeyedValues[]> {
  return db.selectFrom('applications').select(['id', 'client_secret_hash', 'sign_secret_sealed']).execute();
}

export async function listIngestKeyHashes(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('oems').select('ingest_key_hash').where('ingest_key_hash', 'is not', null).execute();
  return rows.map((row) => row.ingest_key_hash!);
}

export interface KeptIdempotentResponse {
  readonly application_id: string;
  readonly key: string;
  readonly response: string;
}

export async function listKeptIdempotentResponses(db: Db): Promise<KeptIdempotentResponse[]> {
  const rows = await db.selectFrom('idempotency_keys').select(['application_id', 'key', 'response']).where('response', 'is not', null).execute();
  return rows.map((row) => ({ application_id: row.application_id, key: row.key, response: row.response! }));
}

/** Returns the number of rows changed: 0 when the sign-secret is no longer `sealed`. */
export async function replaceSealedSignSecret(db: Db, applicationId: string, sealed: string, resealed: string): Promise<number> {
  const result = await db.updateTable('applications').set({ sign_secret_sealed: resealed })
    .where('id', '=', applicationId).where('sign_secret_sealed', '=', sealed).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Returns the number of rows changed: 0 when the kept response is no longer `sealed`. */
export async function replaceKeptIdempotentResponse(db: Db, applicationId: string, key: string, sealed: string, resealed: string): Promise<number> {
  const result = await db.updateTable('idempotency_keys').set({ response: resealed })
    .where('application_id', '=', applicationId).where('key', '=', key).where('response', '=', sealed).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Every sealed webhook secret (current and previous) with its endpoint. */
export async function listWebhookSecrets(db: Db): Promise<{ id: string; column: 'secret_sealed' | 'previous_secret_sealed'; sealed: string }[]> {
  const rows = await db.selectFrom('webhook_endpoints').select(['id', 'secret_sealed', 'previous_secret_sealed']).execute();
  return rows.flatMap((r) => [
    { id: r.id, column: 'secret_sealed' as const, sealed: r.secret_sealed },
    ...(r.previous_secret_sealed === null ? [] : [{ id: r.id, column: 'previous_secret_sealed' as const, sealed: r.previous_secret_sealed }]),
  ]);
}

/** Returns the number of rows changed: 0 when the secret is no longer `sealed` (rotated meanwhile). */
export async function replaceWebhookSecret(db: Db, id: string, column: 'secret_sealed' | 'previous_secret_sealed', sealed: string, resealed: string): Promise<number> {
  const result = await db.updateTable('webhook_endpoints').set({ [column]: resealed }).where('id', '=', id).where(column, '=', sealed).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** People's sealed TOTP secrets (enrolled or pending) and their recovery codes' keyed hashes. */
export async function listUserKeyedValues(db: Db): Promise<{ id: string; totp_sealed: string | null; totp_pending_sealed: string | null; recovery_hashes: string }[]> {
  return db.selectFrom('users').select(['id', 'totp_sealed', 'totp_pending_sealed', 'recovery_hashes']).execute();
}

/** Returns the number of rows changed: 0 when the secret is no longer `sealed` (re-enrolled or removed meanwhile). */
export async function replaceSealedTotpSecret(db: Db, userId: string, column: 'totp_sealed' | 'totp_pending_sealed', sealed: string, resealed: string): Promise<number> {
  const result = await db.updateTable('users').set({ [column]: resealed }).where('id', '=', userId).where(column, '=', sealed).executeTakeFirst();
  return Number(result.numUpdatedRows);
}
