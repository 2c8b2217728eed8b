/**
 * Moving stored values onto the current master key, so an older one can be retired (docs:
 * "Rotating keys"). Sealed values (sign-secrets, idempotent responses, webhook and TOTP secrets) are opened with the key
 * they name and sealed again with the current one. Hashes (client secrets, OEM ingest keys)
 * cannot be redone without the secret: each is re-made on its next successful use, and `usage`
 * shows how many still wait.
 */
import { openSecret, sealedKeyId, sealSecret } from '../security/secret-box.js';
import { currentKey, type Keyring } from '../security/keyring.js';
import { idempotencySealingContext, signSecretSealingContext, totpSecretSealingContext, webhookSecretSealingContext } from '../security/sealing-contexts.js';
import type { Db } from '../store/connection.js';
import {
  listApplicationKeyedValues, listIngestKeyHashes, listKeptIdempotentResponses, listUserKeyedValues, listWebhookSecrets, replaceKeptIdempotentResponse,
  replaceSealedSignSecret, replaceSealedTotpSecret, replaceWebhookSecret,
} from '../store/master-key-queries.js';

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

/** `sealed` opened (it is bound to `context`) and sealed again under the current key; undefined when it does not open. */
function resealed(sealed: string, context: string, keyring: Keyring): string | undefined {
  try {
    return sealSecret(openSecret(sealed, context, keyring.master), context, keyring.master);
  } catch {
    return undefined;
  }
}

/** Seals every sign-secret, kept response, webhook and TOTP secret again under the current master key. Idempotent. */
export async function resealUnderCurrentKey(db: Db, keyring: Keyring): Promise<ResealReport> {
  const current = currentKey(keyring.master).id;
  const report = { signSecrets: 0, idempotentResponses: 0, webhookSecrets: 0, totpSecrets: 0, unopenable: 0 };
  /** Each replacement is guarded by the old value: a rotation of that secret meanwhile wins. */
  const move = async (sealed: string | null, context: string, counted: Exclude<keyof ResealReport, 'unopenable'>, replace: (next: string) => Promise<number>) => {
    if (sealed === null || sealedKeyId(sealed) === current) return;
    const next = resealed(sealed, context, keyring);
    if (next === undefined) report.unopenable += 1;
    else report[counted] += await replace(next);
  };
  for (const app of await listApplicationKeyedValues(db)) {
    const sealed = app.sign_secret_sealed;
    await move(sealed, signSecretSealingContext(app.id), 'signSecrets', (next) => replaceSealedSignSecret(db, app.id, sealed!, next));
  }
  for (const row of await listKeptIdempotentResponses(db)) {
    await move(row.response, idempotencySealingContext(row.application_id, row.key), 'idempotentResponses',
      (next) => replaceKeptIdempotentResponse(db, row.application_id, row.key, row.response, next));
  }
  for (const secret of await listWebhookSecrets(db)) {
    await move(secret.sealed, webhookSecretSealingContext(secret.id), 'webhookSecrets', (next) => replaceWebhookSecret(db, secret.id, secret.column, secret.sealed, next));
  }
  for (const user of await listUserKeyedValues(db)) {
    for (const column of ['totp_sealed', 'totp_pending_sealed'] as const) {
      const sealed = user[column];
      await move(sealed, totpSecretSealingContext(user.id), 'totpSecrets', (next) => replaceSealedTotpSecret(db, user.id, column, sealed!, next));
    }
  }
  return report;
}
