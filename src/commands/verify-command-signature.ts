import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalCommandBody, SIGNATURE_PATTERN } from '../domain/command-signature.js';
import { errors, ServiceError } from '../domain/errors.js';
import { OpenedSignSecrets } from '../registry/application-secrets.js';
import type { Keyring } from '../security/keyring.js';

const MAX_KEPT = 10_000;
/** A real body is ~50 characters; a longer one (a VIN of any length is signed before it is checked) is not kept. */
const MAX_KEPT_BODY = 256;

/**
 * D4's signature check, for one keyring. Signatures accepted before are kept, by secret and signed
 * body: an application signs the same vin and command again and again, and Node makes a key and an
 * OpenSSL context for every HMAC (~5 µs measured alone; creations spent ~25 µs less CPU a creation
 * without it under load: docs/decisions/0030-signatures-remembered-once-matched.md). The header is still
 * decoded and compared with the expected bytes in constant time on every request. Only a signature
 * that matched is kept, so a token holder without the sign-secret cannot fill the table with
 * bodies of its choosing. Keyed by the secret itself, so a rotated secret never meets its
 * predecessor's entries (and what the table could tell by its timing, whether the application sent
 * that command lately, the application's token already reads from GET /vehicle-commands). Bounded
 * in entries, oldest out, and in size.
 */
export class CommandSignatures {
  readonly #secrets: OpenedSignSecrets;
  readonly #accepted = new Map<string, Buffer>();

  constructor(keyring: Keyring) {
    this.#secrets = new OpenedSignSecrets(keyring);
  }

  /**
   * D4: the application must have a sign-secret (else 403 `Sign-secret not found.`); the header must
   * be exactly 64 hex digits before it is decoded, and equal, in constant time, to the HMAC-SHA256
   * of the canonical `{command, vin}` (else 403 `X-Signature invalid.`).
   */
  verify(app: { readonly applicationId: string; readonly signSecretSealed: string | null }, vin: string, command: string, header: unknown): void {
    if (app.signSecretSealed === null) throw new ServiceError(errors.signSecretNotFound);
    let secret: string;
    try {
      secret = this.#secrets.open(app.applicationId, app.signSecretSealed);
    } catch {
      throw new ServiceError(errors.signSecretNotFound);
    }
    if (typeof header !== 'string' || !SIGNATURE_PATTERN.test(header)) throw new ServiceError(errors.signatureInvalid);
    const body = canonicalCommandBody(vin, command);
    // The secret's length first: no two (secret, body) pairs share a key.
    const key = `${secret.length}:${secret}${body}`;
    const kept = this.#accepted.get(key);
    const expected = kept ?? createHmac('sha256', secret).update(body, 'utf8').digest();
    if (!timingSafeEqual(expected, Buffer.from(header, 'hex'))) throw new ServiceError(errors.signatureInvalid);
    if (kept === undefined && body.length <= MAX_KEPT_BODY) this.#keep(key, expected);
  }

  #keep(key: string, expected: Buffer): void {
    if (this.#accepted.size >= MAX_KEPT) this.#accepted.delete(this.#accepted.keys().next().value!);
    this.#accepted.set(key, expected);
  }
}
