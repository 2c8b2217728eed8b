/**
 * Webhook signatures as Standard Webhooks v1 (https://www.standardwebhooks.com): the sender
 * signs `${id}.${timestamp}.${body}` with HMAC-SHA256 and sends `v1,<base64>` entries, one per
 * live secret, so that a receiver keeps verifying while a secret is being rotated. Pure: the
 * caller supplies randomness and the current time; HMAC is computation, not I/O.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Bytes in the secrets we issue: RFC 2104 advises a key at least as long as the digest. */
const ISSUED_SECRET_BYTES = 32;

/**
 * Shortest secret accepted. Not 24 or 32: Svix's published test vector uses an 18-byte secret
 * and receivers written against the spec must verify it; 16 bytes still keeps brute force out of reach.
 */
const MIN_SECRET_BYTES = 16;

/** Strict standard base64 with padding: Buffer.from(…, 'base64') silently skips junk, so check first. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The spec's timestamp is integer Unix seconds; 15 digits keeps it a safe integer. */
const TIMESTAMP = /^\d{1,15}$/;

const VERSION = 'v1,';

/** A fresh `whsec_…` secret; `random` is crypto.randomBytes (passed in to keep this module pure). */
export function newWebhookSecret(random: (n: number) => Buffer): string {
  const bytes = random(ISSUED_SECRET_BYTES);
  if (bytes.length !== ISSUED_SECRET_BYTES) throw new Error(`random source gave ${bytes.length} bytes, not ${ISSUED_SECRET_BYTES}`);
  return WEBHOOK_SECRET_PREFIX + bytes.toString('base64');
}

/** The HMAC key of a `whsec_<base64>` secret; throws on anything else, so a bad config fails loudly. */
export function webhookSecretBytes(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error(`a webhook secret starts with ${WEBHOOK_SECRET_PREFIX}`);
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!BASE64.test(encoded)) throw new Error('a webhook secret is standard base64 after its prefix');
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length < MIN_SECRET_BYTES) throw new Error(`a webhook secret has at least ${MIN_SECRET_BYTES} bytes`);
  return bytes;
}

/** One `v1,<base64>` signature; `timestamp` is integer Unix seconds. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  // A fractional or negative timestamp would be signed as text no receiver accepts.
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError('a webhook timestamp is whole non-negative Unix seconds');
  return VERSION + mac(webhookSecretBytes(secret), id, String(timestamp), body);
}

/** The timestamp goes in as text so that a verifier signs exactly what the sender's header said. */
function mac(key: Buffer, id: string, timestamp: string, body: string): string {
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/** The `webhook-signature` header: one entry per secret, so old and new both verify during rotation. */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => signWebhook(secret, id, timestamp, body)).join(' ');
}

export type VerifyResult =
  | { ok: true }
  | { ok: false; reason: 'no-signature' | 'bad-signature' | 'too-old' | 'too-new' | 'bad-timestamp' };

/**
 * Checks a received webhook. The timestamp window is checked before the MAC so that a replayed
 * old message is refused as such; any one matching v1 entry is enough (rotation), and entries of
 * other versions are skipped so that senders can add schemes without breaking us.
 */
export function verifyWebhook(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): VerifyResult {
  if (!TIMESTAMP.test(headers.timestamp)) return { ok: false, reason: 'bad-timestamp' };
  const timestamp = Number(headers.timestamp);
  if (timestamp < nowSeconds - toleranceSeconds) return { ok: false, reason: 'too-old' };
  if (timestamp > nowSeconds + toleranceSeconds) return { ok: false, reason: 'too-new' };
  const candidates = headers.signature.split(' ').filter((entry) => entry.startsWith(VERSION));
  if (candidates.length === 0) return { ok: false, reason: 'no-signature' };
  const expected = Buffer.from(VERSION + mac(webhookSecretBytes(secret), headers.id, headers.timestamp, body));
  return candidates.some((entry) => sameBytes(expected, Buffer.from(entry))) ? { ok: true } : { ok: false, reason: 'bad-signature' };
}

/** timingSafeEqual throws on unequal lengths; a length difference reveals nothing about the MAC. */
function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
