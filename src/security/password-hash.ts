/**
 * People's passwords, unlike the service's 256-bit generated secrets, can be guessed: they get a
 * memory-hard hash. scrypt from node:crypto (no native dependency; Argon2id arrives in Node only
 * with 24.7) at OWASP's parameters, N = 2^17, r = 8, p = 1: about 128 MiB and a few hundred
 * milliseconds a hash, which makes a GPU's parallelism expensive. The cost is written into each
 * hash, so a lower cost for tests or small machines verifies old hashes unchanged, and a hash
 * under a cost other than the configured one is re-made at the next sign-in.
 * Hashes run two at a time at most: sign-in attempts queue instead of taking the machine's memory,
 * and past 32 waiting one is answered 503 at once (a flood of sign-ins cannot stall them for ever).
 * Format: `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<key b64url>`.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { errors, ServiceError } from '../domain/errors.js';

const KEY_BYTES = 32;
const SALT_BYTES = 16;
const R = 8;
const P = 1;
/** Parameters this code accepts from a stored hash: a row edited to N = 2^30 must not hang the service. */
const MIN_LOG2_N = 10;
export const MAX_LOG2_N = 20;
export const DEFAULT_LOG2_N = 17;
const CONCURRENT_HASHES = 2;
/** Hashes waiting at most (a few seconds' work): past it a sign-in is refused at once, not queued for ever. */
const MAX_WAITING = 32;

let running = 0;
const waiting: (() => void)[] = [];

async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= CONCURRENT_HASHES) {
    if (waiting.length >= MAX_WAITING) throw new ServiceError(errors.unavailable, {}, 5);
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

function derive(password: string, salt: Buffer, log2N: number, r: number, p: number): Promise<Buffer> {
  // Node refuses above maxmem (32 MiB by default): 128 · N · r bytes, with room to spare.
  const options: ScryptOptions = { N: 2 ** log2N, r, p, maxmem: 256 * 2 ** log2N * r };
  return withHashSlot(() => new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key)));
  }));
}

export async function hashPassword(password: string, log2N: number = DEFAULT_LOG2_N): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, log2N, R, P);
  return `scrypt$${log2N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

interface ParsedHash { readonly log2N: number; readonly r: number; readonly p: number; readonly salt: Buffer; readonly key: Buffer }

function parse(stored: string): ParsedHash | undefined {
  const m = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d)\$([A-Za-z0-9_-]{16,64})\$([A-Za-z0-9_-]{43})$/.exec(stored);
  if (!m) return undefined;
  const [log2N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (log2N < MIN_LOG2_N || log2N > MAX_LOG2_N || r < 1 || r > 16 || p < 1 || p > 4) return undefined;
  return { log2N, r, p, salt: Buffer.from(m[4]!, 'base64url'), key: Buffer.from(m[5]!, 'base64url') };
}

/** Constant-time; false for a malformed hash (never a throw: a bad row refuses its sign-in only). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.log2N, parsed.r, parsed.p);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}

/** True when a hash was made at another cost than `log2N`: re-made with the password at hand. */
export function passwordHashNeedsRefresh(stored: string, log2N: number): boolean {
  return parse(stored)?.log2N !== log2N;
}

/**
 * A hash of nothing anyone knows, verified when the e-mail is unknown so that a sign-in takes as
 * long whether or not the person exists.
 */
export async function verifyAgainstNothing(password: string, log2N: number): Promise<false> {
  await derive(password, randomBytes(SALT_BYTES), log2N, R, P);
  return false;
}
