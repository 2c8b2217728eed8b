/** How an application's secrets are kept: client secret hashed, sign-secret sealed to the application id. */
import type { Keyring } from '../security/keyring.js';
import { openSecret, sealSecret } from '../security/secret-box.js';
import { hashSecret, verifySecret } from '../security/secret-hash.js';
import { signSecretSealingContext } from '../security/sealing-contexts.js';

export const sealSignSecret = (applicationId: string, secret: string, keyring: Keyring): string =>
  sealSecret(secret, signSecretSealingContext(applicationId), keyring.master);

/** An application's sign-secret, opened from its sealed box; throws when the box does not open. */
export const openSignSecret = (applicationId: string, sealed: string, keyring: Keyring): string =>
  openSecret(sealed, signSecretSealingContext(applicationId), keyring.master);

/** Opened sign-secrets kept, at most this many: the oldest goes first. */
const MAX_OPENED = 1_000;

/**
 * Sign-secrets opened with one keyring, kept by (application, sealed box): every signed command
 * needs its application's secret, and a sealed box always opens to the same text, so each is
 * decrypted once. A rotated secret is a new box (a miss). For the request path; one-shot callers
 * use `openSignSecret`.
 */
export class OpenedSignSecrets {
  readonly #keyring: Keyring;
  readonly #opened = new Map<string, string>();

  constructor(keyring: Keyring) {
    this.#keyring = keyring;
  }

  open(applicationId: string, sealed: string): string {
    const cacheKey = `${applicationId}\u0000${sealed}`;
    let secret = this.#opened.get(cacheKey);
    if (secret === undefined) {
      secret = openSignSecret(applicationId, sealed, this.#keyring);
      if (this.#opened.size >= MAX_OPENED) this.#opened.delete(this.#opened.keys().next().value!);
      this.#opened.set(cacheKey, secret);
    }
    return secret;
  }
}

export const hashClientSecret = (secret: string, keyring: Keyring): string => hashSecret(secret, keyring.master);

export const clientSecretMatches = (secret: string, hash: string, keyring: Keyring): boolean =>
  verifySecret(secret, hash, keyring.master);
