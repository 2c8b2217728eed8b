/**
 * Secrets the service can recompute instead of storing: an HMAC of a label under a sub-key of the
 * current master key. Used for the demo credentials and for the ingest key of simulated automakers,
 * which the in-process simulator must present without the key being kept anywhere in clear.
 */
import { createHmac } from 'node:crypto';
import { currentKey, deriveKey, type Keyring } from './keyring.js';

export function deriveSecret(keyring: Keyring, label: string, prefix: string): string {
  const key = deriveKey(currentKey(keyring.master), 'derived-secrets');
  return `${prefix}${createHmac('sha256', key).update(label).digest('base64url')}`;
}

/** The ingest key a `sim`-connector OEM always accepts (besides its stored one). */
export const simulatedIngestKey = (keyring: Keyring, oem: string): string => deriveSecret(keyring, `${oem}:ingest`, 'tik_');
