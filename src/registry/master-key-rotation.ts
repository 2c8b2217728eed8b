/**
 * Moving stored values onto the current master key, so an older one can be retired (docs:
 * "Rotating keys"). Sealed values (sign-secrets, idempotent responses, webhook and TOTP secrets) are opened with the key
 * they name and sealed again with the current one. Hashes (client secrets, OEM ingest keys)
 * cannot be redone without the secret: each is re-made on its next successful use, and `usage`
 * shows how many still wait.
 */
import { openSecret, sealedKeyId, sealSecret } from '../security/secret-box.js';
import { currentKey, type Keyring } from '../security/keyring.js';
import { idempotencySealingContext, totpSecretSealingContext, webhookSecretSealingContext } from '../security/sealing-contexts.js';
import type { Db } from '../store/connection.js';
import {
  listApplicationKeyedValues, listIngestKeyHashes, listKeptIdempotentResponses, listUserKeyedValues, listWebhookSecrets, replaceKeptIdempotentResponse,
  replaceSealedSignSecret, replaceSealedTotpSecret, replaceWebhookSecret,
} from '../store/master-key-queries.js';
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
  readonly webhookSecrets: number;
  /** People's TOTP secrets (re-sealed like sign-secrets). */
  readonly totpSecrets: number;
  /** Unused recovery codes: hashes, re-made only when the person enrols again. */
  readonly recoveryCodeHashes: number;
}

const keyIdOf = (stored: string) => stored.split('.')[1] ?? '?';

export async function masterKeyUsage(db: Db, keyring: Keyring): Promise<MasterKeyUsage[]> {
  const current = currentKey(keyring.master).id;
  type Counts = { signSecrets: number; clientSecretHashes: number; ingestKeyHashes: number; idempotentResponses: number; webhookSecrets: number; totpSecrets: number; recoveryCodeHashes: number };
  const none = (): Counts => ({ signSecrets: 0, clientSecretHashes: 0, ingestKeyHashes: 0, idempotentResponses: 0, webhookSecrets: 0, totpSecrets: 0, recoveryCodeHashes: 0 });
  const usage = new Map<string, Counts>();
  const count = (id: string, field: keyof Counts) => {
    let row = usage.get(id);
    if (!row) usage.set(id, (row = none()));
    row[field] += 1;
  };
  for (const key of keyring.master) usage.set(key.id, none());
  for (const app of await listApplicationKeyedValues(db)) {
    count(keyIdOf(app.client_secret_hash), 'clientSecretHashes');
    if (app.sign_secret_sealed !== null) count(keyIdOf(app.sign_secret_sealed), 'signSecrets');
  }
  for (const hash of await listIngestKeyHashes(db)) count(keyIdOf(hash), 'ingestKeyHashes');
  for (const row of await listKeptIdempotentResponses(db)) count(keyIdOf(row.response), 'idempotentResponses');
  for (const secret of await listWebhookSecrets(db)) count(keyIdOf(secret.sealed), 'webhookSecrets');
  for (const user of await listUserKeyedValues(db)) {
    for (const sealed of [user.totp_sealed, user.totp_pending_sealed]) if (sealed !== null) count(keyIdOf(sealed), 'totpSecrets');
    for (const hash of JSON.parse(user.recovery_hashes) as string[]) count(keyIdOf(hash), 'recoveryCodeHashes');
  }
  const listed = new Set(keyring.master.map((k) => k.id));
  return [...usage].map(([keyId, counts]) => ({ keyId, current: keyId === current, known: listed.has(keyId), ...counts }));
}

export interface ResealReport {
  readonly signSecrets: number;
  readonly idempotentResponses: number;
  readonly webhookSecrets: number;
  readonly totpSecrets: number;
  /** Values under a key missing from the keyring: they cannot be opened, so they stay as they are. */
  readonly unopenable: number;
}

/** Seals every sign-secret and kept response again under the current master key. Idempotent. */
export async function resealUnderCurrentKey(db: Db, keyring: Keyring): Promise<ResealReport> {
  const current = currentKey(keyring.master).id;
  let signSecrets = 0;
  let idempotentResponses = 0;
  let unopenable = 0;
  for (const app of await listApplicationKeyedValues(db)) {
    const sealed = app.sign_secret_sealed;
    if (sealed === null || sealedKeyId(sealed) === current) continue;
    let secret: string;
    try {
      secret = openSignSecret(app.id, sealed, keyring);
    } catch {
      unopenable += 1;
      continue;
    }
    // Guarded by the old value: a rotate-secret meanwhile wins.
    signSecrets += await replaceSealedSignSecret(db, app.id, sealed, sealSignSecret(app.id, secret, keyring));
  }
  for (const row of await listKeptIdempotentResponses(db)) {
    const sealed = row.response;
    if (sealedKeyId(sealed) === current) continue;
    const context = idempotencySealingContext(row.application_id, row.key);
    let text: string;
    try {
      text = openSecret(sealed, context, keyring.master);
    } catch {
      unopenable += 1;
      continue;
    }
    idempotentResponses += await replaceKeptIdempotentResponse(db, row.application_id, row.key, sealed, sealSecret(text, context, keyring.master));
  }
  let webhookSecrets = 0;
  for (const secret of await listWebhookSecrets(db)) {
    if (sealedKeyId(secret.sealed) === current) continue;
    const context = webhookSecretSealingContext(secret.id);
    let text: string;
    try {
      text = openSecret(secret.sealed, context, keyring.master);
    } catch {
      unopenable += 1;
      continue;
    }
    webhookSecrets += await replaceWebhookSecret(db, secret.id, secret.column, secret.sealed, sealSecret(text, context, keyring.master));
  }
  let totpSecrets = 0;
  for (const user of await listUserKeyedValues(db)) {
    for (const column of ['totp_sealed', 'totp_pending_sealed'] as const) {
      const sealed = user[column];
      if (sealed === null || sealedKeyId(sealed) === current) continue;
      const context = totpSecretSealingContext(user.id);
      let text: string;
      try {
        text = openSecret(sealed, context, keyring.master);
      } catch {
        unopenable += 1;
        continue;
      }
      totpSecrets += await replaceSealedTotpSecret(db, user.id, column, sealed, sealSecret(text, context, keyring.master));
    }
  }
  return { signSecrets, idempotentResponses, webhookSecrets, totpSecrets, unopenable };
}
