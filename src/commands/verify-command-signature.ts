import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalCommandBody, SIGNATURE_PATTERN } from '../domain/command-signature.js';
import { errors, ServiceError } from '../domain/errors.js';
import { openSignSecret } from '../registry/application-secrets.js';
import type { Keyring } from '../security/keyring.js';

/**
 * D4: the application must have a sign-secret (else 403 `Sign-secret not found.`); the header must
 * be exactly 64 hex digits before it is decoded, and equal, in constant time, to the HMAC-SHA256
 * of the canonical `{command, vin}` (else 403 `X-Signature invalid.`).
 */
export function verifyCommandSignature(
  app: { readonly applicationId: string; readonly signSecretSealed: string | null }, keyring: Keyring, vin: string, command: string, header: unknown,
): void {
  if (app.signSecretSealed === null) throw new ServiceError(errors.signSecretNotFound);
  let secret: string;
  try {
    secret = openSignSecret(app.applicationId, app.signSecretSealed, keyring);
  } catch {
    throw new ServiceError(errors.signSecretNotFound);
  }
  if (typeof header !== 'string' || !SIGNATURE_PATTERN.test(header)) throw new ServiceError(errors.signatureInvalid);
  const expected = createHmac('sha256', secret).update(canonicalCommandBody(vin, command), 'utf8').digest();
  if (!timingSafeEqual(expected, Buffer.from(header, 'hex'))) throw new ServiceError(errors.signatureInvalid);
}
