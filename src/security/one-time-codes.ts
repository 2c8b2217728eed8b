/**
 * The second factor: TOTP (RFC 6238: SHA-1, 6 digits, 30 s, as every authenticator app reads an
 * `otpauth://` URI) through the otpauth library, and single-use recovery codes. A code is
 * accepted one step either side of now (clock drift of a phone) and never twice: the step it
 * matched is kept, and a code of that step or an earlier one is refused, so a code seen over a
 * shoulder cannot be replayed within its 90 s. Guessing is left to the throttle of the routes that
 * take a code (`--token-rate-client`, 20 a minute by default): with 3 steps accepted, each guess
 * succeeds once in about 333,000.
 */
import { randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

const PERIOD_S = 30;
const WINDOW = 1;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** What an authenticator app scans: the service as issuer, the person's e-mail as label. */
export function totpUri(secretBase32: string, issuer: string, label: string): string {
  return new TOTP({ issuer, label, secret: Secret.fromBase32(secretBase32), period: PERIOD_S }).toString();
}

/**
 * The time step `code` matched, or undefined when it matches none in the window or only steps at
 * or before `lastStep` (already used).
 */
export function matchTotp(secretBase32: string, code: string, nowMs: number, lastStep: number | null): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const secret = Secret.fromBase32(secretBase32);
  const delta = TOTP.validate({ token: code, secret, period: PERIOD_S, timestamp: nowMs, window: WINDOW });
  if (delta === null) return undefined;
  const step = Math.floor(nowMs / 1000 / PERIOD_S) + delta;
  return lastStep !== null && step <= lastStep ? undefined : step;
}

/** The code an authenticator shows at `nowMs` (the demo's and the tests' own authenticator). */
export function currentTotp(secretBase32: string, nowMs: number): string {
  return TOTP.generate({ secret: Secret.fromBase32(secretBase32), period: PERIOD_S, timestamp: nowMs });
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const RECOVERY_CODE_COUNT = 10;

/** Ten codes of 10 characters (about 49 bits each), written `xxxxx-xxxxx`: shown once, kept as keyed hashes. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const text = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
    return `${text.slice(0, 5)}-${text.slice(5)}`;
  });
}

/** A typed recovery code as stored: lower case, without spaces or the dash. */
export function normalizedRecoveryCode(text: string): string {
  return text.toLowerCase().replace(/[\s-]/g, '');
}
