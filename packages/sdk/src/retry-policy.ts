/**
 * When a failed request may be sent again, and after how long. Only work that cannot happen twice
 * is retried: reads, and command creation carrying an Idempotency-Key the service deduplicates on.
 */

/** `read`: GETs and the read-only POSTs; `keyed`: a POST with an Idempotency-Key; `never`: anything else. */
export type RetryKind = 'read' | 'keyed' | 'never';

/** Statuses that say "the same request may succeed later". */
const RETRY_STATUSES: Readonly<Record<RetryKind, ReadonlySet<number>>> = {
  read: new Set([408, 429, 502, 503, 504]),
  // 502 is left out: the service answers a command the automaker refused with 502, and
  // replaying the key only replays that answer.
  keyed: new Set([408, 429, 503, 504]),
  never: new Set(),
};

/**
 * How long a keyed request keeps being retried while the service says the first one with its key
 * is still in flight (409): outside the retry count, since the first may take ~10 s to start the
 * command with the automaker, and giving up then would leave the caller without the answer.
 */
export const IN_FLIGHT_PATIENCE_MS = 20_000;

/** The longest Retry-After honoured; a longer one is reported to the caller instead of slept through. */
export const MAX_RETRY_AFTER_SECONDS = 60;

export function retriesStatus(kind: RetryKind, status: number, code: string | undefined): boolean {
  if (kind === 'keyed' && status === 409) return code === 'TLM_IDEMPOTENCY_KEY_IN_FLIGHT';
  return RETRY_STATUSES[kind].has(status);
}

export const retriesConnectionFailure = (kind: RetryKind): boolean => kind !== 'never';

/** Exponential from 0.5 s, capped at 5 s, with jitter in [0.5, 1] so clients spread out. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(500 * 2 ** attempt, 5000);
  return Math.max(250, ceiling * (0.5 + random() / 2));
}

/** Retry-After as seconds (the service sends delta-seconds; an HTTP date is accepted too). */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
