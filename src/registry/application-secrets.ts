/** How an application's secrets are kept: client secret hashed, sign-secret sealed to the application id. */
import type { Keyring } from '../security/keyring.js';
import { openSecret, sealSecret } from '../security/secret-box.js';
import { hashSecret, verifySecret } from '../security/secret-hash.js';
import { signSecretSealingContext } from '../security/sealing-contexts.js';

export const sealSignSecret = (applicationId: string, secret: string, keyring: Keyring): string =>
  sealSecret(secret, signSecretSealingContext(applicationId), keyring.master);

/**
 * Opened sign-secrets by (application, sealed box): every signed command needs its application's
 * secret, and a sealed box always opens to the same text, so each is decrypted once. A rotated
 * secret is a new box (a miss); bounded, oldest out first.
 */
const openedByKeyring = new WeakMap<Keyring, Map<string, string>>();
const MAX_OPENED = 1_000;

export function openSignSecret(applicationId: string, sealed: string, keyring: Keyring): string {
  let opened = openedByKeyring.get(keyring);
  if (!opened) openedByKeyring.set(keyring, (opened = new Map()));
  const cacheKey = `${applicationId}\u0000${sealed}`;
  let secret = opened.get(cacheKey);
  if (secret === undefined) {
    secret = openSecret(sealed, signSecretSealingContext(applicationId), keyring.master);
    if (opened.size >= MAX_OPENED) opened.delete(opened.keys().next().value!);
    opened.set(cacheKey, secret);
  }
  return secret;
}

export const hashClientSecret = (secret: string, keyring: Keyring): string => hashSecret(secret, keyring.master);

export const clientSecretMatches = (secret: string, hash: string, keyring: Keyring): boolean =>
  verifySecret(secret, hash, keyring.master);
