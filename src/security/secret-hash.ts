/**
 * Keyed hashes of verify-only secrets (client secrets, OEM ingest keys): HMAC-SHA-256 under a
 * pepper derived from a master key. The secrets are 256-bit random (or ≥32 characters when an
 * operator supplies them), so a slow password hash would add cost to every /token call and no
 * strength; the pepper keeps a stolen database useless without the master key.
 * Format: `hmac-sha256.<master key id>.<digest b64url>`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { currentKey, deriveKey, type SecretKey } from './keyring.js';

const PURPOSE = 'secret-hash';

function digest(secret: string, master: SecretKey): Buffer {
  return createHmac('sha256', deriveKey(master, PURPOSE)).update(secret, 'utf8').digest();
}

export function hashSecret(secret: string, masterKeys: readonly SecretKey[]): string {
  const master = currentKey(masterKeys);
  return `hmac-sha256.${master.id}.${digest(secret, master).toString('base64url')}`;
}

/** Constant-time check of `secret` against a stored hash; false for malformed or unknown-key hashes. */
export function verifySecret(secret: string, stored: string, masterKeys: readonly SecretKey[]): boolean {
  const [scheme, keyId, expectedText, ...rest] = stored.split('.');
  const master = masterKeys.find((k) => k.id === keyId);
  if (scheme !== 'hmac-sha256' || !master || !expectedText || rest.length > 0) return false;
  const expected = Buffer.from(expectedText, 'base64url');
  const actual = digest(secret, master);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** True when a hash was made under an older master key and should be re-made with the current one. */
export function hashNeedsRefresh(stored: string, masterKeys: readonly SecretKey[]): boolean {
  return stored.split('.')[1] !== currentKey(masterKeys).id;
}
