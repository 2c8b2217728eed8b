import { errors, ServiceError } from '../domain/errors.js';
import { IDENTIFIER_PATTERN } from '../domain/fleet-file.js';
import { bearerToken } from '../auth/authenticate-bearer.js';
import type { Keyring } from '../security/keyring.js';
import { hashNeedsRefresh, hashSecret, verifySecret } from '../security/secret-hash.js';
import { simulatedIngestKey } from '../security/derived-secrets.js';
import { timingSafeEqual } from 'node:crypto';
import type { StoreConnection } from '../store/connection.js';
import { cachedRegistryRead } from '../store/registry-cache.js';
import { findOem, refreshIngestKeyHash } from '../store/registry-queries.js';

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * POST /ingest/{oem}: `Authorization: Bearer <ingest key>` of that OEM. An unknown OEM and a wrong
 * key answer alike. A simulated (`sim`) OEM also accepts the key derived from the master key, so
 * the in-process simulator can push without any key kept in clear.
 */
export async function authenticateOem(
  store: StoreConnection, keyring: Keyring, oemName: string, header: string | undefined, options: { queued?: boolean } = {},
): Promise<void> {
  let key: string | undefined;
  try {
    key = bearerToken(header);
  } catch {
    key = undefined;
  }
  const oem = IDENTIFIER_PATTERN.test(oemName)
    ? await cachedRegistryRead(store, `oem:${oemName}`, () => findOem(store.db, oemName), { lastKnownDuringOutage: options.queued === true })
    : undefined;
  const stored = oem?.ingest_key_hash ?? hashSecret('no such oem', keyring.master);
  const storedOk = key !== undefined && verifySecret(key, stored, keyring.master);
  const simulatedOk = key !== undefined && oem?.connector === 'sim' && sameText(key, simulatedIngestKey(keyring, oem.name));
  if (!oem || !(storedOk || simulatedOk)) throw new ServiceError(errors.invalidIngestKey);
  // Made under an older master key: re-made under the current one, so that key can be retired.
  if (storedOk && hashNeedsRefresh(stored, keyring.master)) {
    const refresh = refreshIngestKeyHash(store.db, oem.name, stored, hashSecret(key!, keyring.master));
    // With the ingest queue the edge accepts while the database is down: the next request re-makes it.
    await (options.queued ? refresh.catch(() => undefined) : refresh);
  }
}
