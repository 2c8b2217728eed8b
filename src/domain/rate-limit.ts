/**
 * Rate limits as the generic cell rate algorithm (GCRA): per key, one number, the instant at
 * which the key's allowance is fully used ("theoretical arrival time"). `limit` requests per
 * `windowMs` on average, with bursts of up to `limit`; a refused request costs nothing, so a
 * client that waits as told gets through. No timers: a key whose instant has passed is the same
 * as a key never seen, and such keys are swept only when the table is over its bound.
 */

/** `limit` requests per `windowMs`; configured as text `N/duration` (e.g. `20/1m`) or `0` for off. */
export interface Rate {
  readonly limit: number;
  readonly windowMs: number;
}

/** Keys kept at most: an attacker cycling addresses only makes old keys be forgotten early. */
const DEFAULT_MAX_KEYS = 100_000;

export class RateLimiter {
  readonly #interval: number;
  readonly #tolerance: number;
  readonly #maxKeys: number;
  readonly #busyUntil = new Map<string, number>();

  constructor(rate: Rate, maxKeys = DEFAULT_MAX_KEYS) {
    if (!(rate.limit >= 1) || !(rate.windowMs > 0)) throw new RangeError('a rate needs a limit of at least 1 and a positive window');
    this.#interval = rate.windowMs / rate.limit;
    this.#tolerance = rate.windowMs - this.#interval;
    this.#maxKeys = maxKeys;
  }

  /** Counts one request of `key` at `now` and returns 0, or, when over the limit, returns the ms to wait (counting nothing). */
  take(key: string, now: number): number {
    const busyUntil = Math.max(this.#busyUntil.get(key) ?? now, now);
    const allowedFrom = busyUntil - this.#tolerance;
    if (now < allowedFrom) return Math.ceil(allowedFrom - now);
    // Delete then set: the Map's order stays least recently counted first, for eviction.
    this.#busyUntil.delete(key);
    this.#busyUntil.set(key, busyUntil + this.#interval);
    if (this.#busyUntil.size > this.#maxKeys) this.#sweep(now);
    return 0;
  }

  /** Keys currently remembered (for tests and metrics). */
  get size(): number {
    return this.#busyUntil.size;
  }

  #sweep(now: number): void {
    for (const [key, until] of this.#busyUntil) if (until <= now) this.#busyUntil.delete(key);
    // Still full of live keys: forget the least recently counted tenth.
    let excess = this.#busyUntil.size - Math.floor(this.#maxKeys * 0.9);
    for (const key of this.#busyUntil.keys()) {
      if (excess-- <= 0) break;
      this.#busyUntil.delete(key);
    }
  }
}

const RATE_UNITS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `20/1m`, `5/30s`, `1000/1h` as a Rate; `0` or `off` as null (no limit); undefined when malformed. */
export function parseRate(text: string): Rate | null | undefined {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === '0' || trimmed === 'off') return null;
  const m = /^(\d{1,9})\s*\/\s*(\d{0,6})\s*([smhd])$/.exec(trimmed);
  if (!m) return undefined;
  const limit = Number(m[1]);
  const windowMs = (m[2] === '' ? 1 : Number(m[2])) * RATE_UNITS[m[3]!]!;
  if (limit < 1 || windowMs < 1000) return undefined;
  return { limit, windowMs };
}

/** Seconds for a `Retry-After` header: whole, at least 1. */
export const retryAfterSeconds = (waitMs: number): number => Math.max(1, Math.ceil(waitMs / 1000));
