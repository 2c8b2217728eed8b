import { createHmac } from 'node:crypto';
import { canonicalCommandBody } from '../domain/command-signature.js';
import type { OpenedSignSecrets } from '../registry/application-secrets.js';

/**
 * The X-Signature an application would send, computed by the service for a caller it trusts to
 * act as that application (the console's session): the same canonical body and key, so the
 * command then passes the one verification every command passes. Undefined when the application
 * has no sign-secret, which the verification then reports as `Sign-secret not found.`.
 */
export function signCommandFor(
  app: { readonly applicationId: string; readonly signSecretSealed: string | null }, signSecrets: OpenedSignSecrets, vin: string, command: string,
): string | undefined {
  if (app.signSecretSealed === null) return undefined;
  try {
    const secret = signSecrets.open(app.applicationId, app.signSecretSealed);
    return createHmac('sha256', secret).update(canonicalCommandBody(vin, command), 'utf8').digest('hex');
  } catch {
    return undefined;
  }
}
