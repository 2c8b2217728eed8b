import { errors, ServiceError } from '../domain/errors.js';
import { IDENTIFIER_PATTERN } from '../domain/fleet-file.js';
import { bearerToken } from '../auth/authenticate-bearer.js';
import type { Keyring } from '../security/keyring.js';
import { hashNeedsRefresh, hashSecret, verifySecret } from '../security/secret-hash.js';
import { simulatedIngestKey } from '../security/derived-secrets.js';
import { timingSafeEqual } from 'node:crypto';
import type { Db } from '../store/connection.js';
import { findOem, refreshIngestKeyHash } from '../store/registry-queries.js';

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * POST /ingest/{oem}: `Authorization: Bearer <ingest key>` of that OEM. An unknown OEM and a wrong
 * key answer alike. A simulated (`sim`) OEM also accepts the key derived from the master key, so
 * the in-process simulator can push without any key kept in clear.
 */
export async function authenticateOem(db: Db, keyring: Keyring, oemName: string, header: string | undefined): Promise<void> {
  let key: string | undefined;
  try {
    key = bearerToken(header);
  } catch {
    key = undefined;
  }
  const oem = IDENTIFIER_PATTERN.test(oemName) ? await findOem(db, oemName) : undefined;
  const stored = oem?.ingest_key_hash ?? hashSecret('no such oem', keyring.master);
  const storedOk = key !== undefined && verifySecret(key, stored, keyring.master);
  const simulatedOk = key !== undefined && oem?.connector === 'sim' && sameText(key, simulatedIngestKey(keyring, oem.name));
  if (!oem || !(storedOk || simulatedOk)) throw new ServiceError(errors.invalidIngestKey);
  // Made under an older master key: re-made under the current one, so that key can be retired.
  if (storedOk && hashNeedsRefresh(stored, keyring.master)) await refreshIngestKeyHash(db, oem.name, stored, hashSecret(key!, keyring.master));
}
