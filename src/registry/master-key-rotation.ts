/**
 * Moving stored values onto the current master key, so an older one can be retired (docs:
 * "Rotating keys"). Sealed values (sign-secrets, idempotent responses) are opened with the key
 * they name and sealed again with the current one. Hashes (client secrets, OEM ingest keys)
 * cannot be redone without the secret: each is re-made on its next successful use, and `usage`
 * shows how many still wait.
 */
import { openSecret, sealedKeyId, sealSecret } from '../security/secret-box.js';
import { currentKey, type Keyring } from '../security/keyring.js';
import type { Db } from '../store/connection.js';
import { idempotencySealingContext } from '../commands/idempotent-creation.js';
import { openSignSecret, sealSignSecret } from './application-secrets.js';

/** What is stored under each master key id (a hash or box names its key as its second field). */
export interface MasterKeyUsage {
  readonly keyId: string;
  readonly current: boolean;
  /** Listed in the keyring (an unlisted key's values cannot be used at all). */
  readonly known: boolean;
  readonly signSecrets: number;
  readonly clientSecretHashes: number;
  readonly ingestKeyHashes: number;
  readonly idempotentResponses: number;
}

const keyIdOf = (stored: string) => stored.split('.')[1] ?? '?';

export async function masterKeyUsage(db: Db, keyring: Keyring): Promise<MasterKeyUsage[]> {
  const current = currentKey(keyring.master).id;
  const usage = new Map<string, { signSecrets: number; clientSecretHashes: number; ingestKeyHashes: number; idempotentResponses: number }>();
  const count = (id: string, field: 'signSecrets' | 'clientSecretHashes' | 'ingestKeyHashes' | 'idempotentResponses') => {
    let row = usage.get(id);
    if (!row) usage.set(id, (row = { signSecrets: 0, clientSecretHashes: 0, ingestKeyHashes: 0, idempotentResponses: 0 }));
    row[field] += 1;
  };
  for (const key of keyring.master) usage.set(key.id, { signSecrets: 0, clientSecretHashes: 0, ingestKeyHashes: 0, idempotentResponses: 0 });
  for (const app of await db.selectFrom('applications').select(['client_secret_hash', 'sign_secret_sealed']).execute()) {
    count(keyIdOf(app.client_secret_hash), 'clientSecretHashes');
    if (app.sign_secret_sealed !== null) count(keyIdOf(app.sign_secret_sealed), 'signSecrets');
  }
  for (const oem of await db.selectFrom('oems').select('ingest_key_hash').where('ingest_key_hash', 'is not', null).execute()) {
    count(keyIdOf(oem.ingest_key_hash!), 'ingestKeyHashes');
  }
  for (const row of await db.selectFrom('idempotency_keys').select('response').where('response', 'is not', null).execute()) {
    count(keyIdOf(row.response!), 'idempotentResponses');
  }
  const listed = new Set(keyring.master.map((k) => k.id));
  return [...usage].map(([keyId, counts]) => ({ keyId, current: keyId === current, known: listed.has(keyId), ...counts }));
}

export interface ResealReport {
  readonly signSecrets: number;
  readonly idempotentResponses: number;
  /** Values under a key missing from the keyring: they cannot be opened, so they stay as they are. */
  readonly unopenable: number;
}

/** Seals every sign-secret and kept response again under the current master key. Idempotent. */
export async function resealUnderCurrentKey(db: Db, keyring: Keyring): Promise<ResealReport> {
  const current = currentKey(keyring.master).id;
  let signSecrets = 0;
  let idempotentResponses = 0;
  let unopenable = 0;
  const apps = await db.selectFrom('applications').select(['id', 'sign_secret_sealed']).where('sign_secret_sealed', 'is not', null).execute();
  for (const app of apps) {
    const sealed = app.sign_secret_sealed!;
    if (sealedKeyId(sealed) === current) continue;
    let secret: string;
    try {
      secret = openSignSecret(app.id, sealed, keyring);
    } catch {
      unopenable += 1;
      continue;
    }
    // Guarded by the old value: a rotate-secret meanwhile wins.
    const result = await db.updateTable('applications').set({ sign_secret_sealed: sealSignSecret(app.id, secret, keyring) })
      .where('id', '=', app.id).where('sign_secret_sealed', '=', sealed).executeTakeFirst();
    signSecrets += Number(result.numUpdatedRows);
  }
  const kept = await db.selectFrom('idempotency_keys').select(['application_id', 'key', 'response']).where('response', 'is not', null).execute();
  for (const row of kept) {
    const sealed = row.response!;
    if (sealedKeyId(sealed) === current) continue;
    const context = idempotencySealingContext(row.application_id, row.key);
    let text: string;
    try {
      text = openSecret(sealed, context, keyring.master);
    } catch {
      unopenable += 1;
      continue;
    }
    const result = await db.updateTable('idempotency_keys').set({ response: sealSecret(text, context, keyring.master) })
      .where('application_id', '=', row.application_id).where('key', '=', row.key).where('response', '=', sealed).executeTakeFirst();
    idempotentResponses += Number(result.numUpdatedRows);
  }
  return { signSecrets, idempotentResponses, unopenable };
}
