/** The checks of what a person types: an e-mail and a password. Pure. */
import { errors, ServiceError } from '../domain/errors.js';

/** A pragmatic check, not RFC 5322: one @, no spaces, a dot in the domain; kept lower-cased. */
const EMAIL = /^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/;

export function emailOf(value: unknown): string {
  if (typeof value !== 'string' || value.length > 254 || !EMAIL.test(value)) throw new ServiceError(errors.userInvalid, { problem: 'email must be an e-mail address' });
  return value.toLowerCase();
}

/**
 * At least 12 characters (NIST SP 800-63B's floor is 8 with a second factor, 15 without; 12 and
 * an optional TOTP meet people halfway), at most 256 (a hash of a megabyte is a denial of
 * service), and not the e-mail itself. No composition rules: they make passwords worse.
 */
export function checkedPassword(value: unknown, email: string): string {
  if (typeof value !== 'string' || [...value].length < 12 || value.length > 256 || value.toLowerCase() === email) throw new ServiceError(errors.passwordInvalid);
  return value;
}
